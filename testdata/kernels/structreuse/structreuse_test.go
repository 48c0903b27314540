package structreuse

import (
	"runtime"
	"runtime/debug"
	"strconv"
	"testing"
	"time"
)

// A handle is a resource with a finalizer, as network connections have:
// each dropped one keeps the finalizer goroutine busy for a while, and the
// shim's GC epochs, counted by a finalizer of its own, fall behind the
// collections.
type handle struct{ _ *int }

func newHandle() *handle {
	h := &handle{}
	runtime.SetFinalizer(h, func(*handle) { time.Sleep(100 * time.Microsecond) })
	return h
}

// TestQueries runs parallel subtests that each run queries, one after
// another, dropping each with a handle and a few kilobytes of garbage:
// the frequent collections make it likely that a new query takes the
// address of one another subtest dropped before the shim's epochs count
// the collection that freed it.
func TestQueries(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(5))
	for i := 0; i < 8; i++ {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			t.Parallel()
			for j := 0; j < 200; j++ {
				q := NewQuery(j)
				_ = newHandle()
				if got, want := q.Run(4), 4*j+6; got != want {
					t.Fatalf("sum %d, want %d", got, want)
				}
			}
		})
	}
}
