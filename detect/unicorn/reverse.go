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
	// Flipped marks, for a pair whose order the trace does not know,
	// the other guess: First before Second is the opposite of the
	// trace's order. The trace puts plain accesses where their
	// goroutine's last sync event was, so a goroutine that worked or
	// slept long after its last one (a test that starts a goroutine and
	// sleeps before it reads) has its accesses too early in the trace's
	// order, and then every guess between the two goroutines is wrong.
	Flipped bool
	// Gap is how far apart the trace shows the accesses: the number of
	// sync events between the first's goroutine's next one and the
	// second's last one (0 for pairs with no known order).
	Gap uint64
}

// Reversible returns the pairs of one run whose order a schedule of the
// same synchronization could reverse, one per pair of sites (the first
// instance in the run), ranked for targeted perturbation:
//
//  1. pairs whose order the trace knows, before the ones it guesses, and
//     those before the same pairs again, Flipped (the other guess);
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
		if !r.Known && !ord.known(p.b, p.a) {
			out = append(out, Reversal{First: p.b, Second: p.a, Flipped: true})
		}
	}
	rank := func(r Reversal) int {
		switch {
		case r.Known:
			return 0
		case !r.Flipped:
			return 1
		}
		return 2
	}
	slices.SortStableFunc(out, func(x, y Reversal) int {
		if c := cmp.Compare(rank(x), rank(y)); c != 0 {
			return c
		}
		return cmp.Or(cmp.Compare(y.Gap, x.Gap),
			cmp.Compare(g.Events[x.First].Site, g.Events[y.First].Site),
			cmp.Compare(g.Events[x.Second].Site, g.Events[y.Second].Site))
	})
	return out
}
