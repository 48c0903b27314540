package shim

import (
	"strings"
	"testing"

	"github.com/precog-dev/precog/shim/plan"
)

// TestForceWithOrder replays racyAppends' recorded schedule up to a cut
// and forces, after it, the Lock that came next in the recording after
// another goroutine's: the appends before the cut are the recording's,
// the one at the cut is not, and the result says the order was followed
// to the cut ("replayed") before the edge held. A force plan that ignored
// its order (the shim before force plans could carry one) follows the
// recording only by luck and writes no "replayed" line.
func TestForceWithOrder(t *testing.T) {
	root := freshRoot()
	order, recorded := recordRacy(t, root)
	if len(order) != 30 {
		t.Fatalf("the order has %d events, want 30", len(order))
	}
	const cut = 12 // six appends
	for i := range 3 {
		root2 := freshRoot()
		ord := renamed(order, root, root2)
		a := ord[cut]
		if a.Kind != "Lock" {
			t.Fatalf("position %d is %s, want a Lock", cut, a.Kind)
		}
		var b plan.Point
		for _, p := range ord[cut+1:] {
			if p.Kind == "Lock" && p.G != a.G {
				b = p
				break
			}
		}
		if b.Site == 0 {
			t.Skipf("the recording's goroutine %d took every Lock after position %d", a.G, cut)
		}
		p := &plan.Plan{Mode: plan.Force, Order: ord, Until: cut, TimeoutMS: 1000,
			Edges: []plan.Edge{{Before: b, After: a}}}
		var res string
		got := racyAppends(root2, func() { res = loadPlan(t, p) })
		uninstallControl()
		if !intsEqual(got[:cut/2], recorded[:cut/2]) {
			t.Errorf("run %d appended %v before the cut, the recording %v", i, got[:cut/2], recorded[:cut/2])
		}
		if got[cut/2] == recorded[cut/2] {
			t.Errorf("run %d: append %d is %d as in the recording, whose goroutine was held until another's Lock", i, cut/2, got[cut/2])
		}
		recs := readResult(t, res)
		var replayed, left bool
		for _, r := range recs {
			replayed = replayed || r.Event == plan.EvReplayed && r.Pos == cut && r.Of == cut
			left = left || r.Event == plan.EvLeft
		}
		if !replayed || left {
			t.Errorf("run %d: replayed %v, left %v; want the order followed to position %d: %+v", i, replayed, left, cut, recs)
		}
		if f := final(recs); f.State != plan.Confirmed {
			t.Errorf("run %d: final %+v", i, f)
		}
	}
}

// TestForceWithOrderLeaves gives a force plan an order whose position 5 no
// goroutine reaches: the run leaves the order there ("left", pos 5) and
// goes on, where replay mode would time out, and the plan's edge is still
// forced and confirmed.
func TestForceWithOrderLeaves(t *testing.T) {
	root, root2 := freshRoot(), freshRoot()
	order, _ := recordRacy(t, root)
	order = renamed(order, root, root2)
	ghost := plan.Point{G: 999, Site: 11002, Kind: "Lock"}
	order = append(order[:5:5], append([]plan.Point{ghost}, order[5:]...)...)
	kids := children(root2)
	// The last Lock of the first child after the first Lock of the
	// second.
	edge := plan.Edge{Before: plan.Point{G: kids[1], Site: 11002, N: 0}, After: plan.Point{G: kids[0], Site: 11002, N: 4}}
	var res string
	got := racyAppends(root2, func() {
		res = loadPlan(t, &plan.Plan{Mode: plan.Force, Order: order, TimeoutMS: 300, Edges: []plan.Edge{edge}})
	})
	uninstallControl()
	if len(got) != 15 {
		t.Errorf("appended %v", got)
	}
	recs := readResult(t, res)
	var left *plan.Record
	for i, r := range recs {
		if r.Event == plan.EvLeft {
			left = &recs[i]
		}
		if r.Event == plan.EvTimeout {
			t.Errorf("a timeout line: %+v", r)
		}
	}
	if left == nil || left.Pos != 5 || left.Of != len(order) || !strings.Contains(left.Reason, "position 5") {
		t.Errorf("left %+v, want position 5 of %d", left, len(order))
	}
	if f := final(recs); f.State != plan.Confirmed {
		t.Errorf("final %+v", f)
	}
	if passedSeq(recs, edge.Before) == 0 || passedSeq(recs, edge.After) < passedSeq(recs, edge.Before) {
		t.Errorf("the edge did not hold: %+v", recs)
	}
}

// TestForceWithOrderHold: a goroutine of the recorded run with no position
// in the order (plan.Plan.Hold) waits until the order is let go, so that
// all it does comes after what the order has, as in the recording; not
// held, it would append among the others.
func TestForceWithOrderHold(t *testing.T) {
	root := freshRoot()
	order, recorded := recordRacy(t, root)
	root2 := freshRoot()
	ord := renamed(order, root, root2)
	kids := children(root2)
	var rest []plan.Point
	for _, p := range ord {
		if p.G != kids[2] {
			rest = append(rest, p)
		}
	}
	var want []int
	for _, v := range recorded {
		if v != 2 {
			want = append(want, v)
		}
	}
	var res string
	got := racyAppends(root2, func() {
		res = loadPlan(t, &plan.Plan{Mode: plan.Force, Order: rest, Hold: []uint64{kids[2]}, TimeoutMS: 1000})
	})
	uninstallControl()
	if len(got) != 15 || !intsEqual(got[:10], want) || !intsEqual(got[10:], []int{2, 2, 2, 2, 2}) {
		t.Errorf("appended %v, want %v then five 2s", got, want)
	}
	if f := final(readResult(t, res)); f.State != plan.Confirmed {
		t.Errorf("final %+v", f)
	}
}
