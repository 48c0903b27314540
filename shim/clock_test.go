package shim

import (
	"testing"
	"time"

	"github.com/precog-dev/precog/shim/trace"
)

// BenchmarkChan measures a recorded buffered send and receive: outside a
// synctest bubble, where the clock readings cost a test of the
// goroutine's bubble flag, and as in a bubble (the flag set on the
// benchmark's goroutine, which reads the real clock), where each
// operation also records the EvClock before it blocks.
func BenchmarkChan(b *testing.B) {
	for _, bubble := range []bool{false, true} {
		name := "outside"
		if bubble {
			name = "bubble"
		}
		b.Run(name, func(b *testing.B) {
			ch := make(chan int, 1)
			g := cur()
			g.bubble = bubble
			defer func() { g.bubble = false }()
			for b.Loop() {
				Send(1, ch, 1)
				sinkInt = Recv(2, ch)
			}
		})
	}
}

// TestSleepClock checks that a time.Sleep records its clock only inside
// a synctest bubble, where detect/hb reads it: outside one EvSleep and
// EvWake carry 0; with the goroutine's bubble flag set (as Bubble and a
// fork inside a bubble set it) they carry time.Now, the wake's no earlier
// than the sleep's.
func TestSleepClock(t *testing.T) {
	for _, bubble := range []bool{false, true} {
		before := nanos(time.Now())
		evs := recorded(t, 4100, func() {
			g := cur()
			g.bubble = bubble
			Sleep(4101, time.Microsecond)
			g.bubble = false
		})
		var sleep, wake *trace.Event
		for i := range evs {
			switch evs[i].Kind {
			case trace.EvSleep:
				sleep = &evs[i]
			case trace.EvWake:
				wake = &evs[i]
			}
		}
		if sleep == nil || wake == nil {
			t.Fatalf("bubble %v: no Sleep and Wake in %s", bubble, kindsString(evs))
		}
		if sleep.Site != 4101 || wake.Site != 4101 || sleep.Addr != 0 || wake.Addr != 0 {
			t.Errorf("bubble %v: Sleep %+v, Wake %+v: want site 4101, address 0", bubble, *sleep, *wake)
		}
		if !bubble {
			if sleep.Value != 0 || wake.Value != 0 {
				t.Errorf("outside a bubble: Sleep's clock %d, Wake's %d, want 0", sleep.Value, wake.Value)
			}
			continue
		}
		if sleep.Value < before || wake.Value < sleep.Value {
			t.Errorf("in a bubble: Sleep's clock %d, Wake's %d, want at least %d and in order", sleep.Value, wake.Value, before)
		}
	}
}
