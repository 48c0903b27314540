package hb

import (
	"sort"

	"github.com/precog-dev/precog/shim/trace"
)

// SectionOf returns the index in Sections of the innermost critical
// section of event i's goroutine that holds the lock at addr and contains
// i; -1 if none.
func (g *Graph) SectionOf(i int, addr uint64) int {
	gi := g.Goroutine(i)
	k := sort.Search(len(g.sections), func(k int) bool { return g.sections[k].Begin > i })
	for k--; k >= 0; k-- {
		if s := g.sections[k]; s.G == gi && s.Lock.Addr == addr && (s.End < 0 || s.End >= i) {
			return k
		}
	}
	return -1
}

// Changed reports whether read i found the value that critical section k
// (of another goroutine, begun before i) left in its location, and k
// changed it: the last write of the location before i is k's, with a
// value other than the location's last write before k began (zero when
// the trace has none: a composite literal's value is not recorded). last
// is that last write before i when it came after k began, -1 otherwise.
// The detectors ask it of a check that decided an access (trace.Site
// Guards and Switches): had i's section run before k, the check would
// have found the value from before k.
func (g *Graph) Changed(i, k int) (last int, changed bool) {
	ws := g.writesTo(g.Loc(i))
	s := g.sections[k]
	// ws[n-1] is the last write before i, ws[b-1] the last before k began.
	n := sort.Search(len(ws), func(x int) bool { return int(ws[x]) >= i })
	b := sort.Search(len(ws), func(x int) bool { return int(ws[x]) >= s.Begin })
	last = -1
	if n > b {
		last = int(ws[n-1])
	}
	if last < 0 || g.Goroutine(last) != s.G || s.End >= 0 && last > s.End {
		return last, false
	}
	var before uint64
	if b > 0 {
		before = g.Events[ws[b-1]].Value
	}
	return last, before != g.Events[last].Value
}

// ChangedAfter reports whether critical section k, of another goroutine
// and begun after read i, leaves in i's location a value other than the
// one i found: its last write there (the section's own) differs from the
// last write of the location before i (zero when the trace has none).
// The detectors ask it of a check that decided an access (trace.Site
// Switches): had k run before i's section, i would have found k's value.
func (g *Graph) ChangedAfter(i, k int) bool {
	s := g.sections[k]
	if s.Begin < i || s.G == g.Goroutine(i) {
		return false
	}
	ws := g.writesTo(g.Loc(i))
	var found uint64
	if n := sort.Search(len(ws), func(x int) bool { return int(ws[x]) >= i }); n > 0 {
		found = g.Events[ws[n-1]].Value
	}
	last := -1
	for x := sort.Search(len(ws), func(x int) bool { return int(ws[x]) >= s.Begin }); x < len(ws) && (s.End < 0 || int(ws[x]) <= s.End); x++ {
		if g.Goroutine(int(ws[x])) == s.G {
			last = int(ws[x])
		}
	}
	return last >= 0 && g.Events[last].Value != found
}

// writesTo returns the writes of location l, in trace order. The index of
// every location's writes is built on the first call, once: Changed walked
// back through the trace instead, as far as its start for a location
// written once, for each read the detectors asked about, which on a trace
// of millions of events made each question cost as much as the trace.
func (g *Graph) writesTo(l Loc) []uint32 {
	g.writesOnce.Do(func() {
		g.writes = make(map[Loc][]uint32)
		for x := range g.Events {
			if g.Events[x].Kind == trace.EvWrite {
				lx := g.Loc(x)
				g.writes[lx] = append(g.writes[lx], uint32(x))
			}
		}
	})
	return g.writes[l]
}
