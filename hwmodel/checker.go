package hwmodel

import (
	"github.com/precog-dev/precog/hwmodel/cache"
	"github.com/precog-dev/precog/shim/trace"
)

// The checker module of a core (§4.2, Fig. 10) holds the running thread's
// ID, its vector clock and its current critical section; here the running
// goroutine is the scheduler's, and the critical sections are hb's. What
// the model adds per core is the cost of its bookkeeping, which goes
// through the caches:
//
//   - On an acquire or release of an ordering object (everything that
//     orders in detect/hb: go statements and goroutine ends, channels,
//     WaitGroups, Once, Cond, atomics, task groups, cancels), the checker
//     reads the object's vector clock and, on a release, writes it back
//     (§4.2: "accessed and/or updated by the checker module through normal
//     memory hierarchy"). The clocks sit in pages of their own (§4.4), one
//     region per object here.
//   - On a context switch, the checker's per-thread state is saved and
//     restored: the old goroutine's clock written, the new one's read.
//   - Mutexes are not ordering objects: Lock and Unlock only change the
//     current critical section, in the checker.
//
// Clocks have one ClockBytes component per goroutine of the trace so far,
// so their traffic grows with the number of goroutines, up to the 256
// threads that Table 1's 8-bit thread IDs can name (Config): the paper's
// programs had a few threads, Go tests may have thousands of goroutines,
// which the hardware would have to fold onto 256 IDs (not modeled).

// clockRegion is where the model puts vector clocks: far above any Go heap
// address, one 1 MiB region per object, each starting at a different line
// offset so that the first lines of all clocks do not fall into one set.
const (
	objClocks    = 1 << 62
	threadClocks = 1<<62 | 1<<61
	regionBytes  = 1 << 20
)

func regionAddr(base uint64, k int) uint64 {
	return base + uint64(k)*regionBytes + uint64(k%1024)*64
}

// orderKind says how an event uses its ordering object: acquire (reads its
// clock), release (reads and writes it), or neither.
func orderKind(k trace.Kind) (acquire, release bool) {
	switch k {
	case trace.EvBegin, trace.EvChanRecv, trace.EvWGWait, trace.EvOnceDo, trace.EvCondWait,
		trace.EvAtomicLoad, trace.EvTaskWait:
		return true, false
	case trace.EvFork, trace.EvEnd, trace.EvChanSend, trace.EvChanClose, trace.EvWGAdd, trace.EvWGDone,
		trace.EvCondSignal, trace.EvCondBroadcast, trace.EvAtomicStore, trace.EvTaskGo, trace.EvCancel:
		return false, true
	case trace.EvSelect:
		return true, true
	}
	return false, false
}

// memOp is the program's own access for an event: reads and writes of
// variables, a map's header, and the word of a synchronization object (a
// lock's CAS, a channel's lock, an atomic).
func memOp(ev *trace.Event) (addr uint64, write, ok bool) {
	switch ev.Kind {
	case trace.EvRead, trace.EvMapRead, trace.EvMapIter, trace.EvAtomicLoad, trace.EvOnceDo, trace.EvWGWait:
		return ev.Addr, false, ev.Addr != 0
	case trace.EvWrite, trace.EvMapWrite, trace.EvAtomicStore,
		trace.EvLock, trace.EvUnlock, trace.EvRLock, trace.EvRUnlock, trace.EvTryLock,
		trace.EvWGAdd, trace.EvWGDone, trace.EvCondWait, trace.EvCondSignal, trace.EvCondBroadcast,
		trace.EvChanMake, trace.EvChanSend, trace.EvChanRecv, trace.EvChanClose, trace.EvSelect,
		trace.EvTaskGo, trace.EvTaskWait:
		return ev.Addr, true, ev.Addr != 0
	}
	return 0, false, false
}

// clockTraffic reads and/or writes a clock of n bytes at addr through
// core's caches and returns the cycles and line accesses.
func clockTraffic(h *cache.Hierarchy, core int, addr uint64, n, lineBytes int, read, write bool) (cycles, lines int) {
	for off := 0; off < n; off += lineBytes {
		if read {
			cycles += h.Access(core, addr+uint64(off), false).Cycles
			lines++
		}
		if write {
			cycles += h.Access(core, addr+uint64(off), true).Cycles
			lines++
		}
	}
	return cycles, lines
}
