package unicorn

import (
	"cmp"
	"slices"

	"github.com/precog-dev/precog/detect/hb"
)

// A Reversal is a pair of conflicting accesses of two goroutines that a
// passing run showed in one order, First before Second, while no order
// synchronization forced that order: Step 1's pairs, the candidates of
// targeted perturbation. Forcing Second before First makes the other half
// of the pair's patterns happen.
type Reversal struct {
	// First and Second are the accesses' event indices in the run's
	// trace.
	First, Second int
	// Known reports whether the trace knows the order (sync events of
	// the two goroutines between the accesses, such as the Unlock and
	// Lock of a mutex); if not, it is the trace's guess, and forcing the
	// other order may force the order the run already had.
	Known bool
	// Gap is how far apart the trace shows the accesses: the number of
	// sync events between the first's goroutine's next one and the
	// second's last one (0 for pairs with no known order).
	Gap uint64
}

// Reversible returns the pairs of one run whose order a schedule of the
// same synchronization could reverse, one per pair of sites (the first
// instance in the run), ranked for targeted perturbation:
//
//  1. pairs whose order the trace knows, before the ones it guesses;
//  2. then the pairs farthest apart (the larger Gap): random delays of a
//     millisecond reverse neighbours often and far pairs almost never, so
//     a forced reversal of a far pair explores what random runs do not;
//  3. then by sites, so that the ranking is deterministic.
//
// The pairs are Step 1's (Options.AccessWindow, order synchronization
// excluded as in Patterns), with the order of plain accesses taken from
// the trace where the trace does not know it.
func Reversible(g *hb.Graph, opts Options) []Reversal {
	opts.TraceOrder = true
	var n int
	pairs := collectPairs(g, opts, &n)
	ord := newOrder(g)
	type key struct {
		a, b   uint32
		wa, wb bool
	}
	seen := make(map[key]bool)
	var out []Reversal
	for _, p := range pairs {
		k := key{g.Events[p.a].Site, g.Events[p.b].Site, p.wa, p.wb}
		if seen[k] {
			continue
		}
		seen[k] = true
		r := Reversal{First: p.a, Second: p.b, Known: ord.known(p.a, p.b)}
		if r.Known {
			r.Gap = g.Events[p.b].Seq - ord.next[p.a]
		}
		out = append(out, r)
	}
	slices.SortStableFunc(out, func(x, y Reversal) int {
		if x.Known != y.Known {
			if x.Known {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(y.Gap, x.Gap),
			cmp.Compare(g.Events[x.First].Site, g.Events[y.First].Site),
			cmp.Compare(g.Events[x.Second].Site, g.Events[y.Second].Site))
	})
	return out
}
