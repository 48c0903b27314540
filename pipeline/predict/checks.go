package predict

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/precog-dev/precog/detect/conmem"
	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/detect/hb"
	"github.com/precog-dev/precog/detect/oscs"
	"github.com/precog-dev/precog/detect/races"
	"github.com/precog-dev/precog/detect/reach"
	"github.com/precog-dev/precog/detect/unicorn"
	"github.com/precog-dev/precog/hwmodel"
	"github.com/precog-dev/precog/pipeline/control"
	"github.com/precog-dev/precog/shim/plan"
	"github.com/precog-dev/precog/shim/trace"
)

// testChecks runs the checkers over the runs of one test: run for each
// run's events, then end once.
type testChecks struct {
	opts DetectOptions
	// budget is the whole detection's clock (DetectOptions.Budget), and
	// test the test whose runs these are.
	budget *overBudget
	test   string
	// ranked: the test has several runs, which Unicorn ranks.
	ranked bool
	runs   []unicorn.Run
	// ranIn are the recorded runs behind runs: the run number and the
	// trace, to name the events of Unicorn's witnesses.
	ranIn []rankedRun
	// internal collects the checkers' panics, one line each; notes what
	// the checkers left unchecked.
	internal []string
	notes    []string
	// vet holds the static candidates (precog test -vet), nil without;
	// reached is what the last run showed of them.
	vet     *vetState
	reached []reach.Result
	// gcPercent is the collector's setting before lowGC lowered it, -1
	// if it did not.
	gcPercent int
	// stopped counts the runs whose checkers -max-trace-time cut short.
	stopped int
}

// bigTrace is the number of events from which a run's analysis keeps the
// collector's headroom small (lowGC): pond's 100,000-goroutine test has 7.9
// M.
const bigTrace = 1 << 20

// bigTraceGC is the collector's setting (GOGC) while a large trace is
// analysed. The events and the happens-before graph are most of the heap
// and live until the run's checkers are done, so GOGC's default of 100 lets
// the heap grow to twice them before a collection; 25 lets it grow by a
// quarter. On pond's first 2 M events (precog test's detection) the peak
// RSS went from 637 MiB at 100 to 408 MiB at 25, and the CPU time did not
// change measurably (bench/RESULTS.md, "Analysis memory and time at
// scale").
const bigTraceGC = 25

// lowGC lowers the collector's headroom for the analysis of a run of n
// events, if the run is large and the user did not set GOGC; restoreGC
// undoes it once the test's runs are analysed.
func (tc *testChecks) lowGC(n int) {
	if n < bigTrace || tc.gcPercent >= 0 || os.Getenv("GOGC") != "" {
		return
	}
	if old := debug.SetGCPercent(bigTraceGC); old > bigTraceGC || old < 0 {
		tc.gcPercent = old
	} else {
		debug.SetGCPercent(old) // already lower (or off): keep it
	}
}

// restoreGC undoes lowGC, once the test's runs are analysed. It collects
// first: the test's events and graphs are garbage by then, but the
// collector sets its next goal from the heap it last marked, which held
// them, so restored as it is GOGC 100 would let the next test's
// allocations grow the heap to twice the large test's before a
// collection (porcupine's precog test: 1.4 GB marked in its largest test,
// 2.8 GB of heap before the next collection, most of it that test's
// garbage; bench/RESULTS.md). The collection marks only what is live
// after the test, and it comes once per test with a large run.
func (tc *testChecks) restoreGC() {
	if tc.gcPercent >= 0 {
		runtime.GC()
		debug.SetGCPercent(tc.gcPercent)
		tc.gcPercent = -1
	}
}

// run checks one run (named what, for errors) and returns the per-run
// checkers' findings.
// A rankedRun is a run whose patterns Unicorn ranks.
type rankedRun struct {
	n     int
	trace string
}

func (tc *testChecks) run(what string, evs []trace.Event, sites *trace.SiteTable, failed bool, ran rankedRun, forced [][2]int, clock *traceClock) []finding.Finding {
	// Past -max-trace-time the checkers not begun yet are left out; one
	// that has begun runs to its end.
	var left []string
	due := func(checker string) bool {
		if len(left) > 0 || clock.over() {
			left = append(left, checker)
			return false
		}
		return true
	}
	defer func() {
		switch {
		case len(left) == 0:
		case clock.interrupted():
			tc.notes = append(tc.notes, fmt.Sprintf("%s: analysis stopped by the interrupt: %s did not run", what, strings.Join(left, ", ")))
		case clock.cut.reached():
			tc.notes = append(tc.notes, fmt.Sprintf("%s: analysis stopped at the end of %v: %s did not run, the findings of the checkers before them stand",
				what, clock.cut, strings.Join(left, ", ")))
		default:
			tc.stopped++
			tc.notes = append(tc.notes, fmt.Sprintf("%s: analysis stopped after %v (-max-trace-time): %s did not run, the findings of the checkers before them stand (a larger -max-trace-time, or 0, runs them)",
				what, clock.limit, strings.Join(left, ", ")))
		}
	}()
	var fs []finding.Finding
	if !due("ConMem") {
		left = append(left, "OSCS")
		if tc.ranked {
			left = append(left, "Unicorn")
		}
	} else {
		// Races and a test's lifetime need the memory model's order,
		// locks included, which these checkers must not have. The
		// graph is done with when they return: the two graphs of a
		// large trace are not held at once (each takes most of the
		// memory its events take: pond's 100,000-goroutine test,
		// bench/RESULTS.md).
		var g *hb.Graph
		if !tc.guard("hb", what, func() { g = hb.Analyze(evs, hb.Options{Sites: sites}) }) {
			return nil
		}
		if g.WordsUntracked > 0 {
			tc.notes = append(tc.notes, fmt.Sprintf("%s: %d %s touched memory past the %d words whose allocations the analysis follows: two objects that had one address in turn may be taken for one there (ConMem and OSCS findings between them)",
				what, g.WordsUntracked, plural(g.WordsUntracked, "access", "accesses"), hb.MaxTouchedWords))
		}
		fs = tc.unordered(what, g, sites, failed, ran, forced, due)
	}
	if !due("the test lifetime checks") {
		if !tc.opts.NoRaces {
			left = append(left, "the race checker")
		}
		return fs
	}
	var lo *hb.Graph
	if tc.guard("hb", what, func() { lo = hb.Analyze(evs, hb.Options{Sites: sites, LockOrder: true}) }) {
		tc.guard("conmem", what, func() { fs = append(fs, conmem.TestLifetime(lo, sites)...) })
		if !tc.opts.NoRaces && due("the race checker") {
			tc.guard("races", what, func() { fs = append(fs, races.Check(lo, sites, tc.opts.Races)...) })
		}
	}
	return fs
}

// unordered runs the checkers that take the graph g without the mutexes'
// order (ConMem, OSCS, Unicorn; OSCS and Unicorn if due says it is not too
// late) and returns their findings.
func (tc *testChecks) unordered(what string, g *hb.Graph, sites *trace.SiteTable, failed bool, ran rankedRun, forced [][2]int, due func(string) bool) []finding.Finding {
	var fs []finding.Finding
	if tc.vet != nil {
		tc.guard("reach", what, func() { tc.reached = tc.vet.find(g, sites) })
	}
	tc.guard("conmem", what, func() {
		co := tc.opts.ConMem
		var st conmem.Stats
		co.Stats = &st
		fs = append(fs, conmem.Check(g, sites, co)...)
		if s := tc.opts.ConMem.Stats; s != nil {
			s.SpinEdges += st.SpinEdges
			s.SpinPruned += st.SpinPruned
			s.Skipped += st.Skipped
			s.UninitUnchecked += st.UninitUnchecked
		}
		tc.notes = append(tc.notes, conmemNotes(what, st)...)
	})
	if due("OSCS") {
		tc.guard("oscs", what, func() {
			o := oscs.Check(g, sites, tc.opts.OSCS)
			if len(o) > 0 && !tc.opts.NoHardware && due("OSCS-HW's notes") {
				tc.guard("hwmodel", what, func() { hardwareNotes(g, sites, o, tc.opts.OSCS) })
			}
			fs = append(fs, o...)
		})
	}
	if tc.ranked && due("Unicorn") {
		run := unicorn.Run{Failed: failed}
		uo := tc.opts.Unicorn
		uo.Forced = forced
		if tc.guard("unicorn", what, func() { run.Patterns = unicorn.Patterns(g, uo) }) {
			tc.runs = append(tc.runs, run)
			tc.ranIn = append(tc.ranIn, ran)
		}
	}
	return fs
}

// conmemNotes says what ConMem left unchecked in a run, by its limits.
func conmemNotes(what string, st conmem.Stats) []string {
	var out []string
	if st.Skipped > 0 {
		out = append(out, fmt.Sprintf("%s: ConMem skipped %d %s with over %d distinguishable accesses (con-null, con-closed, con-index and con-map there are missed)",
			what, st.Skipped, plural(st.Skipped, "location", "locations"), conmem.MaxInstances))
	}
	if st.UninitUnchecked > 0 {
		out = append(out, fmt.Sprintf("%s: con-uninit did not check %d %s against the other goroutines' initializations: its budget of %d order checks ran out (findings there are missed)",
			what, st.UninitUnchecked, plural(st.UninitUnchecked, "read", "reads"), conmem.MaxUninitChecks))
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// hardwareNotes adds to each OSCS finding of the run analysed in g a note
// on what OSCS-HW would have made of it (hwmodel.Compare).
func hardwareNotes(g *hb.Graph, sites *trace.SiteTable, fs []finding.Finding, opts oscs.Options) {
	res := hwmodel.Compare(g, sites, hwmodel.Replay(g, hwmodel.Default()), fs, opts)
	for i := range fs {
		note := "OSCS-HW (the paper's hardware, always on; precog hwreplay) would have caught it in this run"
		if v := res.HW[fs[i].ID]; v.Verdict == hwmodel.Lost {
			note = fmt.Sprintf("OSCS-HW (the paper's hardware, always on; precog hwreplay) would have missed it in this run (%s): %s", v.Reason, v.Detail)
		}
		fs[i].Evidence.Notes = append(fs[i].Evidence.Notes, note)
	}
}

// end returns the findings that need every run of the test: Unicorn's
// ranking of the patterns of its failing runs against its passing ones.
func (tc *testChecks) end(what string, sites *trace.SiteTable) []finding.Finding {
	if !tc.ranked {
		return nil
	}
	var fs []finding.Finding
	tc.guard("unicorn", what, func() { fs = unicorn.Rank(tc.runs, sites, tc.opts.Unicorn) })
	for i := range fs {
		for j := range fs[i].Witnesses {
			tc.nameEvents(&fs[i].Witnesses[j])
		}
	}
	return fs
}

// nameEvents turns a Unicorn witness, whose Run is an index in tc.runs and
// whose events are known by their index in that run's trace, into one
// that names its run by number and its events as control points. It
// reads the trace again up to the last of those events only: a control
// point and a Lock depend on the events before theirs, and a run streamed
// for -max-trace has its witnesses in the first events. A trace that
// cannot be read again leaves the witness without events.
func (tc *testChecks) nameEvents(w *finding.Witness) {
	if w.Run < 0 || w.Run >= len(tc.ranIn) {
		w.Events = nil
		return
	}
	ran := tc.ranIn[w.Run]
	w.Run = ran.n
	last := -1
	for _, e := range w.Events {
		last = max(last, e.Index)
	}
	evs, err := readPrefix(ran.trace, last+1)
	if err != nil && len(evs) == 0 {
		w.Events = nil
		return
	}
	pts := control.Points(evs)
	for k := range w.Events {
		e := &w.Events[k]
		if e.Index < 0 || e.Index >= len(pts) || pts[e.Index].Site != e.Site {
			w.Events = nil
			return
		}
		e.G, e.N = pts[e.Index].G, pts[e.Index].N
	}
	control.NameLocks(evs, pts, w)
}

// guard runs f, turning a panic of checker into an internal error: one bug
// in a checker must not lose the other checkers' findings.
func (tc *testChecks) guard(checker, what string, f func()) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			tc.internal = append(tc.internal, fmt.Sprintf("internal error: %s panicked on %s: %v\n%s", checker, what, r, indent(debug.Stack())))
			ok = false
		}
	}()
	f()
	return true
}

func indent(stack []byte) string {
	return "\t" + strings.ReplaceAll(strings.TrimSpace(string(stack)), "\n", "\n\t")
}

// prefixLen is how many events of a trace of total events and n bytes
// fit in limit bytes at the trace's mean event size, and within the
// events the in-memory checkers hold under limit (TraceEventBytes).
func prefixLen(total int, n, limit int64) int {
	k := total
	if n > 0 && limit < n {
		k = int(int64(total) * limit / n)
	}
	return min(k, int(limit/TraceEventBytes))
}

// A streamedRun is what Unicorn takes of a run streamed for -max-trace
// besides its events: its outcome, where its witnesses' events are named
// (ran), and the plan of a targeted run whose forced order held ("" for
// other runs), whose orders Unicorn takes as on the in-memory path
// (forcedOrders).
type streamedRun struct {
	failed bool
	ran    rankedRun
	plan   string
}

// prefix runs the checkers that hold their trace in memory, on the
// first k events next gives of a trace too large for the in-memory path:
// the part of it that path would hold. They share one happens-before
// graph, as unordered's do. OSCS runs, then Unicorn if the test is ranked
// and clock leaves it the time: it collects the run's patterns for end,
// marked Cut (see "Runs analysed in part" in detect/unicorn's doc, for
// what a cut run counts as in the ranking); unicornRan says whether it
// did.
// The first events in the global order are a prefix of the run, each
// goroutine's events up to some point, as the events of a recording
// stopped at -max-record are (a receive whose send came later in the
// order may lose its edge at the cut, as there): OSCS's findings in them
// are findings of the run, those after them are missed. Their witnesses
// name their events as control points, with their Locks, as the streamed
// checkers' do; Unicorn's are named by end, from the same events. An
// error of next after the first events (the goroutine limit, damage)
// leaves the prefix before it, analysed and returned with it; the time
// limit while reading leaves nothing.
func (tc *testChecks) prefix(what string, next func() (trace.Event, error), k int, sites *trace.SiteTable, run streamedRun, clock *traceClock) (fs []finding.Finding, unicornRan bool, err error) {
	evs := make([]trace.Event, 0, k)
	var stop error
	for len(evs) < k {
		ev, err := next()
		if errors.Is(err, errOverTime) {
			return nil, false, err
		}
		if err != nil {
			if err != io.EOF {
				stop = err
			}
			break
		}
		evs = append(evs, ev)
	}
	var forced [][2]int
	if tc.ranked && run.plan != "" {
		// Before the graph, as analyse does: its index of the
		// events' points is not held with the graph.
		forced = forcedOrders(run.plan, evs)
	}
	tc.lowGC(len(evs))
	g := hb.Analyze(evs, hb.Options{Sites: sites})
	tc.guard("oscs", what, func() {
		o := oscs.Check(g, sites, tc.opts.OSCS)
		if len(o) > 0 && !tc.opts.NoHardware {
			hardwareNotes(g, sites, o, tc.opts.OSCS)
		}
		var pts []plan.Point
		for i := range o {
			for j := range o[i].Witnesses {
				if pts == nil {
					pts = control.Points(evs)
				}
				control.NameLocks(evs, pts, &o[i].Witnesses[j])
			}
		}
		fs = o
	})
	if tc.ranked && !clock.over() {
		r := unicorn.Run{Failed: run.failed, Cut: true}
		uo := tc.opts.Unicorn
		uo.Forced = forced
		if tc.guard("unicorn", what, func() { r.Patterns = unicorn.Patterns(g, uo) }) {
			tc.runs = append(tc.runs, r)
			tc.ranIn = append(tc.ranIn, run.ran)
			unicornRan = true
		}
	}
	return fs, unicornRan, stop
}
