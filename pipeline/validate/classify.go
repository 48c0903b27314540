package validate

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/detect/races"
	"github.com/precog-dev/precog/pipeline/control"
	"github.com/precog-dev/precog/pipeline/failure"
	"github.com/precog-dev/precog/pipeline/record"
	"github.com/precog-dev/precog/shim/plan"
)

// At returns the first of frames (a crash's stack, innermost first) at one
// of sites (same file and line): the crash happened there or in a call made
// there. Failing that, it returns the first frame in a site's function and
// file: a deferred call (defer wg.Done()) runs at the function's return,
// whose line the frame shows.
func At(frames []failure.Frame, sites []finding.Site) (failure.Frame, bool) {
	for _, fr := range frames {
		for _, s := range sites {
			if s.File != "" && fr.File == s.File && fr.Line == s.Line {
				return fr, true
			}
		}
	}
	for _, fr := range frames {
		for _, s := range sites {
			// The deferred call ran at a return after its defer
			// statement: a frame above the site's line is another
			// statement of the function.
			if s.File != "" && s.Function != "" && fr.File == s.File && fr.Line >= s.Line && strings.HasSuffix(fr.Func, "."+s.Function) {
				return fr, true
			}
		}
	}
	return failure.Frame{}, false
}

// Expected reports whether a crash with message msg is the effect a
// finding of kind names. Kinds whose effect is any failure (a wrong value
// that a later assertion catches) accept every message.
func Expected(kind string, fatal bool, msg string) bool {
	has := func(subs ...string) bool {
		for _, s := range subs {
			if strings.Contains(msg, s) {
				return true
			}
		}
		return false
	}
	switch kind {
	case "con-null":
		return !fatal && (has("nil pointer dereference", "invalid memory address", "nil map", "nil channel") || nilAssert(msg))
	case "con-index":
		return !fatal && has("index out of range", "slice bounds out of range")
	case "con-map":
		return fatal && has("concurrent map")
	case "con-closed":
		// A send on or close of a closed channel; a use of a released
		// buffer or pooled object fails however its code fails.
		return !fatal || has("concurrent map")
	}
	return true // con-uninit, oscs, unicorn-p*: any failure at the site
}

// ExpectedOf is Expected for finding f, with what its sites' roles say
// of the crash: a Done that runs before its Add makes the WaitGroup's
// counter negative, so only the WaitGroup's own panic is that effect (a
// nil dereference in the Done's function is something else).
func ExpectedOf(f finding.Finding, fatal bool, msg string) bool {
	if !Expected(f.Kind, fatal, msg) {
		return false
	}
	for _, s := range f.Sites {
		if s.Role == finding.RoleDone {
			return strings.Contains(msg, "WaitGroup")
		}
	}
	return true
}

// happened reports whether the steps of order o that must come before a
// crash for it to be the order's effect happened in the run whose control
// result is c, and if not, why: every edge's Before step was done (the
// shim recorded it passed, or it was reached once its own predecessors
// were done, so it was let go: a release that panics, a Done making the
// counter negative, never returns to be recorded passed), and every
// group of Together steps was reached in full (the last arrival lets
// them all go). The After steps need not have come: the crash may be
// the first of them, or come before the last. A Before step that its
// goroutine never reached because it panicked first (a "panicked" line:
// the shim keeps the held goroutines held then) counts as done: the crash
// came on the way to it, while its successors waited (a section forced
// first that panics before its Unlock). A run whose shim wrote a
// final line happened only if it was confirmed: a wait that gave up lets
// every held goroutine go, and what crashes after that is a run without
// the order. The records are written as the steps happen, so a step the
// file names came before the crash.
func happened(o Order, c *control.Result) (bool, string) {
	if c == nil {
		return false, "the test wrote no control result"
	}
	if c.Final {
		if c.State == plan.Confirmed {
			return true, ""
		}
		return false, "the order did not hold: " + c.State + ": " + c.Reason
	}
	passed := make(map[plan.Point]bool)
	reached := make(map[plan.Point]bool)
	for _, rec := range c.Records {
		if rec.Point == nil {
			continue
		}
		p := plan.Point{G: rec.Point.G, Site: rec.Point.Site, N: rec.Point.N}
		switch rec.Event {
		case plan.EvPassed:
			passed[p] = true
		case plan.EvReached, plan.EvPanicked:
			reached[p] = true
		}
	}
	preds := make(map[plan.Point][]plan.Point)
	for _, e := range o.Edges {
		a := plan.Point{G: e.After.G, Site: e.After.Site, N: e.After.N}
		preds[a] = append(preds[a], plan.Point{G: e.Before.G, Site: e.Before.Site, N: e.Before.N})
	}
	memo := make(map[plan.Point]bool)
	var done func(p plan.Point) bool
	done = func(p plan.Point) bool {
		if v, ok := memo[p]; ok {
			return v
		}
		memo[p] = false // the shim rejects cycles; this ends one anyway
		v := passed[p] || reached[p]
		for _, q := range preds[p] {
			v = v && (passed[p] || done(q))
		}
		memo[p] = v
		return v
	}
	for _, e := range o.Edges {
		b := plan.Point{G: e.Before.G, Site: e.Before.Site, N: e.Before.N}
		if !done(b) {
			what := "never reached"
			if reached[b] {
				what = "reached, but still held"
			}
			return false, fmt.Sprintf("step %s, which the order puts first, was %s", pointString(b), what)
		}
	}
	for _, grp := range o.Together {
		for _, p := range grp {
			if b := (plan.Point{G: p.G, Site: p.Site, N: p.N}); !reached[b] && !passed[b] {
				return false, fmt.Sprintf("step %s of the steps released together was never reached", pointString(b))
			}
		}
	}
	return true, ""
}

func pointString(p plan.Point) string {
	return fmt.Sprintf("(g %d, site %d, n %d)", p.G, p.Site, p.N)
}

// effectIn reports whether a test's failure line names the runtime error
// of kind's crash: the message of a panic the test recovered and
// reported.
func effectIn(kind, line string) bool {
	var subs []string
	switch kind {
	case finding.ConNull:
		subs = []string{"nil pointer dereference", "invalid memory address", "assignment to entry in nil map"}
	case finding.ConIndex:
		subs = []string{"index out of range", "slice bounds out of range"}
	case finding.ConClosed:
		subs = []string{"send on closed channel", "close of closed channel"}
	}
	for _, s := range subs {
		if strings.Contains(line, s) {
			return true
		}
	}
	return kind == finding.ConNull && nilAssert(line)
}

// nilAssert reports whether msg is the runtime error of a type assertion
// (without comma-ok) on a nil interface, "interface conversion: interface
// {} is nil, not *T": the dereference of a nil that an interface carries
// (atomic.Value's and sync.Map's Load return one).
func nilAssert(msg string) bool {
	i := strings.Index(msg, "interface conversion: ")
	return i >= 0 && strings.Contains(msg[i:], " is nil, not ")
}

// failAllowed reports whether a test failure without a crash at a site
// can confirm a finding of kind: for the kinds whose effect is a wrong
// value rather than a crash (an uninitialized read, an atomicity or order
// violation), when the forced order was followed to its end.
func failAllowed(kind string) bool {
	return kind == "con-uninit" || kind == "oscs" || strings.HasPrefix(kind, "unicorn-")
}

// A Run is what one forced run of a test did.
type Run struct {
	Output  []byte
	Outcome record.Outcome
	// Dir is the test package's directory (Target.Dir), whose files tell
	// the lines that t.Log wrote from those that reported a failure.
	Dir string
	// Killed: the run went past its time bound and was killed.
	Killed bool
	// Control is the shim's result file read back; nil if the run wrote
	// none, or if it could not be read (ControlErr says why).
	Control    *control.Result
	ControlErr error
}

// A Verdict is the classification of one forced run.
type Verdict struct {
	Status finding.Status
	Effect string // for Confirmed: panic, fatal, hang or test-failed
	Reason string
	// Stuck: a wait of the shim gave up, the step it waited for never
	// came: trying the same order again is likely to end the same way.
	Stuck bool
	// MaxWait is the longest time a goroutine was held back at a step.
	MaxWait time.Duration
	// Passed: the order held and the test passed (a NotConfirmed that
	// the run's trace may explain).
	Passed bool
	// Apart, for a data race whose order names both accesses as steps,
	// says why the run is no evidence of the race: its two accesses did
	// not touch one piece of memory (other memory, or one address in
	// two GC epochs), or the run did not say what one of them touched.
	// "" if they touched one piece of memory, or the order does not
	// name both (a lifted order).
	Apart string
	// Elsewhere says that Apart's run named what both accesses touched,
	// and it was different memory; false when Apart says the run did not
	// tell (no control result, no address for a step), which is no
	// evidence either way.
	Elsewhere bool
	// Crashed says that the run crashed at a site with the effect of the
	// kind, and was not confirmed because its accesses were apart.
	Crashed bool
}

// Classify classifies one run of the test forced into order o for finding
// f. recordedPassed says whether the witness's recorded run passed: a bare
// test failure confirms nothing otherwise.
func Classify(f finding.Finding, o Order, r Run, recordedPassed bool) Verdict {
	v := classify(f, o, r, recordedPassed)
	if r.Control != nil {
		for _, rec := range r.Control.Records {
			if rec.Event == plan.EvPassed {
				v.MaxWait = max(v.MaxWait, time.Duration(rec.WaitUS)*time.Microsecond)
			}
		}
	}
	return v
}

func classify(f finding.Finding, o Order, r Run, recordedPassed bool) Verdict {
	v := classifyRun(f, o, r, recordedPassed)
	if f.Kind != races.Kind {
		return v
	}
	a, b, ok := raceSteps(f, o)
	if !ok {
		return v
	}
	v.Apart, v.Elsewhere = apart(f, a, b, r.Control)
	if v.Apart != "" && v.Status == finding.Confirmed {
		// A crash at a site is no evidence of a race between two
		// accesses that touched different memory; it is still a
		// crash, which the race's status must not hide (Validator.race).
		v.Status, v.Effect, v.Crashed = finding.NotConfirmed, "", true
		v.Reason = "the run crashed (" + v.Reason + "), but " + v.Apart
	}
	return v
}

// raceSteps returns the two accesses of data race f that order o names as
// steps: the points of its edges, or of its groups released together, at
// the race's sites. A lifted order, which holds a goroutine at the Lock
// before its access, names one or none.
func raceSteps(f finding.Finding, o Order) (a, b plan.Point, ok bool) {
	at := make(map[uint32]bool)
	for _, s := range f.Sites {
		at[s.ID] = true
	}
	var pts []plan.Point
	add := func(p plan.Point) {
		if p = (plan.Point{G: p.G, Site: p.Site, N: p.N}); at[p.Site] && !slices.Contains(pts, p) {
			pts = append(pts, p)
		}
	}
	for _, e := range o.Edges {
		add(e.Before)
		add(e.After)
	}
	for _, g := range o.Together {
		for _, p := range g {
			add(p)
		}
	}
	if len(pts) != 2 {
		return plan.Point{}, plan.Point{}, false
	}
	return pts[0], pts[1], true
}

// apart says why the forced accesses a and b of data race f are no
// evidence of it in the run whose control result is c, or "" if they
// touched one piece of memory: the same address, in the same GC epoch as
// the shim counted them when each step arrived. The race checker pairs
// accesses by address within an epoch (detect/races), so the order of the
// two sites alone proves nothing: with goroutines' stacks left out of the
// trace, a heap address reused after a collection, or a slice's element
// at another index in the forced run, runs the sites in both orders on
// different memory (go-memdb's watch.go:118). The epoch lags the
// collection (shim/epoch.go), so memory freed and reused just before the
// count moved is not caught. elsewhere is true when the run named both
// accesses' memory and it differed, false when it did not say.
func apart(f finding.Finding, a, b plan.Point, c *control.Result) (why string, elsewhere bool) {
	if c == nil {
		return "the run wrote no control result to say what memory the accesses touched", false
	}
	name := func(p plan.Point) string {
		for _, s := range f.Sites {
			if s.ID == p.Site {
				return fmt.Sprintf("the %s at %s", s.Role, shortPos(s))
			}
		}
		return fmt.Sprintf("the access at site %d", p.Site)
	}
	nameA, nameB := name(a), name(b)
	if nameA == nameB {
		// One site, two goroutines.
		nameB = "the other goroutine's " + strings.TrimPrefix(nameB, "the ")
	}
	addrA, epA, okA := c.Touched(a)
	addrB, epB, okB := c.Touched(b)
	switch {
	case !okA || !okB:
		missing := nameA
		if okA {
			missing = nameB
		}
		if c.Version < plan.ResultVersion {
			return fmt.Sprintf("the shim's control result (version %d) names no addresses, so the run does not say what memory %s touched", c.Version, missing), false
		}
		return fmt.Sprintf("the run does not say what memory %s touched (its step was not reached)", missing), false
	case addrA != addrB:
		return fmt.Sprintf("the accesses touched different memory: %s at %#x, %s at %#x", nameA, addrA, nameB, addrB), true
	case epA != epB:
		return fmt.Sprintf("the accesses touched one address, %#x, but %s in GC epoch %d and %s in epoch %d: a collection between them may have freed the memory and reused it", addrA, nameA, epA, nameB, epB), true
	}
	return "", false
}

func classifyRun(f finding.Finding, o Order, r Run, recordedPassed bool) Verdict {
	// A timeout's "panic: test timed out" counts as a panic here, as the
	// runtime prints it. A run that passed did not crash, whatever its
	// output holds (record's Classify: a child process's panic that the
	// test logged).
	if c := failure.First(r.Output); c != nil && r.Outcome.Failed() {
		fatal := c.Kind == failure.Fatal
		what := "panic"
		if fatal {
			what = "fatal"
		}
		if fr, ok := At(c.Goroutine.Frames, f.Sites); ok && ExpectedOf(f, fatal, c.Message) {
			crash := fmt.Sprintf("%s: %s, at %s:%d in %s", prefix(fatal), c.Message, base(fr.File), fr.Line, fr.Func)
			if ok, why := happened(o, r.Control); !ok {
				// The crash came before the order it would confirm:
				// from the forced run's other path (a worker that
				// found no task because its producer was held), not
				// from the predicted interleaving.
				return Verdict{Status: finding.Diverged, Stuck: true,
					Reason: fmt.Sprintf("the run crashed before the forced order happened (%s): %s", crash, why)}
			}
			return Verdict{Status: finding.Confirmed, Effect: what, Reason: crash}
		}
		if fatal && strings.Contains(c.Message, "deadlock") && held(r.Control) && failAllowed(f.Kind) && recordedPassed {
			return Verdict{Status: finding.Confirmed, Effect: "hang",
				Reason: fmt.Sprintf("with %s, every goroutine blocked: %s", o.What, c.Message)}
		}
	}
	if r.Control != nil && r.Control.State == plan.Rejected {
		return Verdict{Status: finding.Diverged, Reason: "the shim rejected the plan: " + r.Control.Reason}
	}
	if r.Killed {
		return Verdict{Status: finding.TimedOut, Reason: "the forced run went past its time bound and was killed"}
	}
	if r.Control == nil {
		if r.ControlErr != nil {
			return Verdict{Status: finding.Diverged, Reason: "the control result could not be read: " + r.ControlErr.Error()}
		}
		return Verdict{Status: finding.Diverged, Reason: "the test wrote no control result: it did not start the shim"}
	}
	switch r.Control.State {
	case plan.Diverged, plan.TimedOut:
		return Verdict{Status: finding.Diverged, Reason: diverged(r.Control.Reason), Stuck: r.Control.State == plan.TimedOut}
	}
	// The order held.
	switch {
	case r.Outcome == record.Timeout && failAllowed(f.Kind) && recordedPassed:
		return Verdict{Status: finding.Confirmed, Effect: "hang", Reason: fmt.Sprintf("with %s, the test hung until its timeout%s", o.What, hungAt(r.Output, r.Dir))}
	case r.Outcome == record.Fail && failAllowed(f.Kind) && recordedPassed:
		return Verdict{Status: finding.Confirmed, Effect: "test-failed",
			Reason: fmt.Sprintf("with %s, the test failed where its recorded run passed: %s", o.What, failReason(r.Output, r.Dir))}
	case r.Outcome == record.Fail && recordedPassed && effectIn(f.Kind, failLine(r.Output, r.Dir)):
		// A test that recovers the panic and reports it: no stack
		// places it, so it is a bare failure, checked as one
		// (Validator.control).
		return Verdict{Status: finding.Confirmed, Effect: "test-failed",
			Reason: fmt.Sprintf("with %s, the test failed with the effect of %s in its message (a recovered panic) where its recorded run passed: %s", o.What, f.Kind, failReason(r.Output, r.Dir))}
	case r.Outcome.Failed():
		how := failReason(r.Output, r.Dir)
		if c := failure.First(r.Output); c != nil {
			how = prefix(c.Kind == failure.Fatal) + ": " + c.Message
			if frs := c.Goroutine.Frames; len(frs) > 0 {
				how += fmt.Sprintf(" at %s:%d", base(frs[0].File), frs[0].Line)
			}
		}
		return Verdict{Status: finding.NotConfirmed, Reason: fmt.Sprintf("with %s, the test failed, but not at a predicted site with the effect of %s: %s", o.What, f.Kind, how)}
	}
	return Verdict{Status: finding.NotConfirmed, Reason: fmt.Sprintf("with %s, the test passed", o.What), Passed: true}
}

// held reports whether the control result says the forced order held.
func held(r *control.Result) bool { return r != nil && r.State == plan.Confirmed }

// diverged turns the shim's reason into the sentence of a diverged
// finding: the point that never came.
func diverged(reason string) string {
	if reason == "" {
		return "the forced order could not be reached"
	}
	return "the forced order could not be reached: " + reason
}

// failLine is the first line of a test's output that says how it failed:
// a line a _test.go file logged that a t.Log did not write (the test's
// goroutines, and code under test logging through its logger, write those
// before and after the failure; dir is the test package's directory, see
// failure.LogCalls), or the runtime's panic or fatal error.
func failLine(out []byte, dir string) string {
	t, _ := failAt(out, dir)
	return t
}

// failAt returns failLine's line and the lines of out after it.
func failAt(out []byte, dir string) (string, []string) {
	lines := strings.Split(string(out), "\n")
	calls := failure.NewLogCalls(dir)
	for i, line := range lines {
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- FAIL") || strings.HasPrefix(t, "FAIL") || strings.HasPrefix(t, "--- PASS") {
			continue
		}
		if strings.HasPrefix(t, "panic:") || strings.HasPrefix(t, "fatal error:") {
			return t, lines[i+1:]
		}
		if l, ok := failure.ParseLog(strings.TrimRight(line, "\r")); ok && strings.HasSuffix(l.File, "_test.go") && !calls.Wrote(l) {
			return t, lines[i+1:]
		}
	}
	return "no failure message", nil
}

// failReason is failLine as a reason shows it: a t.Error line whose
// message starts on the lines below (testify's assertions print
// "x_test.go:12: " and then their message, indented) gets the headline of
// that message (failure.Headline). failLine itself, which effectIn reads,
// stays the line.
func failReason(out []byte, dir string) string {
	t, rest := failAt(out, dir)
	i := strings.LastIndex(t, "_test.go:")
	if i < 0 || strings.Trim(t[i+len("_test.go:"):], "0123456789") != ":" {
		return t // not a log line with nothing after its position
	}
	var msg []string
	for _, l := range rest {
		// The message's lines are indented more than a log line's
		// four spaces; the next log line or --- FAIL ends it.
		if !strings.HasPrefix(l, "        ") && strings.TrimSpace(l) != "" {
			break
		}
		msg = append(msg, l)
	}
	if _, head := failure.Headline(msg); head != "" {
		return t + " " + head
	}
	return t
}

// hungAt says where a timed-out run's goroutines were, from the dump the
// timeout printed: for each goroutine in the user's code, what it waited
// on and its innermost frame there (the test's goroutine, and those of the
// code under test), ", blocked: chan send at x_test.go:206 in
// (*T).f.func1; sync.Mutex.Lock at x_test.go:198 in (*T).f". A hang a
// forced order causes may come from a cycle elsewhere than the finding's
// sites (sturdyc's channel send under a lock): the reason then shows it.
// "" when the dump names no goroutine in the user's code.
func hungAt(out []byte, dir string) string {
	const most = 4
	var where []string
	count := map[string]int{}
	for _, g := range failure.TimedOut(out) {
		fr, ok := userFrame(g.Frames, dir)
		state := g.State()
		if !ok || state == "" || state == "running" {
			continue
		}
		w := fmt.Sprintf("%s at %s:%d in %s", state, base(fr.File), fr.Line, fr.Short())
		if count[w] == 0 {
			where = append(where, w)
		}
		count[w]++
	}
	if len(where) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(", blocked: ")
	for i, w := range where[:min(len(where), most)] {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(w)
		if n := count[w]; n > 1 {
			fmt.Fprintf(&b, " (%d goroutines)", n)
		}
	}
	if len(where) > most {
		fmt.Fprintf(&b, "; and %d more", len(where)-most)
	}
	return b.String()
}

// userFrame returns the innermost frame of frames in the user's code: in
// a file of the test package's directory dir, or a function of a package
// whose import path begins with a domain (the standard library's do not),
// the shim's left out.
func userFrame(frames []failure.Frame, dir string) (failure.Frame, bool) {
	for _, fr := range frames {
		if dir != "" && filepath.Dir(fr.File) == filepath.Clean(dir) {
			return fr, true
		}
		if !finding.StdPackage(fr.Package()) && !fr.InShim() {
			return fr, true
		}
	}
	return failure.Frame{}, false
}

func prefix(fatal bool) string {
	if fatal {
		return "fatal error"
	}
	return "panic"
}

func base(file string) string {
	if i := strings.LastIndexByte(file, '/'); i >= 0 {
		return file[i+1:]
	}
	return file
}
