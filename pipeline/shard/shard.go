// Package shard splits the top-level tests of a run among the n machines
// of a CI job (precog test -shard i/n), so that the CI system's matrix
// does the distribution and precog merge joins the results; precog does
// no networking of its own.
//
// The split is deterministic: every shard computes the same assignment
// from the same input (the tests go test lists, and the same test times),
// so that the shards together run every test exactly once. A unit of the
// split is a top-level test, or, with CFP guidance, the tests of a package
// that has more than one: CFP selects among a package's tests by the pairs
// they cover together, so splitting them would change what is detected,
// and the shards' findings would no longer be those of one run.
//
// With test times from an earlier run (the tests.json of a results
// directory), the units it knows are assigned longest first to the least
// loaded shard (LPT, within 4/3 of the best balance); units it does not
// know, such as tests added since, and every unit without times, go to
// the shard a hash of their name picks.
package shard

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A Shard is shard I (1 to N) of N.
type Shard struct{ I, N int }

// MaxShards bounds N.
const MaxShards = 1000

// Parse parses "i/n".
func Parse(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("want i/n, such as 1/2, got %q", s)
	}
	if n < 1 || n > MaxShards || i < 1 || i > n {
		return Shard{}, fmt.Errorf("want i/n with 1 <= i <= n <= %d, got %q", MaxShards, s)
	}
	return Shard{i, n}, nil
}

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.I, s.N) }

// A Time is what one test cost in an earlier run.
type Time struct {
	Package, Test string
	Cost          time.Duration
}

// A Splitter chooses a shard's tests.
type Splitter struct {
	s     Shard
	group bool
	// of is the shard (0-based) of each unit the times know: a package's
	// import path for a group, "importpath.TestName" for a test.
	of map[string]int
}

// New returns the splitter of shard s, balanced by the times given (none
// for a split by hash). group keeps the tests of a package with more than
// one test together (CFP guidance).
func New(s Shard, times []Time, group bool) *Splitter {
	sp := &Splitter{s: s, group: group, of: make(map[string]int)}
	count := make(map[string]int)
	for _, t := range times {
		count[t.Package]++
	}
	type unit struct {
		key  string
		cost time.Duration
	}
	cost := make(map[string]time.Duration)
	for _, t := range times {
		key := t.Package + "." + t.Test
		if group && count[t.Package] > 1 {
			key = t.Package
		}
		cost[key] += t.Cost
	}
	var units []unit
	for k, c := range cost {
		units = append(units, unit{k, c})
	}
	slices.SortFunc(units, func(a, b unit) int { return cmp.Or(cmp.Compare(b.cost, a.cost), strings.Compare(a.key, b.key)) })
	load := make([]time.Duration, s.N)
	for _, u := range units {
		least := 0
		for i := range load {
			if load[i] < load[least] {
				least = i
			}
		}
		load[least] += u.cost
		sp.of[u.key] = least
	}
	return sp
}

// Only returns the tests of package pkg that belong to the shard, in
// their order: the record.Options.Only of a shard.
func (sp *Splitter) Only(pkg string, tests []string) []string {
	if sp.group && len(tests) > 1 {
		if sp.shardOf(pkg) == sp.s.I-1 {
			return tests
		}
		return nil
	}
	var keep []string
	for _, t := range tests {
		if sp.shardOf(pkg+"."+t) == sp.s.I-1 {
			keep = append(keep, t)
		}
	}
	return keep
}

// shardOf returns the shard of a unit: from the times, or by hash.
func (sp *Splitter) shardOf(key string) int {
	if i, ok := sp.of[key]; ok {
		return i
	}
	h := fnv.New64a()
	h.Write([]byte(key))
	return int(h.Sum64() % uint64(sp.s.N))
}
