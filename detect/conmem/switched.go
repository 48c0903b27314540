package conmem

import (
	"slices"

	"github.com/precog-dev/precog/detect/hb"
	"github.com/precog-dev/precog/shim/trace"
)

// maxSwitchBack bounds the events of a read's goroutine that switchedAfter
// walks back through for the checks that switch it.
const maxSwitchBack = 4096

// switchedAfter reports whether read r runs after init w in every
// execution in which r runs: a read i of r's goroutine before r (the last
// at its site) switches the branch that leads to r (trace.Site.Switches:
// the condition is the value i read, its negation or its comparison with
// nil, values the trace records exactly), i and w are in critical
// sections of one lock (one of them holding it to write), and i found the value that w's section left,
// which differs from the value before that section (hb.Graph.Changed).
// Had r run before w, i would have too, so i's section would have ended
// before w's began, i would have found the value from before w's section,
// and its branch would have taken the other edge: r would not have run.
// dns's ShutdownContext reads srv.shutdown past `if !srv.started {
// return }` under srv.lock, and the section of ActivateAndServe that made
// the channel set started. The check's own read against the write of
// what it checks is another pair, which this does not hide.
func (c *checker) switchedAfter(r, w int) bool {
	g := c.g
	return c.anySwitch(r, func(i int) bool {
		for _, l := range g.Locks(i) {
			k := g.SectionOf(w, l.Addr)
			if k >= 0 && (l.Mode == hb.Write || g.Sections()[k].Lock.Mode == hb.Write) && g.Sections()[k].Begin < i {
				if _, changed := g.Changed(i, k); changed {
					return true
				}
			}
		}
		return false
	})
}

// anySwitch reports whether f holds for one of the reads that switch the
// branch leading to r (trace.Site.Switches): its goroutine's last read
// at each switching site before r, within maxSwitchBack of its events.
func (c *checker) anySwitch(r int, f func(i int) bool) bool {
	g := c.g
	s := c.siteOf(r)
	if s.Switches == "" {
		return false
	}
	evs := g.Goroutines[g.Goroutine(r)].Events
	j, _ := slices.BinarySearch(evs, r)
	seen := make(map[uint32]bool)
	for n := 0; j > 0 && n < maxSwitchBack; n++ {
		j--
		i := evs[j]
		ev := g.Events[i]
		if ev.Kind != trace.EvRead || seen[ev.Site] || !s.SwitchedBy(ev.Site) {
			continue
		}
		seen[ev.Site] = true // the site's last read before r decided
		if f(i) {
			return true
		}
	}
	return false
}

// switchedOff reports whether the dereference r cannot run after the nil
// store w, which the trace has after it: a read i of r's goroutine before
// r, with a lock held from i through r, switches the branch that leads to
// r (trace.Site.Switches), and w's critical section of that lock, which
// comes after i's, leaves another value in i's location than i found
// (hb.Graph.ChangedAfter). Had w's section run first, i would have found
// that value and taken the branch's other edge: r would not have run
// (dataloadgen's batch timer returns when fetchExecuted is set, and the
// section that stores nil to l.batch sets it: held-out rehearsal 42's T1).
func (c *checker) switchedOff(r, w int) bool {
	g := c.g
	if w < r {
		return false
	}
	return c.anySwitch(r, func(i int) bool {
		for _, l := range g.Locks(i) {
			if !slices.Contains(g.Locks(r), l) || !c.heldThrough(i, r, l) {
				continue
			}
			k := g.SectionOf(w, l.Addr)
			if k >= 0 && (l.Mode == hb.Write || g.Sections()[k].Lock.Mode == hb.Write) && g.ChangedAfter(i, k) {
				return true
			}
		}
		return false
	})
}
