package shim

import (
	"testing"

	"github.com/precog-dev/precog/shim/plan"
)

// TestSuppress suppresses one write instance of a goroutine and checks
// what the paper's suppression does: the named store does not happen, a
// write computed from the suppressed location is suppressed too (and so is
// a new variable defined from it, left at its zero value), an untainted
// write to the suppressed location makes it normal again, and each
// suppressed write has its line in the result file.
func TestSuppress(t *testing.T) {
	const base = 20000
	var x, y, z, w int
	var px *int
	var d int
	start := make(chan struct{})
	g, done := spawn(base+1, start, func() {
		W(base+2, &x, 1)                          // instance 0: happens
		W(base+2, &x, 2)                          // instance 1: suppressed
		W(base+3, &y, *R(base+4, &x)+10)          // reads suppressed x: suppressed
		d = *R(base+5, &y) * 2                    // reads y (suppressed): taints
		Def(base+6, &d)                           // so the definition is undone
		W(base+7, &x, 5)                          // untainted: x is normal again
		W(base+8, &z, *R(base+9, &x))             // happens
		W(base+10, &w, 7)                         // happens
		var l Local                               // the fast path's calls suppress alike
		WN(&l, base+11, &x, 9)                    // untainted: happens
		WP(&l, base+12, &px, &x)                  // happens
		WL(&l, base+13, &y, *RL(&l, base+14, &y)) // y is still suppressed: suppressed
	})
	res := loadPlan(t, &plan.Plan{Mode: plan.Force, Suppress: []plan.Point{{G: g, Site: base + 2, N: 1}}})
	close(start)
	<-done
	uninstallControl()
	if x != 9 || y != 0 || d != 0 || z != 5 || w != 7 || px != &x {
		t.Errorf("x, y, d, z, w = %d, %d, %d, %d, %d, px %p; want 9, 0, 0, 5, 7, &x", x, y, d, z, w, px)
	}
	var got []plan.Point
	var reasons []string
	for _, r := range readResult(t, res) {
		if r.Event == plan.EvSuppressed {
			got = append(got, *r.Point)
			reasons = append(reasons, r.Reason)
		}
	}
	want := []plan.Point{{G: g, Site: base + 2, N: 1, Kind: "W"}, {G: g, Site: base + 3, Kind: "W"}, {G: g, Site: base + 6, Kind: "W"}, {G: g, Site: base + 13, Kind: "W"}}
	if len(got) != len(want) {
		t.Fatalf("suppressed %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("suppressed[%d] = %v, want %v", i, got[i], want[i])
		}
	}
	if reasons[0] != "" || reasons[1] != "dependence" || reasons[2] != "dependence" || reasons[3] != "dependence" {
		t.Errorf("reasons %q, want the named one plain, the others dependence", reasons)
	}
	if suppressing.Load() {
		t.Error("suppression still on after the plan was unloaded")
	}
}
