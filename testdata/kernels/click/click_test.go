package click

import (
	"testing"
	"time"
)

// TestKillRouter runs one router thread for 20 ms and kills it (a start at
// load 50 outlasted 2 ms). The driver makes its one pass over the tasks
// within microseconds of starting; the master drops the router 20 ms later.
func TestKillRouter(t *testing.T) {
	r := NewRouter("FromDevice", "Queue", "ToDevice")
	m := onHeap(new(Master))
	m.Start(r)
	time.Sleep(20 * time.Millisecond) // the router runs
	m.KillRouter()
	for name, n := range r.Fired() {
		if n != 1 {
			t.Errorf("task %s fired %d times, want 1", name, n)
		}
	}
}

// masters keeps the tests' masters on the heap: a Master on the test's
// stack moved when the stack grew between two recorded accesses of
// m.threads in some runs and not in others, and the golden trace then
// named it twice.
var masters []*Master

func onHeap(m *Master) *Master {
	masters = append(masters, m)
	return m
}
