package shim

import "testing"

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
