package conmem

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/detect/hb"
	"github.com/precog-dev/precog/detect/internal/streamed"
	"github.com/precog-dev/precog/shim/trace"
)

// maxLifeCalls bounds the calls TestLifetimeStream keeps per goroutine and
// test before the test's end: past it the oldest is dropped, and a later
// call may be reported in its place.
const maxLifeCalls = 64

// TestLifetimeStream is TestLifetime (testLife) on a trace walked by
// hb.Stream with LockOrder, the race checker's order: Visit takes each
// Step of the walk (races.Options.Visit, or CheckTestLifetimeStream's own
// walk), Findings returns what it found once the walk ended. A call on a
// test's T before the test's end in the trace is kept until the end comes
// (each goroutine's calls with distinct clocks, at most maxLifeCalls per
// test), one after it is judged at once. Each call is matched to the test
// whose T its address named when it ran (Check's walk matches the last
// test named at the address, which differs only where two tests' Ts
// share an address). A finding at an unsettled event is withheld and
// counted (Withheld).
type TestLifetimeStream struct {
	sites    *trace.SiteTable
	start    map[int]string       // goroutine -> the test of its last TestStart
	lives    map[uint64]*testLife // by the address of the T
	open     map[int][]*testLife  // goroutine -> its lives not ended yet
	first    map[lifeCall]bool    // a goroutine's first call past a test's end was found
	found    []lifeFound
	withheld int
}

// A testLife is a test's T from its naming read to its TestEnd.
type testLife struct {
	g       int
	test    string
	ended   bool
	end     hb.EventRef
	pending map[int][]*sacc // goroutine -> its calls before the end, in order
}

type lifeCall struct {
	g int
	l *testLife
}

// A lifeFound is a call found not ordered before its test's end.
type lifeFound struct {
	call *sacc
	l    *testLife
}

// NewTestLifetimeStream returns a TestLifetimeStream for a trace whose
// site table is sites.
func NewTestLifetimeStream(sites *trace.SiteTable) *TestLifetimeStream {
	return &TestLifetimeStream{sites: sites, start: make(map[int]string), lives: make(map[uint64]*testLife),
		open: make(map[int][]*testLife), first: make(map[lifeCall]bool)}
}

// CheckTestLifetimeStream walks the events that next returns (in the
// global order) with hb.Stream and LockOrder, for the test lifetime check
// alone; window is hb.StreamOptions.Window. stats, if not nil, receives
// the walk's counts and the findings withheld.
func CheckTestLifetimeStream(next func() (trace.Event, error), sites *trace.SiteTable, window int, stats *StreamStats) ([]finding.Finding, error) {
	t := NewTestLifetimeStream(sites)
	st, err := hb.Stream(next, hb.StreamOptions{Options: hb.Options{Sites: sites, LockOrder: true}, Window: window}, t.Visit)
	fs := t.Findings()
	if stats != nil {
		stats.Events += st.Events
		stats.Withheld += t.withheld
	}
	return fs, err
}

// Visit takes one step of the walk.
func (t *TestLifetimeStream) Visit(st *hb.Step) {
	ev := st.Event
	g := st.Ctx.G
	switch ev.Kind {
	case trace.EvTestStart:
		t.start[g] = ev.Name
	case trace.EvTestEnd:
		for _, l := range t.open[g] {
			l.ended, l.end = true, hb.EventRef{Index: st.Index, Ctx: st.Ctx}
			for cg, calls := range l.pending {
				// A goroutine's calls not ordered before the end
				// are the last of its calls: the first of them.
				if k := slices.IndexFunc(calls, func(c *sacc) bool { return !hb.Before(c.Ctx, c.Index, st.Ctx, st.Index) }); k >= 0 {
					t.find(calls[k], l, cg)
				}
			}
			l.pending = nil
		}
		delete(t.open, g)
	case trace.EvRead:
		if ev.Site == 0 {
			if test, ok := t.start[g]; ok {
				l := &testLife{g: g, test: test}
				t.lives[ev.Addr] = l
				t.open[g] = append(t.open[g], l)
			}
			return
		}
		l := t.lives[ev.Addr]
		if l == nil || l.g == g || t.first[lifeCall{g, l}] {
			return
		}
		c := &sacc{Event: streamed.Event{Index: st.Index, Site: ev.Site, N: st.Instance, Kind: ev.Kind, Ctx: st.Ctx}}
		if l.ended {
			if !hb.Before(c.Ctx, c.Index, l.end.Ctx, l.end.Index) {
				t.find(c, l, g)
			}
			return
		}
		if l.pending == nil {
			l.pending = make(map[int][]*sacc)
		}
		calls := l.pending[g]
		if len(calls) > 0 && calls[len(calls)-1].Ctx == c.Ctx {
			return // ordered with the end as the call before it
		}
		if len(calls) >= maxLifeCalls {
			calls = slices.Delete(calls, 0, 1)
		}
		l.pending[g] = append(calls, c)
	}
}

// find notes goroutine g's first call c not ordered before the end of l.
func (t *TestLifetimeStream) find(c *sacc, l *testLife, g int) {
	t.first[lifeCall{g, l}] = true
	t.found = append(t.found, lifeFound{c, l})
}

// Findings returns the findings, in Check's order of the calls, one per
// call site (testLife's).
func (t *TestLifetimeStream) Findings() []finding.Finding {
	slices.SortFunc(t.found, func(a, b lifeFound) int { return a.call.Index - b.call.Index })
	var out []finding.Finding
	seen := make(map[string]bool)
	sites := make(map[uint32]bool)
	for _, x := range t.found {
		c := x.call
		if sites[c.Site] {
			continue
		}
		if c.Ctx.Unsettled || x.l.end.Ctx.Unsettled {
			t.withheld++
			continue
		}
		sites[c.Site] = true
		f := finding.Finding{Kind: finding.ConClosed, Status: finding.Predicted}
		expr, fn := "the location", "another function"
		if site, ok := t.sites.Lookup(c.Site); ok {
			expr = cmp.Or(site.Expr, expr)
			fn = cmp.Or(site.Function, fn)
		}
		test := x.l.test
		f.Message = fmt.Sprintf("%s in %s may run after %s has completed, and then it panics (Log in goroutine after %s has completed); the test should wait for the goroutine",
			expr, fn, test, test)
		streamed.AddSite(&f, t.sites, c.Event, finding.RoleLog)
		w := finding.Witness{Events: []finding.Event{c.Witness(finding.RoleLog)}}
		out = addFinding(out, seen, f, w, []string{fmt.Sprintf("the call does not happen before the end of %s (its cleanup), which released its T", test)})
	}
	t.found = nil
	slices.SortFunc(out, finding.Compare)
	return out
}

// Withheld returns the findings withheld so far: their call or their
// test's end was at an unsettled event.
func (t *TestLifetimeStream) Withheld() int { return t.withheld }
