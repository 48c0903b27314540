package predict

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/precog-dev/precog/pipeline/control"
	"github.com/precog-dev/precog/shim/plan"
	"github.com/precog-dev/precog/shim/trace"
)

// statsRun is a passing run of testdata/kernels/stats: goroutine 2 writes
// x (site 1) and y (site 4), goroutine 3 later reads x (site 2) and y
// (site 3), all plain accesses with no sync event between them.
const statsRun = `precog trace v1 test="TestSnapshot" package="example.com/stats" start=2025-01-02T15:04:05Z pid=1
1 g=1 Begin parent=none
2 g=1 Fork site=100 child=2
3 g=1 Fork site=101 child=3
4 g=2 Begin parent=1
4.1 g=2 Write site=1 addr=0x10 value=1
4.2 g=2 Write site=4 addr=0x20 value=10
5 g=3 Begin parent=1
5.1 g=3 Read site=2 addr=0x10
5.2 g=3 Read site=3 addr=0x20
`

// TestTargetedPlans checks the force plans of targeted perturbation on the
// stats run: one per pair and guess of its order, each reversing its pair,
// the second of each guess keeping the pair before it as that guess has
// it; and that a run that followed a plan gives Unicorn the plan's orders
// as event indices.
func TestTargetedPlans(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "run.txt")
	if err := os.WriteFile(text, []byte(statsRun), 0o666); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "run.trace")
	evs := writeTrace(t, text, path)
	pt := func(g uint64, site uint32) plan.Point { return plan.Point{G: g, Site: site} }
	got := targetedPlans(10, &trace.SiteTable{}, DetectOptions{})("example.com/stats", nil, path)
	want := [][]plan.Edge{
		// The trace's guesses reversed, the second keeping the first.
		{{Before: pt(3, 2), After: pt(2, 1)}},
		{{Before: pt(3, 3), After: pt(2, 4)}, {Before: pt(2, 1), After: pt(3, 2)}},
		// The other guesses (the reads came first) reversed: the
		// trace's order forced, the second keeping the first's other
		// guess.
		{{Before: pt(2, 1), After: pt(3, 2)}},
		{{Before: pt(2, 4), After: pt(3, 3)}, {Before: pt(3, 2), After: pt(2, 1)}},
	}
	if len(got) != len(want) {
		t.Fatalf("%d plans, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].Mode != plan.Force || !slices.Equal(got[i].Edges, want[i]) {
			t.Errorf("plan %d: mode %s, edges %+v; want force, %+v", i, got[i].Mode, got[i].Edges, want[i])
		}
	}
	if p := targetedPlans(2, &trace.SiteTable{}, DetectOptions{})("example.com/stats", nil, path); len(p) != 1 {
		t.Errorf("2 runs: %d plans, want 1 (runs 1 and later)", len(p))
	}

	planPath := filepath.Join(dir, "run1.plan")
	if err := control.WritePlan(planPath, got[1]); err != nil {
		t.Fatal(err)
	}
	index := func(site uint32) int {
		return slices.IndexFunc(evs, func(ev trace.Event) bool { return ev.Site == site })
	}
	if f, want := forcedOrders(planPath, evs), [][2]int{{index(3), index(4)}, {index(1), index(2)}}; !slices.Equal(f, want) {
		t.Errorf("forced orders %v, want %v", f, want)
	}
	if f := forcedOrders(filepath.Join(dir, "none.plan"), evs); f != nil {
		t.Errorf("no plan file: forced orders %v, want none", f)
	}
}
