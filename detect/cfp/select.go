package cfp

import "slices"

// A Test is the CFP of one test of a suite.
type Test struct {
	Name  string
	Pairs []Pair // sorted, without duplicates
}

// A Step is one test chosen by Select.
type Step struct {
	Test string
	New  []Pair // the pairs it covers that the tests chosen before it do not, sorted
	// Funcs are the keys of the functions of New, sorted: the only ones
	// the guided detection run of the test needs to watch.
	Funcs []string
}

// Select chooses tests greedily (§4.3): first the test that covers the
// most pairs, then, each time, the test that covers the most pairs no
// chosen test covers, until every pair of the suite is covered. Ties go
// to the test that comes first in tests. A test that adds nothing is not
// chosen; neither is one without pairs.
func Select(tests []Test) []Step {
	covered := make(map[Pair]bool)
	chosen := make([]bool, len(tests))
	var steps []Step
	for {
		best, bestNew := -1, 0
		for i, t := range tests {
			if chosen[i] {
				continue
			}
			n := 0
			for _, p := range t.Pairs {
				if !covered[p] {
					n++
				}
			}
			if n > bestNew {
				best, bestNew = i, n
			}
		}
		if best < 0 {
			return steps
		}
		chosen[best] = true
		st := Step{Test: tests[best].Name}
		for _, p := range tests[best].Pairs {
			if covered[p] {
				continue
			}
			covered[p] = true
			st.New = append(st.New, p)
			st.Funcs = append(st.Funcs, p.A, p.B)
		}
		slices.Sort(st.Funcs)
		st.Funcs = slices.Compact(st.Funcs)
		steps = append(steps, st)
	}
}

// Union returns the pairs of all the tests (the aggregated CFP), sorted.
func Union(tests []Test) []Pair {
	var all []Pair
	for _, t := range tests {
		all = append(all, t.Pairs...)
	}
	slices.SortFunc(all, comparePairs)
	return slices.Compact(all)
}

// Fluctuation measures how much the pairs of repeated runs of one test
// differ: the pairs not found in every run over the pairs found in any,
// 0 when every run found the same pairs (and when none found any).
func Fluctuation(runs [][]Pair) float64 {
	count := make(map[Pair]int)
	for _, r := range runs {
		seen := make(map[Pair]bool)
		for _, p := range r {
			if !seen[p] {
				seen[p] = true
				count[p]++
			}
		}
	}
	if len(count) == 0 {
		return 0
	}
	unstable := 0
	for _, n := range count {
		if n < len(runs) {
			unstable++
		}
	}
	return float64(unstable) / float64(len(count))
}
