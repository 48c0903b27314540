package shard

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	for _, ok := range []string{"1/1", "1/2", "2/2", "7/10"} {
		if s, err := Parse(ok); err != nil || s.String() != ok {
			t.Errorf("Parse(%q) = %v, %v", ok, s, err)
		}
	}
	for _, bad := range []string{"", "1", "0/2", "3/2", "1/0", "a/b", "1/2/3", "-1/2", "1/1001", " 1/2"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) succeeded", bad)
		}
	}
}

// packages is a run's listing: package -> its top-level tests.
var packages = map[string][]string{
	"ex/a": {"TestA1"},
	"ex/b": {"TestB1", "TestB2", "TestB3"},
	"ex/c": {"TestC1"},
	"ex/d": {"TestD1", "TestD2"},
	"ex/e": {"TestE1"},
	"ex/f": {"TestF1"},
}

// split returns each shard's tests ("pkg.Test"), sorted.
func split(n int, times []Time, group bool) [][]string {
	out := make([][]string, n)
	pkgs := make([]string, 0, len(packages))
	for p := range packages {
		pkgs = append(pkgs, p)
	}
	slices.Sort(pkgs)
	for i := range n {
		sp := New(Shard{i + 1, n}, times, group)
		for _, p := range pkgs {
			for _, t := range sp.Only(p, packages[p]) {
				out[i] = append(out[i], p+"."+t)
			}
		}
	}
	return out
}

// TestPartition checks that the shards of a split together run every
// test exactly once, with or without times and grouping, and that a
// package's tests stay together when grouped.
func TestPartition(t *testing.T) {
	var all []string
	for p, ts := range packages {
		for _, tt := range ts {
			all = append(all, p+"."+tt)
		}
	}
	slices.Sort(all)
	times := []Time{{"ex/a", "TestA1", 9 * time.Second}, {"ex/b", "TestB1", time.Second}, {"ex/b", "TestB2", time.Second}, {"ex/c", "TestC1", 3 * time.Second}, {"ex/e", "TestE1", 5 * time.Second}}
	for _, n := range []int{1, 2, 3, 7} {
		for _, tm := range [][]Time{nil, times} {
			for _, group := range []bool{false, true} {
				shards := split(n, tm, group)
				var got []string
				for _, s := range shards {
					got = append(got, s...)
				}
				slices.Sort(got)
				if !slices.Equal(got, all) {
					t.Errorf("n=%d times=%v group=%v: shards ran %v, want each of %v once", n, tm != nil, group, got, all)
				}
				if group {
					for i, s := range shards {
						b := 0
						for _, x := range s {
							if x[:4] == "ex/b" {
								b++
							}
						}
						if b != 0 && b != 3 {
							t.Errorf("n=%d: shard %d has %d of ex/b's 3 tests, want all or none", n, i+1, b)
						}
					}
				}
			}
		}
	}
}

// TestBalance checks the LPT assignment: with times, the longest test
// gets a shard of its own and the others share the other.
func TestBalance(t *testing.T) {
	var times []Time
	for p, ts := range packages {
		for _, tt := range ts {
			times = append(times, Time{p, tt, time.Second})
		}
	}
	for i := range times {
		if times[i].Test == "TestA1" {
			times[i].Cost = 7 * time.Second // the other 8 tests: 8 s
		}
	}
	shards := split(2, times, false)
	load := func(s []string) (n int) {
		for _, x := range s {
			if x == "ex/a.TestA1" {
				n += 7
			} else {
				n++
			}
		}
		return n
	}
	if a, b := load(shards[0]), load(shards[1]); a+b != 15 || max(a, b) > 8 {
		t.Errorf("loads %d and %d (%v), want 7 and 8", a, b, shards)
	}
	// Deterministic: the same split every time.
	for range 3 {
		if again := split(2, times, false); fmt.Sprint(again) != fmt.Sprint(shards) {
			t.Errorf("split changed: %v, then %v", shards, again)
		}
	}
}
