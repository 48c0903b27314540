package mysql2

import (
	"sync"
	"sync/atomic"
)

// The RIGHT version of the same code, which precog vet must not report:
// the session's network endpoint is set and cleared under LOCK_thd_data,
// and KILL holds the same lock across its check and its use
// (THD::close_active_vio).

// vio is a session's network endpoint.
type vio struct {
	peer string
	shut atomic.Bool
}

// vioTHD is a session whose endpoint is guarded by dataMu.
type vioTHD struct {
	dataMu    sync.Mutex // LOCK_thd_data: guards activeVio
	activeVio *vio
}

// serve runs the session on its own goroutine.
func (thd *vioTHD) serve(peer string) {
	thd.dataMu.Lock()
	thd.activeVio = &vio{peer: peer}
	thd.dataMu.Unlock()

	thd.dataMu.Lock()
	thd.activeVio = nil
	thd.dataMu.Unlock()
}

// closeActiveVio shuts the session's socket down, under LOCK_thd_data.
func (thd *vioTHD) closeActiveVio() {
	thd.dataMu.Lock()
	defer thd.dataMu.Unlock()
	if thd.activeVio != nil {
		thd.activeVio.shut.Store(true)
	}
}

// RunKill serves a session and kills it from another connection.
func RunKill() {
	thd := &vioTHD{}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		thd.serve("client:7")
	}()
	go func() {
		defer wg.Done()
		thd.closeActiveVio() // KILL 7
	}()
	wg.Wait()
}
