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
	l := g.Loc(i)
	s := g.sections[k]
	last = -1
	for x := i - 1; x >= s.Begin; x-- {
		if g.Events[x].Kind == trace.EvWrite && g.Loc(x) == l {
			last = x
			break
		}
	}
	if last < 0 || g.Goroutine(last) != s.G || s.End >= 0 && last > s.End {
		return last, false
	}
	var before uint64
	for x := s.Begin - 1; x >= 0; x-- {
		if g.Events[x].Kind == trace.EvWrite && g.Loc(x) == l {
			before = g.Events[x].Value
			break
		}
	}
	return last, before != g.Events[last].Value
}
