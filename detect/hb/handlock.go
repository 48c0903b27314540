package hb

import "github.com/precog-dev/precog/shim/trace"

// Locks handed between goroutines (see "Locks handed between goroutines"
// in the package doc). Go mutexes have no owner: a goroutine may unlock a
// mutex another locked, and the critical section runs from the Lock to
// that Unlock on whatever goroutines the work between them is on. Two
// shapes of it are told apart here. A goroutine that locks a mutex and
// starts a goroutine which unlocks it without having locked it,
//
//	mu.Lock()
//	go func() { defer mu.Unlock(); add(s) }()
//
// hands the lock over at the go statement: the child holds it from its
// start to its Unlock, and the parent no longer does. Go allows it, and
// every other Lock of the mutex waits for that Unlock, so the child's
// accesses are under the lock (watermill's GoChannel.Subscribe; the
// static checks' locksets have the same rule). Any other Unlock of a lock
// its goroutine did not take adopts the lock from the goroutine that
// holds it,
//
//	acquired := make(chan struct{})
//	go func() { mu.Lock(); close(acquired) }()
//	<-acquired
//	defer mu.Unlock()
//
// (otlptracegrpc's client.Stop, which takes the lock within a context's
// deadline): the adopter holds it from its first event ordered after the
// Lock, and the locker's section ends there.

// An adoption is a lock that one goroutine took and another released
// without its go statement having handed it over: the walk opens the
// adopter's section at its first event that the Lock happens before.
type adoption struct {
	first int  // event index of the adopter's first event: which goroutine of its logical id it is
	lock  Lock // the lock and the mode it was taken in
	from  int  // event index of the Lock, RLock or TryLock that took it
	until int  // event index of the adopter's Unlock (RUnlock)
}

// handedLocks returns, by the event index of each fork that hands locks
// to its child, the locks handed: those the parent held at the fork, of
// which the child's first release of that mutex is an Unlock (RUnlock) of
// a lock it did not take itself. It returns, by the adopter's logical id,
// the other Unlocks (RUnlocks) of a lock their goroutine did not take,
// each with the Lock of the goroutine that held it: the first holder in
// the order the goroutines began, which is the one for a write lock
// (only one goroutine holds it at a time) and for a read lock held by
// several a guess (the trace does not say whose read lock it releases,
// and the unlock rule of the walk guesses the same). mode gives a lock
// event's mode.
func handedLocks(events []trace.Event, mode func(*trace.Event) Mode) (map[int][]Lock, map[uint64][]adoption) {
	type held struct {
		lock Lock
		at   int // event index of its Lock
	}
	type gstate struct {
		held   []held
		fork   int    // event index of the fork that started it, -1 if none
		parent uint64 // the forking goroutine's logical id
		begun  bool   // its Begin was seen (a GC epoch event may come first)
		first  int    // event index of its first event
	}
	gs := make(map[uint64]*gstate)
	var order []*gstate           // in the order they began, for a deterministic fallback
	forks := make(map[uint64]int) // child id -> fork event index, until the child begins
	var out map[int][]Lock
	var adopts map[uint64][]adoption
	// release drops lock l from st's held locks and returns the event
	// index of the Lock that took it, -1 if st does not hold it.
	release := func(st *gstate, l Lock) int {
		for k := len(st.held) - 1; k >= 0; k-- {
			if h := st.held[k]; h.lock == l {
				st.held = append(st.held[:k], st.held[k+1:]...)
				return h.at
			}
		}
		return -1
	}
	for i := range events {
		ev := &events[i]
		st := gs[ev.Goroutine]
		if st == nil || ev.Kind == trace.EvBegin && st.begun {
			// A new goroutine, or a logical id used again.
			st = &gstate{fork: -1, first: i}
			gs[ev.Goroutine] = st
			order = append(order, st)
		}
		if st.fork < 0 {
			if f, ok := forks[ev.Goroutine]; ok {
				st.fork, st.parent = f, events[f].Goroutine
			}
		}
		if ev.Kind == trace.EvBegin {
			st.begun = true
			delete(forks, ev.Goroutine)
		}
		switch ev.Kind {
		case trace.EvFork, trace.EvTaskGo:
			forks[ev.Peer] = i
		case trace.EvLock, trace.EvRLock, trace.EvTryLock:
			if ev.Kind == trace.EvTryLock && ev.Value == 0 {
				break
			}
			st.held = append(st.held, held{Lock{Addr: ev.Addr, Mode: mode(ev)}, i})
		case trace.EvUnlock, trace.EvRUnlock:
			l := Lock{Addr: ev.Addr, Mode: Write}
			if ev.Kind == trace.EvRUnlock {
				l.Mode = Read
			}
			if release(st, l) >= 0 {
				break
			}
			if p := gs[st.parent]; st.fork >= 0 && p != nil {
				handed := false
				for k := len(p.held) - 1; k >= 0; k-- {
					if h := p.held[k]; h.lock == l && h.at < st.fork {
						p.held = append(p.held[:k], p.held[k+1:]...)
						handed = true
						break
					}
				}
				if handed {
					if out == nil {
						out = make(map[int][]Lock)
					}
					out[st.fork] = append(out[st.fork], l)
					break
				}
			}
			// Another goroutine's lock, not handed at a fork: adopted.
			for _, o := range order {
				if at := release(o, l); at >= 0 {
					if adopts == nil {
						adopts = make(map[uint64][]adoption)
					}
					adopts[ev.Goroutine] = append(adopts[ev.Goroutine], adoption{first: st.first, lock: l, from: at, until: i})
					break
				}
			}
		}
	}
	return out, adopts
}
