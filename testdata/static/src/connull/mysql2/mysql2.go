// Package mysql2 is the MySQL-2 kernel (ConMem, conmem.txt Tables VII-IX;
// MySQL 5.1.28): a Con-NULL atomicity violation through a different field
// than MySQL-1.
//
// KILL <id>, run by another client's goroutine, calls Awake on the victim
// session: it checks thd.mysysVar (the victim's wait state, MySQL's
// st_my_thread_var) for nil and then reads the field again to raise the abort
// flag. The victim's own goroutine clears thd.mysysVar when the session ends
// (my_thread_end), without a lock.
//
// Crashing interleaving:
//
//	KILL goroutine                      session goroutine
//	if thd.mysysVar != nil {
//	    thd.closeActiveVio()
//	                                    thd.mysysVar = nil   (session ends)
//	    thd.mysysVar.abort.Store(true)  panic: runtime error: invalid memory
//	                                    address or nil pointer dereference
//
// The normal schedule hides the bug: KILL usually lands while the session is
// running statements, long before it ends.
//
// RIGHT version in this file: thd.activeVio, the session's network endpoint,
// is set and cleared under thd.dataMu (LOCK_thd_data), and Awake holds the
// same lock across its check and its use (THD::close_active_vio).
package mysql2

import (
	"sync"
	"sync/atomic"
)

// threadVar is a session goroutine's wait state (st_my_thread_var).
type threadVar struct {
	abort atomic.Bool // checked between rows
}

// vio is a session's network endpoint.
type vio struct {
	peer string
	shut atomic.Bool
}

func (v *vio) shutdown() { v.shut.Store(true) }

// THD is one client session.
type THD struct {
	id       int
	killed   atomic.Bool
	mysysVar *threadVar // set and cleared by the session itself, no lock

	dataMu    sync.Mutex // LOCK_thd_data: guards activeVio
	activeVio *vio
}

// Serve runs the session on its own goroutine.
func (thd *THD) Serve(peer string, rows [][]string) int {
	v := &threadVar{}
	thd.mysysVar = v // my_thread_init

	thd.dataMu.Lock()
	thd.activeVio = &vio{peer: peer}
	thd.dataMu.Unlock()

	sent := 0
	for _, row := range rows {
		if v.abort.Load() || thd.killed.Load() {
			break
		}
		sent += len(row)
	}

	thd.dataMu.Lock()
	thd.activeVio = nil
	thd.dataMu.Unlock()

	thd.mysysVar = nil // my_thread_end
	return sent
}

// Awake is THD::awake, called by another session's KILL.
func (thd *THD) Awake() {
	thd.killed.Store(true)
	if thd.mysysVar != nil {
		thd.closeActiveVio()
		thd.mysysVar.abort.Store(true) // want `may be nil when`
	}
}

// closeActiveVio shuts the session's socket down, under LOCK_thd_data.
func (thd *THD) closeActiveVio() {
	thd.dataMu.Lock()
	defer thd.dataMu.Unlock()
	if thd.activeVio != nil {
		thd.activeVio.shutdown()
	}
}

// Run serves a session and kills it from another connection.
func Run(rows [][]string) int {
	thd := &THD{id: 7}
	var wg sync.WaitGroup
	var sent int
	wg.Add(2)
	go func() {
		defer wg.Done()
		sent = thd.Serve("client:7", rows)
	}()
	go func() {
		defer wg.Done()
		thd.Awake() // KILL 7
	}()
	wg.Wait()
	return sent
}
