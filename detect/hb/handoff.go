package hb

import "github.com/precog-dev/precog/shim/trace"

// Hand-offs through a container under a mutex (see "Hand-offs" in the
// package doc): a goroutine that takes a value out of a slot, reading it
// and then clearing it in one critical section of a lock L, after another
// goroutine stored it there in a critical section of L, is ordered, from
// the clearing write on, after that whole section.

// takeLoc is a location as the pre-pass sees it: hb.Loc without the map
// generation (maps are not slots).
type takeLoc struct {
	addr, epoch uint64
	v           uint32
}

// heldSection is an open critical section during the pre-pass: its lock,
// mode and serial number (its index in the order of Begins).
type heldSection struct {
	addr   uint64
	write  bool
	serial int
}

// lastWrite is the latest write of a location in trace order.
type lastWrite struct {
	g      uint64 // logical id of its goroutine
	nonNil bool   // it stored a non-zero value word
	held   []heldSection
}

// pendingTake is a read of a slot whose value another goroutine stored
// under a lock the reader holds: a take if the reader clears the slot
// before it leaves its section.
type pendingTake struct {
	from   int // serial of the storing goroutine's section of the lock
	lock   uint64
	serial int // serial of the reader's section of the lock
}

// takeEdges finds the hand-offs of events and returns their order edges:
// from the Unlock that ended the storing section to the clearing write.
// varOf names the locations as Graph.Loc does; ptr holds the read sites
// whose value is pointer-shaped (trace.UsePointer).
func takeEdges(events []trace.Event, varOf map[uint32]uint32, ptr map[uint32]bool) []Edge {
	if len(ptr) == 0 {
		return nil
	}
	type gstate struct {
		held    []heldSection
		snap    []heldSection // a copy of held for lastWrite, nil when held changed since
		epoch   uint64
		pending map[takeLoc]pendingTake
	}
	gs := make(map[uint64]*gstate)
	last := make(map[takeLoc]lastWrite)
	var ends []int // per section serial: the event index of its Unlock, -1 while open
	var edges []Edge
	for i := range events {
		ev := &events[i]
		st := gs[ev.Goroutine]
		if st == nil {
			st = &gstate{}
			gs[ev.Goroutine] = st
		}
		switch ev.Kind {
		case trace.EvBegin:
			*st = gstate{epoch: st.epoch}
		case trace.EvGCEpoch:
			st.epoch = ev.Value
		case trace.EvLock, trace.EvRLock, trace.EvTryLock:
			if ev.Kind == trace.EvTryLock && ev.Value == 0 {
				break
			}
			st.held = append(st.held, heldSection{addr: ev.Addr, write: ev.Kind == trace.EvLock, serial: len(ends)})
			st.snap = nil
			ends = append(ends, -1)
		case trace.EvUnlock, trace.EvRUnlock:
			for k := len(st.held) - 1; k >= 0; k-- {
				if h := st.held[k]; h.addr == ev.Addr {
					ends[h.serial] = i
					st.held = append(st.held[:k], st.held[k+1:]...)
					st.snap = nil
					break
				}
			}
			if len(st.held) == 0 {
				st.pending = nil
			}
		case trace.EvCondWait:
			// Wait unlocked and locked again: a read before it and a
			// write after it are not one step.
			st.pending = nil
		case trace.EvRead:
			if !ptr[ev.Site] || len(st.held) == 0 {
				break
			}
			l := takeLoc{ev.Addr, st.epoch, varOf[ev.Site]}
			w, ok := last[l]
			if !ok || w.g == ev.Goroutine || !w.nonNil {
				break
			}
			for _, h := range st.held {
				if !h.write {
					continue
				}
				for _, wh := range w.held {
					if wh.addr == h.addr && wh.write {
						if st.pending == nil {
							st.pending = make(map[takeLoc]pendingTake)
						}
						st.pending[l] = pendingTake{from: wh.serial, lock: h.addr, serial: h.serial}
					}
				}
			}
		case trace.EvWrite:
			l := takeLoc{ev.Addr, st.epoch, varOf[ev.Site]}
			if p, ok := st.pending[l]; ok {
				delete(st.pending, l)
				if ev.Value == 0 && ends[p.from] >= 0 && holds(st.held, p.lock, p.serial) {
					edges = append(edges, Edge{From: ends[p.from], To: i})
				}
			}
			if st.snap == nil && len(st.held) > 0 {
				st.snap = append([]heldSection(nil), st.held...)
			}
			last[l] = lastWrite{g: ev.Goroutine, nonNil: ev.Value != 0, held: st.snap}
		}
	}
	return edges
}

// holds reports whether the section with the serial, of the lock at addr,
// is still open in held.
func holds(held []heldSection, addr uint64, serial int) bool {
	for _, h := range held {
		if h.addr == addr && h.serial == serial {
			return true
		}
	}
	return false
}
