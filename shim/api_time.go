package shim

import (
	"time"

	"github.com/precog-dev/precog/shim/trace"
)

// Bubble is the first statement of a function literal passed to
// synctest.Test or synctest.Run: it records EvBubble on the bubble's root
// goroutine, with the bubble's virtual clock (time.Now inside a bubble).
// The goroutines that goroutine starts belong to its bubble; detect/hb
// follows the forks.
func Bubble(site uint32) {
	if enabled {
		g := cur()
		g.bubble = true
		g.syncEvent(site, trace.EvBubble, nil, nanos(time.Now()))
	}
}

// Sleep replaces time.Sleep(d). It records EvSleep with the clock at the
// call and EvWake with the clock at the return; inside a synctest bubble
// the clock is virtual, and detect/hb orders the wake after what the
// bubble's goroutines did before the clock reached it. Neither event
// passes a control gate: a gate here would hold the goroutine before or
// after a point where the bubble's clock may move.
func Sleep(site uint32, d time.Duration) {
	if !enabled {
		time.Sleep(d)
		return
	}
	g := cur()
	g.syncEvent(site, trace.EvSleep, nil, nanos(time.Now()))
	time.Sleep(d)
	g.syncEvent(site, trace.EvWake, nil, nanos(time.Now()))
}

// nanos is t in nanoseconds since 1970, as the bits of an int64.
func nanos(t time.Time) uint64 { return uint64(t.UnixNano()) }
