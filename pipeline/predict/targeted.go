package predict

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/detect/hb"
	"github.com/precog-dev/precog/detect/unicorn"
	"github.com/precog-dev/precog/pipeline/control"
	"github.com/precog-dev/precog/pipeline/record"
	"github.com/precog-dev/precog/pipeline/validate"
	"github.com/precog-dev/precog/shim/plan"
	"github.com/precog-dev/precog/shim/trace"
)

// The perturbation of the runs after the first (Options.Perturb).
const (
	// Targeted forces, one run each, the reversal of a pair of
	// conflicting accesses that the first run showed in one order and no
	// order synchronization forced (unicorn.Reversible), the best ranked
	// first; the runs left over are Random's.
	Targeted = "targeted"
	// Random delays or yields goroutines at instrumented points, seeded
	// (the shim's perturb mode; Unicorn's "random artificial delays").
	Random = "random"
	// Off runs the test again without a plan.
	Off = "off"
)

// PerturbModes are the values of Options.Perturb, the default first.
var PerturbModes = []string{Targeted, Random, Off}

// Bounds of a targeted run's force plan: each wait (a reversal of accesses
// milliseconds apart waits that long, and a goroutine that never comes
// costs the whole wait), and the waits of the run together.
const (
	targetedWaitMS   = 500
	targetedBudgetMS = 2000
)

// targetedPlans returns the record.Options.Forced of targeted
// perturbation: for a test, up to runs-1 force plans,
// each reversing one pair of unicorn.Reversible's ranking of run 0. A pair
// on a goroutine whose logical id the next run need not give it
// (control.Stable) is left out; a trace that cannot be read, or that is
// over the limits of detection (DetectOptions.MaxTraceBytes, in
// bytes or events, MaxGoroutines), gives no plans: its runs are random's.
func targetedPlans(runs int, sites *trace.SiteTable, opts DetectOptions) func(pkg string, t *record.Test, path string) []*plan.Plan {
	return func(_ string, _ *record.Test, path string) []*plan.Plan {
		if max := opts.maxTraceBytes(); max > 0 {
			if fi, err := os.Stat(path); err != nil || fi.Size() > max {
				return nil
			}
		}
		evs, err := readTrace(path, opts.maxTraceEvents())
		if len(evs) == 0 || err != nil && !errors.Is(err, trace.ErrBroken) {
			return nil
		}
		if max := opts.maxGoroutines(); max > 0 && goroutines(evs) > max {
			return nil
		}
		g := hb.Analyze(evs, hb.Options{Sites: sites})
		pts := control.Points(evs)
		stable := control.Stable(evs)
		usable := func(r unicorn.Reversal) bool {
			first, second := pts[r.First], pts[r.Second]
			return first.Site != 0 && second.Site != 0 && stable(first.G) && stable(second.G)
		}
		// order returns the edges that make access second come before
		// access first.
		order := func(first, second int) []plan.Edge {
			w := finding.Witness{Events: []finding.Event{witnessEvent(evs, pts, first), witnessEvent(evs, pts, second)}}
			control.NameLocks(evs, pts, &w)
			return validate.Reversal(w.Events[0], w.Events[1]).Edges
		}
		cands := unicorn.Reversible(g, opts.Unicorn)
		var plans []*plan.Plan
		for _, r := range cands {
			if len(plans) == runs-1 {
				break
			}
			if !usable(r) {
				continue
			}
			p := &plan.Plan{Mode: plan.Force, TimeoutMS: targetedWaitMS, BudgetMS: targetedBudgetMS, Edges: order(r.First, r.Second)}
			for _, k := range kept(g, cands, r) {
				if usable(k) {
					p.Edges = append(p.Edges, order(k.Second, k.First)...)
				}
			}
			plans = append(plans, p)
		}
		return plans
	}
}

// kept returns the pairs of cands to keep in the order run 0 showed while
// r is reversed: those of r's two goroutines whose order the trace only
// guessed (plain accesses), guessed the same way as r (the trace's order,
// or for a Flipped r the other one), and whose accesses both come before
// r's in their goroutines. Forcing them as they were costs nothing when the
// guess was right, and makes the forced run know their order (plain
// accesses have none of their own in the trace): a multi-variable pattern
// such as W1(x) R2(x) R2(y) W1(y) needs the order of its first pair as
// well as of the reversed one. Pairs after r's accesses are left alone: a
// pair from a's goroutine after a to b's goroutine before b would wait for
// a, which waits for b, a cycle.
func kept(g *hb.Graph, cands []unicorn.Reversal, r unicorn.Reversal) []unicorn.Reversal {
	ga, gb := g.Goroutine(r.First), g.Goroutine(r.Second)
	before := func(i, j int) bool { return g.Goroutine(i) == g.Goroutine(j) && i < j }
	var out []unicorn.Reversal
	for _, k := range cands {
		if k == r || k.Known || k.Flipped != r.Flipped {
			continue
		}
		switch {
		case g.Goroutine(k.First) == ga && g.Goroutine(k.Second) == gb:
			if before(k.First, r.First) && before(k.Second, r.Second) {
				out = append(out, k)
			}
		case g.Goroutine(k.First) == gb && g.Goroutine(k.Second) == ga:
			if before(k.First, r.Second) && before(k.Second, r.First) {
				out = append(out, k)
			}
		}
	}
	return out
}

// witnessEvent names event i of evs as a witness event.
func witnessEvent(evs []trace.Event, pts []plan.Point, i int) finding.Event {
	return finding.Event{Role: fmt.Sprint(i), G: pts[i].G, Site: pts[i].Site, N: pts[i].N, Kind: evs[i].Kind.String(), Index: i}
}

// forcedOrders returns the edges of the force plan at path that a run
// followed (its trace evs), as Unicorn's Options.Forced: the event indices
// of each edge's two steps. A plan that cannot be read, or an edge whose
// steps the trace does not have, adds nothing.
func forcedOrders(path string, evs []trace.Event) [][2]int {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var p plan.Plan
	if json.Unmarshal(data, &p) != nil {
		return nil
	}
	index := make(map[plan.Point]int)
	for i, pt := range control.Points(evs) {
		if pt.Site != 0 {
			index[plan.Point{G: pt.G, Site: pt.Site, N: pt.N}] = i
		}
	}
	var out [][2]int
	for _, e := range p.Edges {
		x, okx := index[plan.Point{G: e.Before.G, Site: e.Before.Site, N: e.Before.N}]
		y, oky := index[plan.Point{G: e.After.G, Site: e.After.Site, N: e.After.N}]
		if okx && oky {
			out = append(out, [2]int{x, y})
		}
	}
	return out
}
