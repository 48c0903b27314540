package predict

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/precog-dev/precog/detect/finding"
)

// TestPlanDeps: the second pass records the tests of the predictions
// with a goroutine that a dependency started (singleflight's DoChan),
// or that the standard library started when a dependency called into it
// (net/http's, reached from otelhttp), with those dependencies; not
// those whose goroutine the standard library started from the user's
// code, or from a dependency -instrument-deps names already, nor a
// failure, a confirmed finding or a -vet candidate.
func TestPlanDeps(t *testing.T) {
	spawn := func(creators ...string) []finding.Site {
		return []finding.Site{{}, finding.UnseenSpawn(creators)}
	}
	fs := []finding.Finding{
		{ID: "sf", Kind: "race", Tests: []string{"example.com/m/node.TestPing", "example.com/m/node.TestLoop"}, Spawns: spawn("golang.org/x/sync/singleflight.(*Group).DoChan")},
		{ID: "http", Kind: "race", Tests: []string{"example.com/m/api.TestServe"}, Spawns: spawn("net/http.(*Server).Serve", "go.opentelemetry.io/contrib/otelhttp.Serve")},
		{ID: "own", Kind: "race", Tests: []string{"example.com/m/api.TestOwn"}, Spawns: spawn("net/http.(*Server).Serve", "example.com/m/api.Start")},
		{ID: "named", Kind: "race", Tests: []string{"example.com/m/api.TestNamed"}, Spawns: spawn("github.com/named/dep.Go")},
		{ID: "crash", Kind: finding.Crash, Tests: []string{"example.com/m/api.TestCrash"}, Spawns: spawn("golang.org/x/sync/singleflight.(*Group).DoChan")},
		{ID: "confirmed", Kind: "con-null", Tests: []string{"example.com/m/api.TestConfirmed"}, Validation: &finding.Validation{}, Spawns: spawn("golang.org/x/sync/singleflight.(*Group).DoChan")},
		{ID: "vet", Kind: "con-null", Analyzer: "connull", Tests: []string{"example.com/m/api.TestVet"}, Spawns: spawn("golang.org/x/sync/singleflight.(*Group).DoChan")},
	}
	ps := planDeps(fs, []string{"example.com/m/node", "example.com/m/api"}, "github.com/named/...")
	type plan struct {
		pattern string
		tests   map[string][]string
	}
	var got []plan
	for _, p := range ps {
		got = append(got, plan{p.pattern(), p.tests})
	}
	// One plan per set of dependencies, the one with fewer tests first.
	want := []plan{
		{"go.opentelemetry.io/contrib/otelhttp/...", map[string][]string{"example.com/m/api": {"TestServe"}}},
		{"golang.org/x/sync/singleflight/...", map[string][]string{"example.com/m/node": {"TestLoop", "TestPing"}}},
	}
	if !slices.EqualFunc(got, want, func(a, b plan) bool { return a.pattern == b.pattern && maps.EqualFunc(a.tests, b.tests, slices.Equal) }) {
		t.Errorf("plans %v, want %v", got, want)
	}
	// A package whose findings need two dependencies has one plan for
	// both, after the plans of one.
	both := append(slices.Clone(fs), finding.Finding{ID: "both", Kind: "race", Tests: []string{"example.com/m/node.TestBoth"}, Spawns: spawn("go.opentelemetry.io/otel/sdk/trace.(*batchSpanProcessor).processQueue")})
	ps = planDeps(both, []string{"example.com/m/node", "example.com/m/api"}, "github.com/named/...")
	if len(ps) != 2 || ps[1].pattern() != "go.opentelemetry.io/otel/sdk/trace/...,golang.org/x/sync/singleflight/..." || !slices.Equal(ps[1].tests["example.com/m/node"], []string{"TestBoth", "TestLoop", "TestPing"}) {
		for _, p := range ps {
			t.Logf("plan %s: %v", p.pattern(), p.tests)
		}
		t.Error("want the api plan, then one plan of node with both dependencies")
	}
	if planDeps(fs[2:4], []string{"example.com/m/api"}, "github.com/named/...") != nil {
		t.Error("a plan for goroutines of the user's code and of a named dependency")
	}
}

// TestReplace: the first pass's predictions of the tests recorded again
// go, one that another test exposed too stays with that test and its
// witnesses; the second pass's predictions come in (one the first pass
// has from another test as that finding's test), its failures do not,
// and the reports add up. The finding gone from the output is named; one
// that stays for its other test is not.
func TestReplace(t *testing.T) {
	p := &depsPlan{tests: map[string][]string{"m/p": {"TestA"}}}
	w := func(test string) finding.Witness { return finding.Witness{Test: test} }
	r := &Result{
		Findings: []finding.Finding{
			{ID: "gone", Kind: "race", Tests: []string{"m/p.TestA"}, Reports: 1, Witnesses: []finding.Witness{w("m/p.TestA")}},
			{ID: "shared", Kind: "race", Tests: []string{"m/p.TestA", "m/p.TestB"}, Reports: 2, Witnesses: []finding.Witness{w("m/p.TestA"), w("m/p.TestB")}},
			{ID: "other", Kind: "race", Tests: []string{"m/p.TestB"}, Reports: 1},
			{ID: "fail", Kind: finding.TestFailed, Tests: []string{"m/p.TestA"}, Reports: 1},
		},
		Stats: Stats{Reports: 5},
	}
	pass := []finding.Finding{
		{ID: "other", Kind: "race", Tests: []string{"m/p.TestA"}, Reports: 1, Witnesses: []finding.Witness{w("m/p.TestA")}},
		{ID: "new", Kind: "race", Tests: []string{"m/p.TestA"}, Reports: 1},
		{ID: "fail2", Kind: finding.Crash, Tests: []string{"m/p.TestA"}, Reports: 1},
	}
	before, after, fresh, gone := r.replace(p, pass)
	if before != 2 || after != 2 || !slices.Equal(gone, []string{"gone"}) {
		t.Errorf("%d findings -> %d, %v gone, want 2 -> 2 and [gone]", before, after, gone)
	}
	for ids, want := range map[string]string{"a b c d e": " (gone: a, b, c and 2 more)", "a b c": " (gone: a, b and c)", "a": " (gone: a)", "": ""} {
		if got := goneList(strings.Fields(ids)); got != want {
			t.Errorf("goneList(%s) = %q, want %q", ids, got, want)
		}
	}
	var ids []string
	for _, f := range r.Findings {
		ids = append(ids, f.ID)
	}
	if !slices.Equal(ids, []string{"shared", "other", "fail"}) || len(fresh) != 1 || fresh[0].ID != "new" {
		t.Fatalf("kept %v and fresh %v, want [shared other fail] and [new]", ids, fresh)
	}
	shared, other := r.Findings[0], r.Findings[1]
	if !slices.Equal(shared.Tests, []string{"m/p.TestB"}) || shared.Reports != 1 || len(shared.Witnesses) != 1 || shared.Witnesses[0].Test != "m/p.TestB" {
		t.Errorf("shared: %+v", shared)
	}
	if !slices.Equal(other.Tests, []string{"m/p.TestA", "m/p.TestB"}) || other.Reports != 2 || len(other.Witnesses) != 0 {
		t.Errorf("other: %+v", other)
	}
	// 5 - 1 (gone) - 1 (shared's TestA) + 1 (other's TestA) + 1 (new)
	if r.Stats.Reports != 5 {
		t.Errorf("reports %d, want 5", r.Stats.Reports)
	}
}

// TestMatchDeps: -instrument-deps's elements, with and without /....
func TestMatchDeps(t *testing.T) {
	for _, c := range []struct {
		pattern, pkg string
		want         bool
	}{
		{"a.com/x/...", "a.com/x", true},
		{"a.com/x/...", "a.com/x/y", true},
		{"a.com/x/...", "a.com/xy", false},
		{"a.com/x", "a.com/x/y", false},
		{" b.com/z , a.com/x", "a.com/x", true},
		{",", "a.com/x", false},
		{"", "", false},
	} {
		if got := MatchDeps(c.pattern, c.pkg); got != c.want {
			t.Errorf("MatchDeps(%q, %q) = %v, want %v", c.pattern, c.pkg, got, c.want)
		}
	}
}

// TestDepsPattern: one pattern per dependency, sorted, but none for a
// package below another of the set, which its parent's pattern matches;
// a sibling whose path only begins like another's keeps its own.
func TestDepsPattern(t *testing.T) {
	set := map[string]bool{"example.com/dep": true, "example.com/dep/spawn": true, "example.com/dep-x": true, "example.com/dep/spawn/deep": true, "example.org/other": true}
	want := "example.com/dep/...,example.com/dep-x/...,example.org/other/..."
	if got := DepsPattern(set); got != want {
		t.Errorf("DepsPattern = %s, want %s", got, want)
	}
}
