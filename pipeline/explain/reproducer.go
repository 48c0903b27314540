package explain

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/precog-dev/precog/pipeline/validate"
	"github.com/precog-dev/precog/shim/plan"
	"github.com/precog-dev/precog/shim/trace"
)

// A reproducer's schedule (precog test's confirmed finding) names points
// of precog test's build: its site ids number the sites of that build, and
// the logical ids of its goroutines are hashes of those site ids
// (trace.ChildID). explain's full-tracing build numbers its sites
// differently, so the schedule is mapped before it is run:
//
//   - sites by position and operation: the site of explain's build with
//     the same file, line, column, kind and expression (the schedule
//     carries them, validate.ScheduleSite). None or more than one is a
//     failure of the mapping;
//   - goroutines by their spawn chain in a run of the same test in
//     explain's build: a test goroutine's and the main goroutine's ids do
//     not depend on site ids; a goroutine started by a go statement gets
//     trace.ChildID of its parent's id in precog test's build, the go
//     statement's site id there and the instance, which is computed when
//     the go statement's site is one the schedule names (the finding's
//     spawns), and otherwise searched for among site ids up to
//     maxSiteSearch, accepted only when the id it gives is one the
//     schedule names (a 64-bit hash: a chance match is out of reach);
//   - instances are kept: the n-th arrival of a goroutine at a site is the
//     same statement instance in both builds, which record the same
//     operations at a site the schedule names.
//
// A goroutine of the schedule with no counterpart (its chain passes a go
// statement whose site is neither named nor found), or a site without
// exactly one match, fails the mapping, and explain says so and searches
// for a failing run as without a reproducer.

// maxSiteSearch bounds the site ids tried for a go statement the schedule
// does not name, and maxSearches the go statements searched so.
const (
	maxSiteSearch = 1 << 20
	maxSearches   = 64
)

// mapSchedule maps the force plan of schedule s into explain's build,
// whose site table is sites, with evs a trace of a run of s's test in
// that build.
func mapSchedule(s *validate.Schedule, sites *trace.SiteTable, evs []trace.Event) (validate.Order, error) {
	var o validate.Order
	if s.Plan == nil {
		return o, fmt.Errorf("the schedule has no plan")
	}
	fwd := make(map[uint32]uint32) // schedule site -> explain site
	inv := make(map[uint32]uint32) // explain site -> schedule site
	var bad error
	for _, ss := range s.Sites {
		id, err := matchSite(ss, sites)
		if err != nil {
			if bad == nil {
				bad = err
			}
			continue
		}
		fwd[ss.ID], inv[id] = id, ss.ID
	}
	targets := make(map[uint64]bool)
	for _, p := range planPoints(s.Plan) {
		targets[p.G] = true
		if _, ok := fwd[p.Site]; !ok {
			if bad != nil {
				return o, bad
			}
			return o, fmt.Errorf("site %d of the schedule's plan is not among its sites", p.Site)
		}
	}
	gs := mapGoroutines(evs, inv, targets)
	pt := func(p plan.Point) (plan.Point, error) {
		g, ok := gs[p.G]
		if !ok {
			return p, fmt.Errorf("goroutine %d of the schedule has no counterpart in explain's run of the test (it was not started, or a go statement on its way is not one the schedule names)", p.G)
		}
		return plan.Point{G: g, Site: fwd[p.Site], N: p.N, Kind: p.Kind}, nil
	}
	for _, e := range s.Plan.Edges {
		b, err := pt(e.Before)
		if err != nil {
			return o, err
		}
		a, err := pt(e.After)
		if err != nil {
			return o, err
		}
		o.Edges = append(o.Edges, plan.Edge{Before: b, After: a})
	}
	for _, grp := range s.Plan.Together {
		var ps []plan.Point
		for _, p := range grp {
			q, err := pt(p)
			if err != nil {
				return o, err
			}
			ps = append(ps, q)
		}
		o.Together = append(o.Together, ps)
	}
	o.What = s.Order
	return o, nil
}

func planPoints(p *plan.Plan) []plan.Point {
	var ps []plan.Point
	for _, e := range p.Edges {
		ps = append(ps, e.Before, e.After)
	}
	for _, g := range p.Together {
		ps = append(ps, g...)
	}
	return ps
}

// matchSite returns the site of table with ss's position, kind and
// expression.
func matchSite(ss validate.ScheduleSite, table *trace.SiteTable) (uint32, error) {
	var ids []uint32
	for _, st := range table.Sites {
		if st.Line == ss.Line && st.Col == ss.Col && st.Kind == ss.Kind && st.Expr == ss.Expr && sameFile(st.File, ss.File) {
			ids = append(ids, st.ID)
		}
	}
	where := fmt.Sprintf("%s:%d:%d %s (%s)", ss.File, ss.Line, ss.Col, ss.Expr, ss.Kind)
	switch len(ids) {
	case 0:
		return 0, fmt.Errorf("site %s of the schedule has no match in explain's build (the code changed since precog test?)", where)
	case 1:
		return ids[0], nil
	}
	return 0, fmt.Errorf("site %s of the schedule matches %d sites of explain's build", where, len(ids))
}

// sameFile reports whether a and b name one file: equal paths, or, for a
// schedule made in another checkout, equal last two elements.
func sameFile(a, b string) bool {
	if a == b {
		return true
	}
	tail := func(p string) string {
		return filepath.Join(filepath.Base(filepath.Dir(p)), filepath.Base(p))
	}
	return tail(a) == tail(b) && !strings.HasPrefix(tail(a), ".")
}

// mapGoroutines returns, for each goroutine of evs whose id in the
// schedule's build can be computed and is in targets, that id mapped to
// its id in evs. inv maps evs's site ids to the schedule's.
func mapGoroutines(evs []trace.Event, inv map[uint32]uint32, targets map[uint64]bool) map[uint64]uint64 {
	type spawn struct {
		parent uint64
		site   uint32
		n      uint64
	}
	spawns := make(map[uint64]spawn)
	count := make(map[[2]uint64]uint64)
	var order []uint64 // goroutines in the order they were started
	for _, ev := range evs {
		if ev.Kind != trace.EvFork && ev.Kind != trace.EvTaskGo {
			continue
		}
		k := [2]uint64{ev.Goroutine, uint64(ev.Site)}
		spawns[ev.Peer] = spawn{ev.Goroutine, ev.Site, count[k]}
		count[k]++
		order = append(order, ev.Peer)
	}
	ids := make(map[uint64]uint64) // evs's id -> the schedule build's
	known := func(g uint64) (uint64, bool) {
		if _, started := spawns[g]; !started {
			return g, true // main, a test's or an adopted goroutine: ids without site ids
		}
		id, ok := ids[g]
		return id, ok
	}
	searches := 0
	// A parent is started before its children, so one pass in start
	// order sees each parent's id first.
	for _, g := range order {
		sp := spawns[g]
		p, ok := known(sp.parent)
		if !ok {
			continue
		}
		if site, ok := inv[sp.site]; ok {
			ids[g] = trace.ChildID(p, site, sp.n)
			continue
		}
		if searches >= maxSearches {
			continue
		}
		searches++
		for site := uint32(1); site < maxSiteSearch; site++ {
			if id := trace.ChildID(p, site, sp.n); targets[id] {
				ids[g] = id
				inv[sp.site] = site
				break
			}
		}
	}
	out := make(map[uint64]uint64)
	for _, g := range slices.Sorted(maps.Keys(ids)) {
		if targets[ids[g]] {
			out[ids[g]] = g
		}
	}
	for g := range targets {
		if _, ok := out[g]; !ok {
			if id, ok := known(g); ok && id == g {
				if _, started := spawns[g]; !started && goroutineIn(evs, g) {
					out[g] = g
				}
			}
		}
	}
	return out
}

// goroutineIn reports whether g has events in evs.
func goroutineIn(evs []trace.Event, g uint64) bool {
	for _, ev := range evs {
		if ev.Goroutine == g {
			return true
		}
	}
	return false
}
