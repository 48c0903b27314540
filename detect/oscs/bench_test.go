package oscs

import (
	"testing"

	"github.com/precog-dev/precog/detect/hb"
	"github.com/precog-dev/precog/shim/trace"
)

// workload generates the trace of goroutines workers that each, round
// after round, update a shared sum in a critical section (a read-write
// sequence, as in Fig. 3b) and then work on private data without a lock:
// the shape of the paper's data-parallel benchmarks, where most locations
// are thread-local. With locked, each worker holds a lock of its own
// around its private work. It returns the events in the global order.
func workload(workers, rounds, private int, locked bool) []trace.Event {
	var evs []trace.Event
	seq := uint64(0)
	last := make([]uint64, workers+2)
	sub := make([]uint64, workers+2)
	sync := func(g uint64, ev trace.Event) {
		seq++
		ev.Goroutine, ev.Seq = g, seq
		last[g], sub[g] = seq, 0
		evs = append(evs, ev)
	}
	access := func(g uint64, ev trace.Event) {
		sub[g]++
		ev.Goroutine, ev.Seq, ev.Sub = g, last[g], sub[g]
		evs = append(evs, ev)
	}
	sync(1, trace.Event{Kind: trace.EvBegin, Peer: trace.NoParent})
	for w := uint64(2); w < uint64(workers)+2; w++ {
		sync(1, trace.Event{Kind: trace.EvFork, Site: 1, Peer: w})
		sync(w, trace.Event{Kind: trace.EvBegin, Peer: 1})
	}
	const mu, sum = 0x100, 0x200
	for r := 0; r < rounds; r++ {
		for w := uint64(2); w < uint64(workers)+2; w++ {
			sync(w, trace.Event{Kind: trace.EvLock, Site: 2, Addr: mu})
			access(w, trace.Event{Kind: trace.EvRead, Site: 3, Addr: sum})
			access(w, trace.Event{Kind: trace.EvWrite, Site: 4, Addr: sum, Value: uint64(r)*uint64(workers) + w})
			sync(w, trace.Event{Kind: trace.EvUnlock, Site: 5, Addr: mu})
			if locked {
				sync(w, trace.Event{Kind: trace.EvLock, Site: 8, Addr: 0x1000 * w})
			}
			for k := 0; k < 8; k++ {
				addr := 0x100000*w + 8*uint64((r*8+k)%private)
				access(w, trace.Event{Kind: trace.EvRead, Site: 6, Addr: addr})
				access(w, trace.Event{Kind: trace.EvWrite, Site: 7, Addr: addr, Value: uint64(k)})
			}
			if locked {
				sync(w, trace.Event{Kind: trace.EvUnlock, Site: 9, Addr: 0x1000 * w})
			}
		}
	}
	return evs
}

// BenchmarkCheck measures both algorithms on 8 workers, 1M events, and
// reports their peak history (what §5.5 compares: Opt keeps only shared
// locations), with the private work outside any lock and under each
// worker's own lock.
func BenchmarkCheck(b *testing.B) {
	for _, locked := range []bool{false, true} {
		name := "unlocked"
		if locked {
			name = "locked"
		}
		g := hb.Analyze(workload(8, 6000, 4096, locked), hb.Options{})
		for _, alg := range []Algorithm{Base, Opt} {
			b.Run(name+"/"+alg.String(), func(b *testing.B) {
				b.ReportAllocs()
				var st Stats
				for b.Loop() {
					_, st = CheckStats(g, nil, Options{Algorithm: alg})
				}
				b.ReportMetric(float64(len(g.Events))*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mevents/s")
				b.ReportMetric(float64(st.PeakEntries), "entries")
				b.ReportMetric(float64(st.PeakBytes+st.SharedBytes), "history-B")
			})
		}
	}
}
