package shim

import (
	"slices"
	"testing"

	"github.com/precog-dev/precog/shim/trace"
)

// TestStackNotRecorded: with the stack filter on, accesses to a variable
// on the goroutine's own stack are not recorded, before and after the
// stack grew (which moves it), through R, W, RL and WN alike; accesses to
// a heap variable are, and so are both with the filter off.
func TestStackNotRecorded(t *testing.T) {
	if !stackBoundsFit() {
		t.Skip("the runtime's g does not start with its stack bounds here: every access is recorded")
	}
	const base = 9100
	heap := new(int)
	run := func(filter bool) (sites []uint32) {
		saved := stackFilter
		stackFilter = filter
		defer func() { stackFilter = saved }()
		evs := recorded(t, base, func() {
			var local int
			var l Local
			W(base+1, &local, 1)
			_ = *R(base+2, &local)
			WN(&l, base+3, &local, 2)
			_ = *RL(&l, base+4, &local)
			W(base+5, heap, 1)
			_ = *RL(&l, base+6, heap)
			if grow(256) == 0 { // grows the stack past any first size: moves local
				return
			}
			W(base+7, &local, 3)
			_ = *R(base+8, &local)
			_ = *R(base+9, heap)
		})
		for _, ev := range evs {
			if (ev.Kind == trace.EvRead || ev.Kind == trace.EvWrite) && ev.Site > base && ev.Site < base+10 {
				sites = append(sites, ev.Site-base)
			}
		}
		return sites
	}
	if got := run(true); !slices.Equal(got, []uint32{5, 6, 9}) {
		t.Errorf("with the filter, recorded sites %v, want [5 6 9] (the heap variable's)", got)
	}
	if got := run(false); !slices.Equal(got, []uint32{1, 2, 3, 4, 5, 6, 7, 8, 9}) {
		t.Errorf("without the filter, recorded sites %v, want all nine", got)
	}
}

// grow recurses n frames deep with a frame large enough to make the
// goroutine's stack grow, and returns 1.
func grow(n int) int {
	var pad [1024]byte
	pad[n%len(pad)] = 1
	if n == 0 {
		return int(pad[0])
	}
	return grow(n-1) + int(pad[n%len(pad)]) - 1
}
