package explain

import (
	"strings"
	"testing"

	"github.com/precog-dev/precog/pipeline/validate"
	"github.com/precog-dev/precog/shim/plan"
	"github.com/precog-dev/precog/shim/trace"
)

// TestMapSchedule maps a reproducer's plan from precog test's build (site
// ids 3, 4, 5, 7) into explain's (30, 40, 50, 70): the goroutine started
// at the go statement the schedule names is computed, the one its child
// starts at a go statement the schedule does not name is found by
// search, the sites by position.
func TestMapSchedule(t *testing.T) {
	test := trace.TestID("example.com/p.TestX", 0)
	c1, c2 := trace.ChildID(test, 5, 0), trace.ChildID(trace.ChildID(test, 5, 0), 7, 0)
	e1 := trace.ChildID(test, 50, 0)
	e2 := trace.ChildID(e1, 70, 0)
	sites := &trace.SiteTable{Sites: []trace.Site{
		{ID: 20, File: "/src/p/a.go", Line: 20, Col: 7, Kind: "write", Expr: "x"}, // another column
		{ID: 30, File: "/src/p/a.go", Line: 20, Col: 3, Kind: "write", Expr: "x"},
		{ID: 40, File: "/src/p/a.go", Line: 21, Col: 5, Kind: "read", Expr: "x"},
		{ID: 41, File: "/src/p/a.go", Line: 21, Col: 5, Kind: "write", Expr: "x"}, // another kind
		{ID: 50, File: "/src/p/a.go", Line: 10, Col: 2, Kind: "go", Expr: "go f()"},
		{ID: 70, File: "/src/p/a.go", Line: 30, Col: 2, Kind: "go", Expr: "go g()"},
	}}
	evs := []trace.Event{
		{Kind: trace.EvFork, Goroutine: test, Site: 50, Peer: e1, Seq: 1},
		{Kind: trace.EvBegin, Goroutine: e1, Peer: test, Seq: 2},
		{Kind: trace.EvFork, Goroutine: e1, Site: 70, Peer: e2, Seq: 3},
		{Kind: trace.EvBegin, Goroutine: e2, Peer: e1, Seq: 4},
	}
	s := &validate.Schedule{ID: "f1", Order: "the write before the read",
		Sites: []validate.ScheduleSite{
			{ID: 3, File: "/elsewhere/p/a.go", Line: 20, Col: 3, Kind: "write", Expr: "x"},
			{ID: 4, File: "/elsewhere/p/a.go", Line: 21, Col: 5, Kind: "read", Expr: "x"},
			{ID: 5, File: "/elsewhere/p/a.go", Line: 10, Col: 2, Kind: "go", Expr: "go f()"},
		},
		Plan: &plan.Plan{Mode: plan.Force, Edges: []plan.Edge{
			{Before: plan.Point{G: c2, Site: 3, N: 1}, After: plan.Point{G: c1, Site: 4, N: 0}}}},
	}
	o, err := mapSchedule(s, sites, evs)
	if err != nil {
		t.Fatal(err)
	}
	want := plan.Edge{Before: plan.Point{G: e2, Site: 30, N: 1}, After: plan.Point{G: e1, Site: 40, N: 0}}
	if len(o.Edges) != 1 || o.Edges[0] != want {
		t.Errorf("mapped %+v, want %+v", o.Edges, want)
	}

	// A goroutine that no run of the test in explain's build starts.
	s.Plan.Edges[0].Before.G = trace.ChildID(c1, 9, 3)
	if _, err := mapSchedule(s, sites, evs); err == nil || !strings.Contains(err.Error(), "no counterpart") {
		t.Errorf("an unknown goroutine mapped: %v", err)
	}
	s.Plan.Edges[0].Before.G = c2

	// A site that moved.
	s.Sites[0].Line = 19
	if _, err := mapSchedule(s, sites, evs); err == nil || !strings.Contains(err.Error(), "no match") {
		t.Errorf("a moved site mapped: %v", err)
	}
}
