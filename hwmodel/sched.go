package hwmodel

import "github.com/precog-dev/precog/shim/trace"

// scheduler places goroutines on cores as the trace's events arrive.
//
// The policy: a goroutine keeps its core until it does something that may
// block (a channel send or receive, a select without default, a
// WaitGroup, Cond or task-group Wait) or ends; at its next event it takes
// a core again: the one it last ran on if that core is free, else the
// free core used least recently, else the core whose goroutine has gone
// longest without an event, which it preempts. Goroutines thus spread over
// the cores in the recorded interleaving's order, and while there are no
// more runnable goroutines than cores each keeps a core of its own, as §4.1
// assumes ("each core runs one thread with infrequent context switches").
// The trace does not say when a goroutine really blocked or was preempted
// (a receive is recorded after it returned), so this is an approximation
// of Go's scheduler, not a replay of it.
type scheduler struct {
	running []int // per core: dense goroutine index, -1 when free
	used    []int // per core: the event index of its last use
	last    []int // per goroutine: its last core, -1 if none
	on      []int // per goroutine: its core now, -1 if none
	prev    []int // per core: the goroutine that ran last, -1 if none
}

func newScheduler(cores, goroutines int) *scheduler {
	s := &scheduler{
		running: make([]int, cores),
		used:    make([]int, cores),
		prev:    make([]int, cores),
		last:    make([]int, goroutines),
		on:      make([]int, goroutines),
	}
	for c := range cores {
		s.running[c], s.used[c], s.prev[c] = -1, -1, -1
	}
	for g := range goroutines {
		s.last[g], s.on[g] = -1, -1
	}
	return s
}

// place returns the core goroutine g runs event i on and, when the core
// switches to g from another goroutine (a context switch: the checker's
// per-thread state is saved and restored), that goroutine; else -1.
func (s *scheduler) place(g, i int) (core, from int) {
	if c := s.on[g]; c >= 0 {
		s.used[c] = i
		return c, -1
	}
	core = -1
	if c := s.last[g]; c >= 0 && s.running[c] < 0 {
		core = c
	}
	if core < 0 {
		for c := range s.running {
			if s.running[c] < 0 && (core < 0 || s.used[c] < s.used[core]) {
				core = c
			}
		}
	}
	if core < 0 {
		core = 0
		for c := range s.running {
			if s.used[c] < s.used[core] {
				core = c
			}
		}
		s.on[s.running[core]] = -1 // preempted
	}
	s.running[core], s.on[g], s.last[g] = g, core, core
	s.used[core] = i
	from = -1
	if p := s.prev[core]; p >= 0 && p != g {
		from = p
	}
	s.prev[core] = g
	return core, from
}

// after lets g's core go when event ev may have blocked it or ended it.
func (s *scheduler) after(g int, ev *trace.Event) {
	if !mayBlock(ev) {
		return
	}
	if c := s.on[g]; c >= 0 {
		s.running[c] = -1
		s.on[g] = -1
	}
}

func mayBlock(ev *trace.Event) bool {
	switch ev.Kind {
	case trace.EvChanSend, trace.EvChanRecv, trace.EvWGWait, trace.EvCondWait, trace.EvTaskWait, trace.EvEnd:
		return true
	case trace.EvSelect:
		return ev.Arg != -1 // a default case did not block
	}
	return false
}
