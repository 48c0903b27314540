package hb

import (
	"slices"

	"github.com/precog-dev/precog/shim/trace"
)

// Hand-offs through a container under a mutex (see "Hand-offs" in the
// package doc). Both rules start from a read, in a critical section S_C of
// a lock L, of the pointer-shaped value another goroutine stored in a
// slot in a critical section S_P of L. A goroutine that takes the value
// out (reads and clears the slot in S_C) is ordered, from the clearing
// write on, after the whole of S_P; a goroutine that only gets it (the
// slot stays as it was) is ordered after S_P from its first event after
// S_C.

// takeLoc is a location as the pre-pass sees it: hb.Loc without the map
// generation (maps are not slots).
type takeLoc struct {
	addr, epoch uint64
	v           uint32
}

// A takeSection is a critical section as the hand-off matcher sees it:
// whether it is a write lock's, and the event index of its Unlock (-1
// while open). Stream keeps the Unlock's clock in it when a write of a
// non-zero value in it may be taken later (stored).
type takeSection struct {
	write  bool
	end    int
	stored bool
	clock  vclock
}

// heldSection is an open critical section of a goroutine: its lock and
// its record.
type heldSection struct {
	addr uint64
	sec  *takeSection
}

// lastWrite is the latest write of a location in trace order, kept only
// when it stored a non-zero value inside a critical section: another
// write leaves nothing a take could find (takeLoc's entry is deleted).
type lastWrite struct {
	g    uint64 // logical id of its goroutine
	held []heldSection
}

// pendingTake is a read of a slot whose value another goroutine stored
// under a lock the reader holds: a take if the reader clears the slot
// before it leaves its section.
type pendingTake struct {
	from *takeSection // the storing goroutine's section of the lock
	lock uint64
	sec  *takeSection // the reader's section of the lock
}

// gotValue is a read of a value another goroutine stored in section
// from of a lock the reader held in section in: the reader's first event
// after in is ordered after from.
type gotValue struct {
	from, in *takeSection
}

// takeGoroutine is a goroutine's state in the matcher.
type takeGoroutine struct {
	held    []heldSection
	snap    []heldSection // a copy of held for lastWrite, nil when held changed since
	epoch   uint64
	pending map[takeLoc]pendingTake
	got     []gotValue
}

// A taker finds the hand-offs of a trace's events as they come in trace
// order (see "Hand-offs" in the package doc): step returns, at an event
// ordered after a hand-off (the write that clears a slot, or the first
// event after the section in which the goroutine got a value), the
// sections whose ends the event is ordered after. It keeps the
// goroutines' open sections and, per location, the last write if it may
// be taken; past maxLast locations (0: no bound) the oldest such write is
// forgotten (its hand-offs are missed).
type taker struct {
	varOf   map[uint32]uint32
	ptr     map[uint32]bool
	gs      map[uint64]*takeGoroutine
	last    map[takeLoc]lastWrite
	order   []takeLoc // last's keys, oldest first (with maxLast)
	maxLast int
	from    []*takeSection // step's result, reused
}

func newTaker(varOf map[uint32]uint32, ptr map[uint32]bool, maxLast int) *taker {
	return &taker{varOf: varOf, ptr: ptr, gs: make(map[uint64]*takeGoroutine), last: make(map[takeLoc]lastWrite), maxLast: maxLast}
}

// takeEdges finds the hand-offs of events and returns their order edges:
// from the Unlock that ended the storing section to the clearing write,
// or to the getter's first event after its section. varOf names the
// locations as Graph.Loc does; ptr holds the read sites whose value is
// pointer-shaped (trace.UsePointer).
func takeEdges(events []trace.Event, varOf map[uint32]uint32, ptr map[uint32]bool) []Edge {
	if len(ptr) == 0 {
		return nil
	}
	t := newTaker(varOf, ptr, 0)
	var edges []Edge
	for i := range events {
		from, _ := t.step(i, &events[i])
		for _, f := range from {
			edges = append(edges, Edge{From: f.end, To: i})
		}
	}
	return edges
}

// step takes event i, ev, and returns the ended sections that ev is
// ordered after (valid until the next step), and the section an Unlock
// ends (its end set).
func (t *taker) step(i int, ev *trace.Event) (from []*takeSection, ended *takeSection) {
	st := t.gs[ev.Goroutine]
	if st == nil {
		st = &takeGoroutine{}
		t.gs[ev.Goroutine] = st
	}
	t.from = t.from[:0]
	if len(st.got) > 0 {
		// The goroutine's first event after a section in which it got
		// a value.
		kept := st.got[:0]
		for _, g := range st.got {
			if g.in.end < 0 {
				kept = append(kept, g)
				continue
			}
			// The storing section ended before the getter's began
			// (they exclude each other): always, but for a lock the
			// trace shows taken where it was not.
			if g.from.end >= 0 && !slices.Contains(t.from, g.from) {
				t.from = append(t.from, g.from)
			}
		}
		st.got = kept
	}
	switch ev.Kind {
	case trace.EvBegin:
		*st = takeGoroutine{epoch: st.epoch}
	case trace.EvGCEpoch:
		st.epoch = ev.Value
	case trace.EvLock, trace.EvRLock, trace.EvTryLock:
		if ev.Kind == trace.EvTryLock && ev.Value == 0 {
			break
		}
		st.held = append(st.held, heldSection{addr: ev.Addr, sec: &takeSection{write: ev.Kind == trace.EvLock, end: -1}})
		st.snap = nil
	case trace.EvUnlock, trace.EvRUnlock:
		for k := len(st.held) - 1; k >= 0; k-- {
			if h := st.held[k]; h.addr == ev.Addr {
				h.sec.end, ended = i, h.sec
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
		if !t.ptr[ev.Site] || len(st.held) == 0 {
			break
		}
		l := takeLoc{ev.Addr, st.epoch, t.varOf[ev.Site]}
		w, ok := t.last[l]
		if !ok || w.g == ev.Goroutine {
			break
		}
		for _, h := range st.held {
			for _, wh := range w.held {
				if wh.addr != h.addr || !wh.sec.write {
					continue
				}
				// Got in any mode: the storing section, a write
				// lock's, excludes both.
				if g := (gotValue{wh.sec, h.sec}); !slices.Contains(st.got, g) {
					st.got = append(st.got, g)
				}
				if h.sec.write {
					if st.pending == nil {
						st.pending = make(map[takeLoc]pendingTake)
					}
					st.pending[l] = pendingTake{from: wh.sec, lock: h.addr, sec: h.sec}
				}
			}
		}
	case trace.EvWrite:
		l := takeLoc{ev.Addr, st.epoch, t.varOf[ev.Site]}
		if p, ok := st.pending[l]; ok {
			delete(st.pending, l)
			if ev.Value == 0 && p.from.end >= 0 && holds(st.held, p.lock, p.sec) {
				if !slices.Contains(t.from, p.from) {
					t.from = append(t.from, p.from)
				}
				// Ordered from here on: the end of the section
				// adds nothing.
				st.got = slices.DeleteFunc(st.got, func(g gotValue) bool { return g.from == p.from })
			}
		}
		if ev.Value == 0 || len(st.held) == 0 {
			delete(t.last, l) // a nil store, or one outside a lock: nothing to take
			break
		}
		if st.snap == nil {
			st.snap = append([]heldSection(nil), st.held...)
			for _, h := range st.snap {
				h.sec.stored = true
			}
		}
		if _, ok := t.last[l]; !ok && t.maxLast > 0 {
			if len(t.order) >= t.maxLast {
				delete(t.last, t.order[0])
				t.order = t.order[1:]
			}
			t.order = append(t.order, l)
		}
		t.last[l] = lastWrite{g: ev.Goroutine, held: st.snap}
	}
	return t.from, ended
}

// holds reports whether section sec, of the lock at addr, is still open
// in held.
func holds(held []heldSection, addr uint64, sec *takeSection) bool {
	for _, h := range held {
		if h.addr == addr && h.sec == sec {
			return true
		}
	}
	return false
}
