package hb

import "github.com/precog-dev/precog/shim/trace"

// Locks handed to a goroutine (see "Locks handed to a goroutine" in the
// package doc): a goroutine that locks a mutex and starts a goroutine
// which unlocks it without having locked it,
//
//	mu.Lock()
//	go func() { defer mu.Unlock(); add(s) }()
//
// hands the lock over at the go statement: the child holds it from its
// start to its Unlock, and the parent no longer does. Go allows it, and
// every other Lock of the mutex waits for that Unlock, so the child's
// accesses are under the lock (watermill's GoChannel.Subscribe; the
// static checks' locksets have the same rule).

// handedLocks returns, by the event index of each fork that hands locks
// to its child, the locks handed: those the parent held at the fork, of
// which the child's first release of that mutex is an Unlock (RUnlock) of
// a lock it did not take itself. mode gives a lock event's mode.
func handedLocks(events []trace.Event, mode func(*trace.Event) Mode) map[int][]Lock {
	type held struct {
		lock Lock
		at   int // event index of its Lock
	}
	type gstate struct {
		held   []held
		fork   int    // event index of the fork that started it, -1 if none
		parent uint64 // the forking goroutine's logical id
		begun  bool   // its Begin was seen (a GC epoch event may come first)
	}
	gs := make(map[uint64]*gstate)
	var order []*gstate           // in the order they began, for a deterministic fallback
	forks := make(map[uint64]int) // child id -> fork event index, until the child begins
	var out map[int][]Lock
	release := func(st *gstate, l Lock) bool {
		for k := len(st.held) - 1; k >= 0; k-- {
			if st.held[k].lock == l {
				st.held = append(st.held[:k], st.held[k+1:]...)
				return true
			}
		}
		return false
	}
	for i := range events {
		ev := &events[i]
		st := gs[ev.Goroutine]
		if st == nil || ev.Kind == trace.EvBegin && st.begun {
			// A new goroutine, or a logical id used again.
			st = &gstate{fork: -1}
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
			if release(st, l) {
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
			// Another goroutine's lock, not handed at a fork: the
			// release ends that goroutine's section, as unlock does.
			for _, o := range order {
				if release(o, l) {
					break
				}
			}
		}
	}
	return out
}
