// Package validate confirms predicted findings by making them happen:
// ConMem-v (conmem.txt section 5) for every kind precog predicts. For a
// finding, it takes a recorded run that exposed it (a finding.Witness: the
// test, the run, and the events of the bug named as the shim's control
// points), builds a force plan from those events (Orders), runs the test
// again under the plan, and classifies the run (Classify):
//
//   - confirmed: the test failed with the effect the kind names (a nil
//     dereference for con-null, a send on a closed channel for con-closed,
//     an index out of range for con-index, concurrent map writes for
//     con-map, any panic for con-uninit, the WaitGroup's own panic for a
//     Done before its Add), at a predicted site or in a call made there,
//     after the steps the order puts first happened: the shim's result
//     names every edge's first step passed, or reached once its own
//     predecessors were done, and no wait gave up before the crash (a
//     crash that comes first is the forced run's other path, as a worker
//     held out of the order finding no task, and the run is diverged);
//     or, for the kinds whose effect is a wrong value
//     (con-uninit, oscs, unicorn), the test failed or hung under the forced
//     order where its recorded run passed, and the failure is the order's
//     (see control: it fails again, the other order passes, no goroutine
//     was held back over MaxBareWait); or the test failed with the
//     kind's runtime error in its failure message (a panic it recovered
//     and reported), checked as a bare failure is. Validation.Effect
//     says which.
//   - not-confirmed: the forced order held and nothing failed as
//     predicted. For con-null, con-index and con-uninit, the order is
//     forced once more with the run recorded, and the reason says what
//     its trace shows (Explain): the value the use read was not nil, was
//     in bounds, or was initialized; or the nil was read and not used.
//   - diverged: the run could not follow the plan; the reason names the
//     step that never came (custom synchronization the analysis missed, or
//     a goroutine that took another path).
//   - timed-out: a forced run went past its time bound, or the budget of
//     the whole validation ran out first.
//   - apart, for a data race only: every forced run that held an order
//     ran the two accesses on different memory (see below).
//
// A data race (kind race) is confirmed when its two accesses could be
// held at once (each goroutine stopped at its access until the other came
// to its own, then both let go together) and forced adjacent in both
// orders, touching one piece of memory in each forced run (the shim names
// the address each forced access touched, and the GC epoch; both must be
// the same): they are truly unordered, on one location. Both orders alone
// would not do: a hand-off the trace cannot see (a pool inside a
// dependency) lets each order run, the object passed on between the two
// accesses, while the two are never pending at once. The order of the
// two sites alone would not do: the recorded run may have paired accesses
// to an address that held different memory at the two times (a heap
// object freed and its address reused after a collection), and the forced
// run then runs the sites in both orders on different memory. A race whose
// every forced run that held ran its accesses on different memory, with
// no other evidence, is set apart (finding.Apart; Validator.race): a
// false prediction, which precog test's text output leaves out.
//
// Every forced run is bounded: each wait of the shim by the plan's
// timeout, the waits of a run together by its budget, the run by a wall
// time bound after which it is killed, and all of validation by one
// budget. An order whose first try diverges is tried again, perturbed
// with each of a fixed list of seeds (DefaultSeeds: yields and short
// sleeps at the run's other sync operations, so that the retry takes
// another interleaving; Validation.Seeds lists them), and then the
// finding's other witnesses are.
//
// Validation is ConMem-v's: it improves the chance that the bug happens
// and never guarantees it, so a not-confirmed finding may still be a bug
// (the paper's false negatives: bugs that need delays at several places).
// It is sound for confirmation in that every confirmed finding rests on a
// failure that happened at a predicted site after the order's first steps
// happened, or on a test that failed only under the forced order.
// Unsound still: a step the result file names was recorded before the
// crash was printed, not necessarily before the crashing statement ran
// in another goroutine; and a crash in a site's function (a deferred
// call, placed by the frame of a return at or after the site's line) may
// be another statement of that function.
package validate

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/detect/races"
	"github.com/precog-dev/precog/pipeline/control"
	"github.com/precog-dev/precog/pipeline/proc"
	"github.com/precog-dev/precog/pipeline/record"
	"github.com/precog-dev/precog/shim/plan"
	"github.com/precog-dev/precog/shim/trace"
	"github.com/sourcegraph/conc/pool"
)

// A Target is how to run one recorded test again.
type Target struct {
	Binary string   // the instrumented test binary
	Dir    string   // the directory it runs in (the package's)
	Args   []string // its arguments, selecting the one test
	Env    []string // added to the environment
	// Timeout bounds the wall time of one run; the process is killed
	// after it.
	Timeout time.Duration
	// Passed says whether the recorded run of the witness passed.
	Passed bool
	// Marks says that the test may reach a marked call (record.Test's
	// Marks): it runs under plan.Godebug's tracebackancestors, as it was
	// recorded.
	Marks bool
}

// Options configures a Validator.
type Options struct {
	// Target returns how to run the test and run of a witness, false if
	// the test cannot be run again.
	Target func(w finding.Witness) (Target, bool)
	// Dir is a directory for plans and result files.
	Dir string
	// Parallel is how many test processes run at once (All); 0 means 1.
	Parallel int
	// Tries is how many times an order is forced when it diverges; 0
	// means DefaultTries. The tries after the first are perturbed, each
	// with the next of Seeds (nil means DefaultSeeds): the same order,
	// in another interleaving of the rest of the run.
	Tries int
	Seeds []uint64
	// WaitMS bounds each wait of the shim; BudgetMS the waits of one run
	// together. 0 means DefaultWaitMS and DefaultBudgetMS.
	WaitMS, BudgetMS int
	// Progress, if not nil, is told what is being done.
	Progress func(string)
	// Done, if not nil, is told each finding's result as All finishes
	// it, from All's goroutines.
	Done func(Result)
	// Sites, if not nil, names the sites of the shim's reasons by their
	// positions: "site 12 (mysql.go:61)".
	Sites *trace.SiteTable
	// MaxTraceBytes, if above 0, bounds the trace of the run that is
	// recorded to explain a finding not confirmed (Explain), which is read
	// whole into memory: the shim stops writing it there.
	MaxTraceBytes int64
}

// Defaults of Options.
const (
	DefaultTries    = 3
	DefaultWaitMS   = 1000
	DefaultBudgetMS = 5000
	// MapRepeat is how many forced runs a con-map finding gets: Go
	// detects concurrent map writes only when the two writes really
	// overlap, which a forced order makes likely, not certain.
	MapRepeat = 20
	// MaxBareWait bounds the wait behind a confirmation that rests on a
	// bare test failure: a test with a TTL or a sleep fails when a plan
	// holds a goroutine back for longer (golang-lru's expirable tests,
	// where the order OSCS names means waiting for the expiry timer).
	MaxBareWait = 25 * time.Millisecond
)

// DefaultSeeds are the perturbation seeds of the retries of a diverged
// order, in order: a fixed list, so that validation is deterministic in
// what it tries. Each retry yields with probability RetryYield and
// sleeps up to RetryMaxDelayUS with probability RetryDelay at every sync
// operation that is not a step of the order.
var DefaultSeeds = []uint64{1, 2}

// The perturbation of a retry.
const (
	RetryYield      = 0.3
	RetryDelay      = 0.05
	RetryMaxDelayUS = 200
)

// A Result is the outcome of validating one finding.
type Result struct {
	Status     finding.Status
	Validation finding.Validation
	// Witness, Order and Plan are what confirmed the finding (or the last
	// thing tried): the schedule a reproducer replays.
	Witness finding.Witness
	Order   Order
	Plan    *plan.Plan
	Target  Target
}

// A Validator validates findings.
type Validator struct {
	o   Options
	seq atomic.Int64
	// run, if not nil, replaces runPlan: tests give the runs' outcomes
	// without a test binary.
	run func(ctx context.Context, t Target, pl *plan.Plan) (Run, error)
}

// New returns a Validator.
func New(o Options) *Validator {
	if o.Parallel <= 0 {
		o.Parallel = 1
	}
	if o.Tries <= 0 {
		o.Tries = DefaultTries
	}
	if o.Seeds == nil {
		o.Seeds = DefaultSeeds
	}
	if o.WaitMS <= 0 {
		o.WaitMS = DefaultWaitMS
	}
	if o.BudgetMS <= 0 {
		o.BudgetMS = DefaultBudgetMS
	}
	return &Validator{o: o}
}

// All validates fs, up to Options.Parallel test processes at once, until
// ctx is done: the findings it could not finish are timed out. It returns
// one result per finding, in order. It takes them up cheapest first (see
// byCost), so that a budget that runs out is spent on as many findings as
// it can be, not on one slow test's.
func (v *Validator) All(ctx context.Context, fs []finding.Finding) []Result {
	out := make([]Result, len(fs))
	p := pool.New().WithMaxGoroutines(v.o.Parallel)
	for _, i := range v.byCost(fs) {
		p.Go(func() {
			out[i] = v.Finding(ctx, fs[i])
			if v.o.Done != nil {
				v.o.Done(out[i])
			}
		})
	}
	p.Wait()
	return out
}

// byCost returns the indexes of fs in the order All takes them up: by the
// time bounds of one run of the tests of the witnesses that validation
// forces (tries': those with orders, whose test can be run again; the
// bound is the recorded run's wall time, scaled), added up, since it
// forces them in turn until one confirms the finding; cheapest first, and
// in fs's order among equals. A finding with no such witness costs
// nothing (it is not forced). netpoll's nightly job (heldout19) spent its
// whole validation share on the findings of one test that ran 35 s
// recorded (TestBookSizeLargerThanMaxSize, some minutes of forced and
// control runs each): 6 of 61 findings validated, the others timed out,
// most of them in tests that run in under a second. A first witness's
// bound alone did not do: those findings' first witness was in a 1 s test
// (TestConnectionTimeout), whose orders diverged, and then the 35 s test
// ran, while the findings of a 3.5 s test timed out.
func (v *Validator) byCost(fs []finding.Finding) []int {
	cost := make([]time.Duration, len(fs))
	order := make([]int, len(fs))
	for i, f := range fs {
		order[i] = i
		if v.o.Target == nil {
			continue
		}
		for _, w := range f.Witnesses {
			if _, err := Orders(f, w); err != nil {
				continue
			}
			if t, ok := v.o.Target(w); ok {
				cost[i] += t.Timeout
			}
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(cost[a], cost[b]) })
	return order
}

// Finding validates one finding: its witnesses in turn, each order of the
// first witness that has a plan, until one confirms it or every try has
// been made.
func (v *Validator) Finding(ctx context.Context, f finding.Finding) Result {
	start := time.Now()
	res := v.finding(ctx, f)
	w := res.Witness
	if len(w.Events) == 0 && len(f.Witnesses) > 0 {
		w = f.Witnesses[0]
	}
	res.Validation.Reason = nameSites(nameGoroutines(res.Validation.Reason, w, v.o.Sites), v.o.Sites)
	if res.Validation.Runs > 0 && (len(res.Order.Edges) > 0 || len(res.Order.Together) > 0) {
		res.Validation.Order = res.Order.Steps(res.Witness)
	}
	res.Validation.WallNs = int64(time.Since(start))
	return res
}

func (v *Validator) finding(ctx context.Context, f finding.Finding) Result {
	res := Result{Status: finding.Diverged}
	if len(f.Witnesses) == 0 {
		res.Status = finding.Predicted
		res.Validation.Reason = "not validated: no recorded run names the finding's events"
		return res
	}
	if f.Kind == races.Kind {
		return v.race(ctx, f)
	}
	tries, planErr := v.tries(f)
	// first is the first order that held without any failure, to
	// explain a not-confirmed finding by.
	var first *Result
	for _, tr := range tries {
		w, t := tr.witness, tr.target
		for _, o := range tr.orders {
			held, failed := 0, 0
			for held < max(o.Repeat, 1) && failed < v.o.Tries {
				if ctx.Err() != nil {
					if res.Status == finding.Diverged {
						res.Status = finding.TimedOut
						res.Validation.Reason = "the validation budget ran out before the finding was validated"
					}
					return res
				}
				o := v.retry(o, failed, &res.Validation)
				vd, pl := v.force(ctx, t, f, w, o)
				res.Validation.Runs++
				res.Validation.Test = w.Test
				res.Witness, res.Order, res.Plan, res.Target = w, o, pl, t
				if !better(res.Status, vd.Status) {
					res.Status, res.Validation.Effect, res.Validation.Reason = vd.Status, vd.Effect, vd.Reason
				}
				switch vd.Status {
				case finding.Confirmed:
					res.Validation.Failed++
					if vd.Effect == "test-failed" || vd.Effect == "hang" {
						why := ""
						if vd.MaxWait > MaxBareWait {
							why = fmt.Sprintf("the plan held a goroutine back %s, long enough for a test that depends on timing to fail from the wait alone", vd.MaxWait.Round(time.Millisecond))
						} else {
							var note string
							why, note = v.control(ctx, t, f, w, o, &res.Validation.Runs)
							if why == "" && note != "" {
								res.Validation.Reason += "; " + note
							}
						}
						if why != "" {
							res.Status, res.Validation.Effect = finding.NotConfirmed, ""
							res.Validation.Reason = vd.Reason + "; but " + why + ": the failure may come from the timing the plan imposes rather than from the order"
							held++
							continue
						}
					}
					return res
				case finding.NotConfirmed:
					held++ // the order held: only luck can change the next run
					if first == nil && vd.Passed {
						first = &Result{Witness: w, Order: o, Target: t}
					}
				default:
					failed++
					if vd.Stuck {
						failed = v.o.Tries // the next order, not the same wait again
					}
				}
			}
		}
	}
	if res.Status == finding.NotConfirmed && first != nil && explained(f.Kind) && ctx.Err() == nil {
		res.Validation.Runs++
		if why := v.explain(ctx, first.Target, f, first.Witness, first.Order); why != "" {
			res.Validation.Reason = fmt.Sprintf("with %s, the test passed: %s", first.Order.What, why)
		}
	}
	if res.Validation.Runs == 0 {
		// Nothing was forced: the finding stays a prediction.
		res.Status = finding.Predicted
		res.Validation.Reason = "not validated: " + planErr.Error()
	}
	return res
}

// race validates a data race: each of its two orders, the accesses
// adjacent one way and the other, must be reached (the shim reports the
// order held) in a forced run in which the two accesses touched one piece
// of memory (the same address, in one GC epoch: Verdict.Apart). Then the
// accesses are truly unordered: the race is confirmed, whether or not the
// test noticed (a crash at a site under either order, with the accesses on
// one piece of memory, confirms it too). An order never reached makes it
// diverged: synchronization that the trace did not show orders them. An
// order that held only with the accesses on different memory, in every
// try, makes it apart (finding.Apart): the recorded run paired two
// accesses at an address that held different memory (a heap address
// reused after a collection), or the forced run's instances of the sites
// are other accesses than the recorded ones. It is not-confirmed instead,
// shown with the others, when the witness gives any other evidence: an
// order that held on one piece of memory (the other order's), a run that
// held without saying what memory its accesses touched, or a run that
// crashed at a site (with the accesses apart, the crash is no proof of
// this race, but it is a failure under an order the program allows, and
// a user must see it).
//
// The witnesses are tried in turn until one confirms the race or the
// budget runs out, and the strongest verdict of those tried stands
// (finding.Status.Stronger; a later one on a tie), with its witness and
// order: the status Merge gives the same witnesses validated apart (the
// shards of a job), and the one that keeps a finding that any witness did
// not set apart among those shown.
func (v *Validator) race(ctx context.Context, f finding.Finding) Result {
	tries, err := v.tries(f)
	if len(tries) == 0 {
		return Result{Status: finding.Predicted, Validation: finding.Validation{Reason: "not validated: " + err.Error()}}
	}
	var (
		best Result
		val  finding.Validation // the runs, seeds and failures of every witness
	)
	for i, tr := range tries {
		r := v.raceWitness(ctx, f, tr, &val)
		if i == 0 || !best.Status.Stronger(r.Status) {
			best = r
		}
		if r.Status == finding.Confirmed || ctx.Err() != nil {
			break
		}
	}
	best.Validation.Runs, best.Validation.Seeds, best.Validation.Failed = val.Runs, val.Seeds, val.Failed
	best.Validation.Test = best.Witness.Test
	return best
}

// raceWitness forces the orders of one witness of data race f (race),
// counting its runs, seeds and failures in val, and returns its verdict.
func (v *Validator) raceWitness(ctx context.Context, f finding.Finding, tr try, val *finding.Validation) Result {
	w, t, orders := tr.witness, tr.target, tr.orders
	res := Result{Status: finding.Predicted, Witness: w, Target: t}
	var reached []string
	same := false // a run held with the accesses on one piece of memory
	for _, o := range orders {
		held := false
		apart := ""      // why the last run that held is no evidence
		unknown := false // a run held without saying what memory it touched
		crash := ""      // a run that held apart crashed at a site: its reason
		for try := 0; try < v.o.Tries && !held; try++ {
			if ctx.Err() != nil {
				res.Status, res.Validation.Effect = finding.TimedOut, ""
				res.Validation.Reason = "the validation budget ran out before the finding was validated"
				return res
			}
			o := v.retry(o, try, val)
			vd, pl := v.force(ctx, t, f, w, o)
			val.Runs++
			res.Order, res.Plan = o, pl
			if vd.Status == finding.Confirmed && vd.Effect != "test-failed" {
				// A crash at a site under the forced order.
				res.Status, res.Validation.Effect, res.Validation.Reason = vd.Status, vd.Effect, vd.Reason
				val.Failed++
				return res
			}
			held = vd.Status == finding.NotConfirmed || vd.Status == finding.Confirmed
			switch {
			case held && vd.Apart != "":
				// The sites ran in the order, on other memory:
				// another try may pair the same memory.
				held, apart = false, vd.Apart
				unknown = unknown || !vd.Elsewhere
				if vd.Crashed && crash == "" {
					crash = vd.Reason
				}
			case held:
				same = true
			case apart == "":
				res.Status, res.Validation.Reason = vd.Status, vd.Reason
			}
		}
		if !held && apart != "" {
			res.Status, res.Validation.Effect = finding.Apart, ""
			res.Validation.Reason = fmt.Sprintf("with %s, %s", o.What, apart)
			if same || unknown || crash != "" {
				res.Status = finding.NotConfirmed
			}
			if crash != "" {
				res.Validation.Reason = fmt.Sprintf("with %s, %s", o.What, crash)
			}
		}
		if !held {
			break
		}
		reached = append(reached, o.What)
	}
	if len(reached) == len(orders) {
		res.Status, res.Validation.Effect = finding.Confirmed, "reordered"
		res.Validation.Reason = "the two accesses were held at once and both orders happened in forced runs, on one address each time: " + strings.Join(reached, "; then ")
	}
	return res
}

// try is a witness of a finding that can be forced: its orders and the
// test that runs them.
type try struct {
	witness finding.Witness
	orders  []Order
	target  Target
}

// tries returns the witnesses of f that have orders and a test that can be
// run again, in order, and why the last one left out was left out (the
// reason a finding none of whose witnesses can be forced stays predicted).
func (v *Validator) tries(f finding.Finding) ([]try, error) {
	var out []try
	err := errors.New("no recorded run names the finding's events")
	for _, w := range f.Witnesses {
		orders, oerr := Orders(f, w)
		if oerr != nil {
			err = oerr
			continue
		}
		t, ok := v.o.Target(w)
		if !ok {
			err = fmt.Errorf("test %s cannot be run again", w.Test)
			continue
		}
		out = append(out, try{w, orders, t})
	}
	return out, err
}

// better reports whether status a says more than b about a finding:
// confirmed over not-confirmed over timed-out over diverged.
func better(a, b finding.Status) bool {
	rank := map[finding.Status]int{finding.Diverged: 0, finding.TimedOut: 1, finding.NotConfirmed: 2, finding.Confirmed: 3}
	return rank[a] > rank[b]
}

// Plan is the force plan of order o, with the bounds of o, perturbed
// with o's seed if it has one.
func (v *Validator) Plan(o Order) *plan.Plan {
	p := &plan.Plan{Mode: plan.Force, TimeoutMS: v.o.WaitMS, BudgetMS: v.o.BudgetMS, Edges: o.Edges, Together: o.Together}
	if o.Seed != 0 {
		p.Seed, p.Yield, p.Delay, p.MaxDelayUS = o.Seed, RetryYield, RetryDelay, RetryMaxDelayUS
	}
	return p
}

// retry returns order o for try number try (from 0) of it: as it is for
// the first, then with the seeds of Options.Seeds in turn, each noted in
// val.
func (v *Validator) retry(o Order, try int, val *finding.Validation) Order {
	if try == 0 || len(v.o.Seeds) == 0 {
		return o
	}
	o.Seed = v.o.Seeds[(try-1)%len(v.o.Seeds)]
	if !slices.Contains(val.Seeds, o.Seed) {
		val.Seeds = append(val.Seeds, o.Seed)
	}
	return o
}

// force runs the test of t once under order o and classifies the run.
func (v *Validator) force(ctx context.Context, t Target, f finding.Finding, w finding.Witness, o Order) (Verdict, *plan.Plan) {
	pl := v.Plan(o)
	if v.o.Progress != nil {
		v.o.Progress(fmt.Sprintf("validating %s %s in %s", f.Kind, f.ID, w.Test))
	}
	run := v.run
	if run == nil {
		run = v.runPlan
	}
	r, err := run(ctx, t, pl)
	if err != nil {
		return Verdict{Status: finding.Diverged, Reason: err.Error()}, pl
	}
	return Classify(f, o, r, t.Passed), pl
}

// runPlan runs the test of t once under plan pl, through a plan file and
// a result file in Options.Dir, and returns what it did with the control
// result read back.
func (v *Validator) runPlan(ctx context.Context, t Target, pl *plan.Plan) (Run, error) {
	n := strconv.FormatInt(v.seq.Add(1), 10)
	planPath := filepath.Join(v.o.Dir, "plan"+n+".json")
	pl.Result = filepath.Join(v.o.Dir, "result"+n+".jsonl")
	defer os.Remove(planPath)
	defer os.Remove(pl.Result)
	defer func() { pl.Result = "" }()
	if err := control.WritePlan(planPath, pl); err != nil {
		return Run{}, err
	}
	r := Force(ctx, t, planPath)
	r.Control, r.ControlErr = readControl(pl.Result, pl)
	return r, nil
}

// control checks a confirmation that rests on a bare test failure (no
// crash at a predicted site): a test whose assertions depend on timing (a
// TTL, a sleep) can fail under any plan that holds goroutines back. Such a
// confirmation stands only if the failure is the order's: the forced order
// fails again, and the other order of the same steps, the one the
// recording saw (every edge reversed), with the same kind of waits, is
// followed and passes, twice. For a Unicorn pattern, whose reversal is
// often another failing interleaving, the control is runs without a plan
// (unicornControl). control returns why the failure does not count, or
// "", and a note to add to a confirmation that stands.
func (v *Validator) control(ctx context.Context, t Target, f finding.Finding, w finding.Witness, o Order, runs *int) (why, note string) {
	*runs++
	if vd, _ := v.force(ctx, t, f, w, o); vd.Status != finding.Confirmed {
		return "a second run under the same order did not fail (" + string(vd.Status) + ")", ""
	}
	if strings.HasPrefix(f.Kind, "unicorn-") {
		plain := func() Run { return Force(ctx, t, "") }
		forced := func() Verdict {
			vd, _ := v.force(ctx, t, f, w, o)
			return vd
		}
		return unicornControl(ctx, plain, forced, runs)
	}
	rev := recorded(o, w)
	for range 2 {
		*runs++
		vd, _ := v.force(ctx, t, f, w, rev)
		switch {
		case vd.Status == finding.Confirmed || strings.Contains(vd.Reason, "the test failed"):
			return "the test failed with the recorded order forced too", ""
		case vd.Status != finding.NotConfirmed:
			return "the recorded order of the same steps could not be forced to compare (" + string(vd.Status) + ": " + vd.Reason + ")", ""
		}
	}
	return "", ""
}

// Bounds of unicornControl: plain runs stop at controlPassed passes or
// maxPlainRuns runs; at most maxForcedRuns forced runs, of which
// control's two are the first.
const (
	controlPassed = 2
	maxPlainRuns  = 6
	maxForcedRuns = 8
	// chanceLevel is how likely it may be that every forced run failed
	// by the plain failure rate alone.
	chanceLevel = 0.05
)

// unicornControl compares the forced order's failures with runs of the
// test without a plan. A test whose bug shows in some plain runs (the
// order also happens by itself: mysqllog's recorded runs failed 13 of 20)
// made the old rule, two plain runs that must both pass, refuse most true
// confirmations by luck. So the plain runs go on until two pass (at most
// maxPlainRuns); if none failed, the confirmation stands as before. If
// some failed, the plain failure rate q is estimated from them, and the
// forced order must fail in k runs in a row where q^k is at most
// chanceLevel (control's two runs count): a rate of 1 in 3 asks for 3,
// 1 in 2 for 5. A test that fails in every plain run, or so often that
// more than maxForcedRuns would be needed, is refused. plain runs the test
// once without a plan, forced once under the order; ctx is their budget.
func unicornControl(ctx context.Context, plain func() Run, forced func() Verdict, runs *int) (why, note string) {
	nplain, failed := 0, 0
	var failure []byte
	dir := "" // the test package's, for failReason
	for nplain-failed < controlPassed && nplain < maxPlainRuns {
		if ctx.Err() != nil {
			return "the validation budget ran out in the runs without a plan", ""
		}
		*runs++
		nplain++
		if r := plain(); r.Outcome.Failed() {
			failed++
			failure, dir = r.Output, r.Dir
		}
	}
	need, ok := forcedRuns(failed, nplain)
	switch {
	case failed == nplain:
		return fmt.Sprintf("the test failed without a plan too, in all %d runs (%s)", nplain, failReason(failure, dir)), ""
	case !ok:
		return fmt.Sprintf("the test failed without a plan in %d of %d runs (%s), too often for %d forced runs to tell the order's failures from chance", failed, nplain, failReason(failure, dir), maxForcedRuns), ""
	}
	for n := 2; n < need; n++ {
		*runs++
		vd := forced()
		if vd.Status != finding.Confirmed && ctx.Err() != nil {
			return fmt.Sprintf("the test failed without a plan in %d of %d runs (%s), and the validation budget ran out after %d of the %d forced runs that must fail", failed, nplain, failReason(failure, dir), n, need), ""
		}
		if vd.Status != finding.Confirmed {
			return fmt.Sprintf("the test failed without a plan in %d of %d runs (%s), and forced run %d of the order did not fail (%s)", failed, nplain, failReason(failure, dir), n+1, vd.Status.Words()), ""
		}
	}
	if failed == 0 {
		return "", ""
	}
	return "", fmt.Sprintf("the test also failed without a plan in %d of %d runs, and under the order in all %d", failed, nplain, need)
}

// forcedRuns returns how many forced runs in a row must fail when failed
// of plain runs without a plan failed: the least k (at least 2) with
// (failed/plain)^k at most chanceLevel; ok is false if that is more than
// maxForcedRuns or every plain run failed.
func forcedRuns(failed, plain int) (k int, ok bool) {
	if failed == 0 {
		return 2, true
	}
	if failed >= plain {
		return 0, false
	}
	q := float64(failed) / float64(plain)
	k = max(2, int(math.Ceil(math.Log(chanceLevel)/math.Log(q)-1e-9)))
	return k, k <= maxForcedRuns
}

// recorded returns the control order of o: its Control if it has one,
// else every edge reversed, the order the recording saw. Reversed, a step inside a critical section may wait
// for a Lock of the same mutex in another goroutine, which cannot come
// while the waiter holds it; that goroutine waits at the section's Lock
// instead, as lifted orders do (mysqllog's, loadscript's and vector's
// controls deadlocked until the wait gave up, and their confirmations
// were dropped as "could not be forced to compare").
func recorded(o Order, w finding.Witness) Order {
	if o.Control != nil {
		return Order{What: "the same critical sections one goroutine after the other", Edges: o.Control, Seed: o.Seed}
	}
	rev := Order{What: "the recorded order of the same steps", Together: o.Together, Seed: o.Seed}
	for _, e := range o.Edges {
		rev.Edges = append(rev.Edges, plan.Edge{Before: e.After, After: e.Before})
	}
	if l := lifted([]Order{rev}, w); len(l) > 0 {
		rev.Edges = l[0].Edges
	}
	return rev
}

// goroutineRef is a goroutine's logical id in a reason from the shim:
// "goroutine 6835529406168699047" or a step's "(g 6835529406168699047,".
var goroutineRef = regexp.MustCompile(`(\bgoroutine|\(g) (\d+)\b`)

// nameGoroutines replaces the logical ids of the witness w's goroutines in
// a reason (64-bit hashes of a goroutine's spawn chain, which mean nothing
// to a reader) by what the goroutine did in the witness: "the goroutine of
// the write at cache.go:120", the role and position of its first event
// there, as reports name goroutines. Ids of goroutines outside the witness
// stay.
func nameGoroutines(reason string, w finding.Witness, sites *trace.SiteTable) string {
	names := make(map[uint64]string)
	used := make(map[string]int)
	for _, e := range w.Events {
		if _, ok := names[e.G]; ok || e.Role == "" {
			continue
		}
		name := "the goroutine of the " + e.Role
		if s, ok := sites.Lookup(e.Site); ok {
			name += fmt.Sprintf(" at %s:%d", filepath.Base(s.File), s.Line)
		}
		if used[name]++; used[name] > 1 {
			name += fmt.Sprintf(" #%d", used[name])
		}
		names[e.G] = name
	}
	return goroutineRef.ReplaceAllStringFunc(reason, func(m string) string {
		sub := goroutineRef.FindStringSubmatch(m)
		id, err := strconv.ParseUint(sub[2], 10, 64)
		if err != nil || names[id] == "" {
			return m
		}
		if sub[1] == "(g" {
			return "(" + names[id]
		}
		return names[id]
	})
}

var siteRef = regexp.MustCompile(`\bsite (\d+)\b`)

// nameSites adds the position of each site the reason names by ID.
func nameSites(reason string, sites *trace.SiteTable) string {
	if sites == nil {
		return reason
	}
	return siteRef.ReplaceAllStringFunc(reason, func(m string) string {
		id, err := strconv.ParseUint(m[len("site "):], 10, 32)
		if err != nil {
			return m
		}
		s, ok := sites.Lookup(uint32(id))
		if !ok {
			return m
		}
		return fmt.Sprintf("%s (%s:%d)", m, filepath.Base(s.File), s.Line)
	})
}

// readControl reads the result file at path of a run under plan p: nil
// and no error if the run wrote none.
func readControl(path string, p *plan.Plan) (*control.Result, error) {
	res, err := control.ReadResultFile(path, p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return res, err
}

// Force runs the test of t once under the plan file planPath and returns
// what it did, without the control result (the caller knows where the plan
// puts it).
func Force(ctx context.Context, t Target, planPath string) Run {
	ctx, cancel := context.WithTimeout(ctx, t.Timeout)
	defer cancel()
	cmd := proc.Command(ctx, t.Binary, t.Args...)
	cmd.Dir = t.Dir
	cmd.Env = os.Environ()
	if g := plan.Godebug(os.Getenv("GODEBUG"), t.Marks); g != "" {
		cmd.Env = append(cmd.Env, "GODEBUG="+g)
	}
	cmd.Env = append(cmd.Env, t.Env...)
	if planPath != "" {
		cmd.Env = append(cmd.Env, plan.EnvVar+"="+planPath)
	}
	out, err := cmd.CombinedOutput()
	r := Run{Output: out, Outcome: record.Classify(out, err), Dir: t.Dir}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		r.Killed = true
	}
	return r
}
