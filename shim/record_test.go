package shim

import (
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/precog-dev/precog/shim/trace"
)

// Sites: each test uses its own range, so that tests sharing the one trace
// can pick out their events.

func TestRecordGoroutineAndLocks(t *testing.T) {
	const base = 1000
	var (
		mu sync.Mutex
		x  int
	)
	parent := cur().id
	id := Go(base + 1)
	done := make(chan struct{})
	go func() {
		Begin(id)
		defer End()
		defer close(done)
		Lock(base+2, &mu)
		W(base+3, &x, 42)
		_ = *R(base+4, &x)
		Unlock(base+5, &mu)
	}()
	<-done
	evs := readTrace(t, tracePath)
	var got []string
	for _, ev := range goroutineEvents(evs, id) {
		got = append(got, ev.Kind.String())
		switch ev.Kind {
		case trace.EvBegin:
			if ev.Peer != parent {
				t.Errorf("Begin parent %d, want %d", ev.Peer, parent)
			}
		case trace.EvLock, trace.EvUnlock:
			if ev.Addr != uint64(uintptr(unsafe.Pointer(&mu))) {
				t.Errorf("%v addr %#x, want %p", ev.Kind, ev.Addr, &mu)
			}
		case trace.EvWrite:
			if ev.Value != 42 || ev.Addr != uint64(uintptr(unsafe.Pointer(&x))) {
				t.Errorf("Write %+v", ev)
			}
		}
	}
	if s := strings.Join(got, " "); s != "Begin Lock Write Read Unlock End" && s != "GCEpoch Begin Lock Write Read Unlock End" {
		t.Errorf("child recorded %s", s)
	}
	forks := siteEvents(evs, base+1, base+2)
	if len(forks) != 1 || forks[0].Kind != trace.EvFork || forks[0].Peer != id || forks[0].Goroutine != parent {
		t.Errorf("fork events %+v", forks)
	}
}
