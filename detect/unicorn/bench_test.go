package unicorn

import (
	"math/rand/v2"
	"testing"

	"github.com/precog-dev/precog/detect/hb"
	"github.com/precog-dev/precog/shim/trace"
)

// benchEvents returns a trace of about n events: two goroutines that take
// turns in critical sections of one lock, each section reading or writing
// a few of 64 locations, so that most accesses pair and many pairs
// combine.
func benchEvents(n int) []trace.Event {
	r := rand.New(rand.NewPCG(1, 2))
	var evs []trace.Event
	seq := uint64(0)
	sync := func(g uint64, k trace.Kind, site uint32, addr, peer uint64) {
		seq++
		evs = append(evs, trace.Event{Kind: k, Goroutine: g, Seq: seq, Site: site, Addr: addr, Peer: peer})
	}
	sync(1, trace.EvBegin, 0, 0, trace.NoParent)
	sync(1, trace.EvFork, 100, 0, 2)
	sync(1, trace.EvFork, 101, 0, 3)
	sync(2, trace.EvBegin, 0, 0, 1)
	sync(3, trace.EvBegin, 0, 0, 1)
	for len(evs) < n {
		g := uint64(2 + r.IntN(2))
		sync(g, trace.EvLock, 90, 0x900, 0)
		for sub := range uint64(1 + r.IntN(4)) {
			k := trace.EvRead
			if r.IntN(3) == 0 {
				k = trace.EvWrite
			}
			loc := uint64(r.IntN(64))
			evs = append(evs, trace.Event{Kind: k, Goroutine: g, Seq: seq, Sub: sub + 1, Site: uint32(1 + loc%16 + 16*(g-2)), Addr: 0x1000 + 8*loc})
		}
		sync(g, trace.EvUnlock, 91, 0x900, 0)
	}
	return evs
}

func BenchmarkPatterns(b *testing.B) {
	g := hb.Analyze(benchEvents(100_000), hb.Options{})
	var rp RunPatterns
	b.ReportAllocs()
	for b.Loop() {
		rp = Patterns(g, Options{})
	}
	b.ReportMetric(float64(len(g.Events))/b.Elapsed().Seconds()*float64(b.N)/1e6, "Mevents/s")
	b.ReportMetric(float64(rp.Pairs), "pairs")
	b.ReportMetric(float64(rp.Combined), "combined")
}
