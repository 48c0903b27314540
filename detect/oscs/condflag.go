package oscs

import (
	"github.com/precog-dev/precog/detect/hb"
	"github.com/precog-dev/precog/shim/trace"
)

// maxFlagChecks bounds the lock checks per candidate flag location, so a
// location awaited and announced many times costs a bounded amount.
const maxFlagChecks = 64

// CondFlagEdges finds the flags awaited under a sync.Cond (oscs.txt §5.3,
// Fig. 12: "can be avoided if the flag variable can be identified as an
// ordering synchronization") and returns the order edges they imply, with
// the flag locations.
//
// A location is a cond flag when both of these happen in the trace:
//
//   - a goroutine reads it inside a critical section and then waits on a
//     Cond with no other synchronization in between (the reads of the wait
//     loop's condition, such as `for !n.done { c.Wait() }`);
//   - another goroutine writes it inside a critical section holding a lock
//     the waiter held, and then signals or broadcasts a Cond before it
//     starts another critical section (the write that announces it).
//
// Each announcing write then happens before the first read of the flag by
// every other goroutine that reads the value it wrote (the reads after it
// in the trace, up to the next write of the flag): the edges. Feed them to
// hb.Analyze (Options.Edges) and treat the flags' accesses as
// synchronization, not data, as Check does unless Options.NoCondFlags.
//
// The inference needs one wait in the trace: a run in which the announcing
// write came first and nobody waited shows no flag.
func CondFlagEdges(g *hb.Graph) ([]hb.Edge, map[hb.Loc]bool) {
	return flagEdges(g, nil, true, false)
}

// SpinFlagEdges is CondFlagEdges for flags awaited in a loop (§2.1's spin
// flags, ConMem §4.6): a location is a spin flag when a read of it inside
// a critical section decides whether a loop is left (the instrumenter's
// static fact trace.UseLoopExit on the read's site), and another goroutine
// writes it holding a common lock. Every write of a spin flag then happens
// before the first read of the value it wrote by each other goroutine.
func SpinFlagEdges(g *hb.Graph, sites *trace.SiteTable) ([]hb.Edge, map[hb.Loc]bool) {
	return flagEdges(g, sites, false, true)
}

// flagEdges finds cond flags, spin flags or both, and their edges.
func flagEdges(g *hb.Graph, sites *trace.SiteTable, cond, spin bool) ([]hb.Edge, map[hb.Loc]bool) {
	n := len(g.Goroutines)
	sinceSync := make([][]int, n) // reads in critical sections since the goroutine's last sync event
	secWrites := make([][]int, n) // writes in the goroutine's current or last critical section
	awaited := make(map[hb.Loc][]int)
	announced := make(map[hb.Loc][]int)
	isAnnounce := make(map[int]bool)
	exits := make(map[hb.Loc][]int)   // spin: loop-exit reads in critical sections
	writes := make(map[hb.Loc][]int)  // spin: writes in critical sections
	exitSite := make(map[uint32]bool) // spin: loopExit of the sites asked, once per site
	isExit := func(site uint32) bool {
		x, ok := exitSite[site]
		if !ok {
			x = loopExit(sites, site)
			exitSite[site] = x
		}
		return x
	}
	for i := range g.Events {
		ev := &g.Events[i]
		gi := g.Goroutine(i)
		switch {
		case ev.Kind == trace.EvRead:
			if len(g.Locks(i)) > 0 {
				sinceSync[gi] = append(sinceSync[gi], i)
				if spin && isExit(ev.Site) {
					loc := g.Loc(i)
					exits[loc] = append(exits[loc], i)
				}
			}
		case ev.Kind == trace.EvWrite:
			if len(g.Locks(i)) > 0 {
				secWrites[gi] = append(secWrites[gi], i)
				if spin {
					loc := g.Loc(i)
					writes[loc] = append(writes[loc], i)
				}
			}
		case ev.Kind.IsSync():
			switch ev.Kind {
			case trace.EvCondWait:
				for _, r := range sinceSync[gi] {
					loc := g.Loc(r)
					awaited[loc] = append(awaited[loc], i)
				}
			case trace.EvCondSignal, trace.EvCondBroadcast:
				for _, w := range secWrites[gi] {
					if !isAnnounce[w] {
						isAnnounce[w] = true
						loc := g.Loc(w)
						announced[loc] = append(announced[loc], w)
					}
				}
				secWrites[gi] = secWrites[gi][:0]
			case trace.EvLock, trace.EvRLock, trace.EvTryLock:
				if len(g.Locks(i)) == 1 {
					secWrites[gi] = secWrites[gi][:0] // a new outermost critical section
				}
			}
			sinceSync[gi] = sinceSync[gi][:0]
		}
	}

	flags := make(map[hb.Loc]bool)
	spinFlags := make(map[hb.Loc]bool)
	if cond {
		for loc, waits := range awaited {
			if matched(g, announced[loc], waits) {
				flags[loc] = true
			}
		}
	}
	if spin {
		for loc, reads := range exits {
			if matched(g, writes[loc], reads) {
				flags[loc] = true
				spinFlags[loc] = true
			}
		}
	}
	if len(flags) == 0 {
		return nil, nil
	}

	var edges []hb.Edge
	last := make(map[hb.Loc]int) // the flag's last write, if it announced; -1 otherwise
	type reader struct{ w, g int }
	done := make(map[reader]bool)
	for i := range g.Events {
		ev := &g.Events[i]
		if !isAccess(ev.Kind) {
			continue
		}
		loc := g.Loc(i)
		if !flags[loc] {
			continue
		}
		if ev.Kind == trace.EvWrite {
			if isAnnounce[i] || spinFlags[loc] {
				last[loc] = i
			} else {
				last[loc] = -1
			}
			continue
		}
		w, ok := last[loc]
		if !ok || w < 0 {
			continue
		}
		gi := g.Goroutine(i)
		if gi == g.Goroutine(w) || done[reader{w, gi}] {
			continue
		}
		done[reader{w, gi}] = true
		edges = append(edges, hb.Edge{From: w, To: i})
	}
	return edges, flags
}

// matched reports whether some write of ws and some event of others, of
// different goroutines, hold a common lock, within maxFlagChecks tries.
func matched(g *hb.Graph, ws, others []int) bool {
	checks := 0
	for _, w := range ws {
		for _, o := range others {
			if checks++; checks > maxFlagChecks {
				return false
			}
			if g.Goroutine(w) != g.Goroutine(o) && g.CommonLock(w, o) {
				return true
			}
		}
	}
	return false
}

func loopExit(sites *trace.SiteTable, id uint32) bool {
	s, ok := sites.Lookup(id)
	return ok && s.Used(trace.UseLoopExit)
}
