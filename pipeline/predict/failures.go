package predict

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/detect/races"
	"github.com/precog-dev/precog/pipeline/failure"
	"github.com/precog-dev/precog/pipeline/record"
	"github.com/precog-dev/precog/pipeline/validate"
	"github.com/precog-dev/precog/shim/plan"
	"github.com/precog-dev/precog/shim/trace"
)

// failureOf reads how run r of test name failed from its log in the
// recording dir, as a confirmed finding. pkgDir is the test package's
// directory; user reports whether a file is the user's code (instrumented,
// or in a recorded package) rather than the runtime's, the testing
// package's or the shim's.
//
// A run that recording's budget stopped (record.Stopped) is no failure,
// unless it is the unperturbed run and the stacks the testing package's
// timeout printed show it deadlocked (deadlocked): then it is a hang,
// not-confirmed until validation runs it again without recording
// (plainCheck) and that run times out too.
func failureOf(dir, name string, r runFile, pkgDir string, user func(string) bool) (*finding.Finding, *failure.Failure) {
	stopped := r.outcome == record.Stopped && r.n == 0
	if !r.outcome.Failed() && !stopped || r.log == "" {
		return nil, nil
	}
	out, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(r.log)))
	if err != nil {
		return nil, nil
	}
	test := name[strings.LastIndexByte(name, '.')+1:]
	fl := failure.Parse(out, test, pkgDir, true)
	if fl == nil || stopped && (fl.Kind != failure.Timeout || !deadlocked(fl, user)) {
		return nil, nil
	}
	f := &finding.Finding{Kind: finding.Crash, Status: finding.Confirmed, Tests: []string{name}}
	site := finding.Site{Role: string(fl.Kind), Expr: fl.Message}
	var effect string
	// slow: a timeout whose goroutines were not all blocked in the
	// stacks it printed: one ran, slept or waited in a select (vault's
	// TestLifetimeWatcher takes 73 s without precog: held-out
	// rehearsal 44), which a test only slower than -timeout shows too.
	slow := fl.Kind == failure.Timeout && !stopped && !deadlocked(fl, user)
	switch fl.Kind {
	case failure.Panic:
		effect = "panic"
		f.Message = fmt.Sprintf("%s panicked: %s", test, fl.Message)
	case failure.Fatal:
		effect = "fatal"
		f.Message = fmt.Sprintf("%s died of a fatal error: %s", test, fl.Message)
	case failure.Timeout:
		effect, site.Role = "hang", "hang"
		f.Message = fmt.Sprintf("%s hung: %s", test, fl.Message)
		if slow {
			f.Message = fmt.Sprintf("%s timed out: %s, its goroutines not all blocked (one running, asleep, in a select or in a system call: a test slower than -timeout ends so too)", test, fl.Message)
		}
		if stopped {
			// The recorded run failed nothing: precog stopped it. Only a
			// run without recording that times out confirms it
			// (plainCheck).
			f.Status = finding.NotConfirmed
			f.Message = fmt.Sprintf("%s hung: stopped at -record-budget with every goroutine of its code blocked", test)
		}
	case failure.Fail, failure.Exit:
		f.Kind, effect = finding.TestFailed, "test-failed"
		f.Message = fmt.Sprintf("%s failed: %s", test, failureLine(fl))
		if fl.Kind == failure.Exit {
			f.Message = fmt.Sprintf("%s's process exited: %s", test, fl.Message)
		}
	}
	if fl.Kind == failure.Fail {
		if l, ok := fl.Report(); ok {
			site.File, site.Line = logPath(pkgDir, l)
		}
	}
	if fr, ok := userFrame(fl.Goroutine.Frames, user); ok {
		site.File, site.Line, site.Function = fr.File, fr.Line, fr.Short()
		switch {
		case slow:
			f.Message += "; its goroutine was in " + site.Function
		case fl.Kind == failure.Timeout:
			f.Message += ", its goroutine stuck in " + site.Function
		}
	}
	if site.File == "" {
		// A failure whose output names no line precog can find (a t.Fail
		// with no report, a process that exited after its tests passed:
		// air's "-:" in held-out rehearsal 44) is the test's.
		site.File, site.Line = testDecl(pkgDir, test)
	}
	inDecl(&site)
	f.Sites = []finding.Site{site}
	if fs := fl.Goroutine.Frames; len(fs) > 0 {
		stack := make([]finding.Site, 0, len(fs))
		for i := len(fs) - 1; i >= 0; i-- {
			if fs[i].InShim() {
				continue // the shim's wrapper of a sync operation
			}
			stack = append(stack, finding.Site{File: fs[i].File, Line: fs[i].Line, Role: "call", Function: fs[i].Short()})
		}
		f.Stacks = [][]finding.Site{stack}
	}
	for _, g := range fl.Others {
		if fr, ok := userFrame(g.Frames, user); ok {
			f.Evidence.Notes = append(f.Evidence.Notes, fmt.Sprintf("%s at %s:%d in %s", g.Header, filepath.Base(fr.File), fr.Line, fr.Short()))
		}
	}
	where := "the recorded run"
	switch {
	case r.where != "":
		where = r.where
	case r.n > 0:
		where = fmt.Sprintf("perturbed run %d", r.n)
	}
	f.Validation = &finding.Validation{Effect: effect, Test: name, Runs: 1, Failed: 1,
		Reason: fmt.Sprintf("happened in %s: %s", where, failureHeadline(fl))}
	if env, ok := fl.Environment(); ok {
		f.Validation.Environment = env.What + ": " + env.Line
	} else if env, ok := fl.MissingTestdata(pkgDir); ok {
		f.Validation.Environment = env.What + ": " + env.Line
	}
	f.SetID()
	return f, fl
}

// deadlocked reports whether the goroutines of a test that recording's
// budget stopped, as the testing package's timeout printed them in fl,
// were blocked for good as far as their states tell: the test's own
// goroutine and every other goroutine in the user's code (user) each in a
// channel send or receive or a sync operation, none in a select (which may
// wait for a timer: a worker ticking in a select is slow, not stuck), none
// running, runnable, asleep or in a system call (posthog's
// TestClientMaxConcurrentRequests: Close waiting for an upload goroutine
// blocked sending on the test's full channel, held-out rehearsal 27). A
// goroutine of code precog does not see may still be about to send: the
// runs without recording decide (plainCheck). failureOf also asks it of a
// run that timed out, to say whether the test hung or may only be slow.
//
// A goroutine of any code in a system call (waiting for a child process, a
// blocking read of a file) makes it no deadlock either: the test's
// goroutines may wait for it, through code of a dependency (go-containerregistry's
// TestDeps, stopped by CFP's cheap run's budget while golang.org/x/tools'
// packages.Load waited for go list, held-out rehearsal 56). A network
// wait is not a system call ([IO wait]: a test server's accept loop).
func deadlocked(fl *failure.Failure, user func(string) bool) bool {
	if !blocked(fl.Goroutine.State()) {
		return false
	}
	for _, g := range fl.Others {
		if g.State() == "syscall" {
			return false
		}
		if _, ok := userFrame(g.Frames, user); ok && !blocked(g.State()) {
			return false
		}
	}
	return true
}

// blocked reports whether a goroutine in state (failure.Goroutine.State)
// waits for another goroutine in a channel or sync operation.
func blocked(state string) bool {
	return strings.HasPrefix(state, "chan send") || strings.HasPrefix(state, "chan receive") ||
		strings.HasPrefix(state, "sync.") || state == "semacquire"
}

// stopNote says where run r of test name was when the recording budget
// stopped it (record.Stopped): the innermost frame of the user's code on
// the test's goroutine, in the stacks that the testing package's timeout
// printed into its log, which holds every goroutine's: the note gives the
// log's path if dir is kept, else says how to keep it.
func stopNote(dir, name string, r runFile, user func(string) bool, kept bool) string {
	what := name
	if r.n > 0 {
		what = fmt.Sprintf("%s (run %d)", name, r.n)
	}
	what += fmt.Sprintf(": still running %v after -record-budget was spent, stopped as -timeout stops a test", record.StopGrace)
	out, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(r.log)))
	if err != nil {
		return what
	}
	fl := failure.Parse(out, name[strings.LastIndexByte(name, '.')+1:], "", true)
	if fl == nil || fl.Kind != failure.Timeout {
		return what + " (it did not end at its -test.timeout and was killed)"
	}
	if fr, ok := userFrame(fl.Goroutine.Frames, user); ok {
		what += fmt.Sprintf(", in %s at %s:%d", fr.Short(), filepath.Base(fr.File), fr.Line)
	}
	log := "precog test -o DIR keeps it"
	if kept {
		log = filepath.Join(dir, filepath.FromSlash(r.log))
	}
	return what + " (its log has every goroutine's stack: " + log + "); analysed up to there"
}

// failureLine says what failed, as go test printed it.
func failureLine(fl *failure.Failure) string {
	switch fl.Kind {
	case failure.Panic:
		return "panic: " + fl.Message
	case failure.Fatal:
		return "fatal error: " + fl.Message
	case failure.Timeout:
		return "panic: " + fl.Message
	case failure.Fail:
		if fl.Message == "" {
			return noMessage
		}
	}
	return fl.Message
}

// failureHeadline is failureLine cut to the line that says what failed
// (failure.Headline's): a validation's reason is one line, where a
// testify assertion's message spreads its Error Trace, Error and Test
// over many (the finding's message keeps them all).
func failureHeadline(fl *failure.Failure) string {
	line := failureLine(fl)
	if _, head := failure.Headline(strings.Split(line, "\n")); head != "" {
		return head
	}
	return line
}

// noMessage says what a test that failed without a t.Error or t.Fatal
// line did: a framework such as goconvey prints its own report and calls
// t.Fail, so the failure has no message and no line of its own.
const noMessage = "no t.Error or t.Fatal message (the test printed its own report: the reproducer's go test -v shows it)"

// logPath returns the file and line of a test's log line. The testing
// package prints only the base name of the file that called t.Error: one
// in the test's package, or a helper's in another package that the test
// calls (failsafe-go's internal/testutil/tester.go, for its package test),
// which the message may name in full (a testify assertion's Error Trace
// lists absolute paths). A base name that neither gives is not guessed:
// file is "".
func logPath(pkgDir string, l failure.Log) (file string, line int) {
	p := filepath.Join(pkgDir, l.File)
	if _, err := os.Stat(p); err == nil {
		return p, l.Line
	}
	at := ":" + strconv.Itoa(l.Line)
	for _, field := range strings.Fields(l.Text) {
		path, ok := strings.CutSuffix(field, at)
		if ok && filepath.IsAbs(path) && filepath.Base(path) == l.File {
			return path, l.Line
		}
	}
	return "", 0
}

// testDecl returns where the top-level test is declared in the package
// directory pkgDir: the site of a failure whose report names no line
// precog can find. It returns "" if no _test.go file declares it.
func testDecl(pkgDir, test string) (string, int) {
	files, _ := filepath.Glob(filepath.Join(pkgDir, "*_test.go"))
	for _, file := range files {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == test {
				return file, fset.Position(fd.Pos()).Line
			}
		}
	}
	return "", 0
}

// userFrame returns the innermost frame of the user's code.
func userFrame(frames []failure.Frame, user func(string) bool) (failure.Frame, bool) {
	for _, fr := range frames {
		if user(fr.File) {
			return fr, true
		}
	}
	return failure.Frame{}, false
}

// userFiles returns the predicate failureOf takes: a file is the user's if
// the site table has sites in it or it is in a recorded package's
// directory.
func userFiles(sites *trace.SiteTable, ix *record.Index) func(string) bool {
	files := make(map[string]bool)
	for _, s := range sites.Sites {
		files[s.File] = true
	}
	dirs := make(map[string]bool)
	for _, p := range ix.Packages {
		dirs[p.Dir] = true
	}
	return func(file string) bool { return files[file] || dirs[filepath.Dir(file)] }
}

// absorb makes a finding predicted in a run that crashed, at a site where
// the crash happened (in the goroutine's stack) and with the effect its
// kind names, the crash itself: one finding, confirmed by the run, if the
// run's trace evs (pts: their points, control.Points) shows that the
// finding's predicted order happened before the crash (shownOrder). A
// finding whose order the trace does not show stays predicted, and
// validation forces it as any other: a crash at its site is not evidence
// that its interleaving, rather than another path to that site, made it.
// absorb reports whether a finding was confirmed by the crash.
func absorb(found []finding.Finding, crash *finding.Finding, fl *failure.Failure, evs []trace.Event, pts []plan.Point) bool {
	if fl.Kind != failure.Panic && fl.Kind != failure.Fatal {
		return false
	}
	absorbed := false
	for i := range found {
		f := &found[i]
		fr, ok := validate.At(fl.Goroutine.Frames, f.Sites)
		if !ok || !validate.ExpectedOf(*f, fl.Kind == failure.Fatal, fl.Message) {
			continue
		}
		what, ok := shownOrder(*f, evs, pts)
		if !ok {
			continue
		}
		v := *crash.Validation
		v.Reason += fmt.Sprintf(", at %s:%d in %s; the run's trace shows the finding's order before it: %s", filepath.Base(fr.File), fr.Line, fr.Short(), what)
		f.Status, f.Validation, f.Repro = finding.Confirmed, &v, crash.Repro
		absorbed = true
	}
	return absorbed
}

// shownOrder returns the first order of finding f (validate.Orders, for a
// witness of f in the trace evs) that the trace shows happened, in words,
// or false if it shows none: every edge's first step came before its
// second (seqBefore), and the steps of each group released together
// overlapped (neither shown before the other). Every event of the trace
// came before the crash that ended the run.
func shownOrder(f finding.Finding, evs []trace.Event, pts []plan.Point) (string, bool) {
	for _, w := range f.Witnesses {
		orders, err := validate.Orders(f, w)
		if err != nil {
			continue
		}
		need := make(map[plan.Point]int)
		for _, o := range orders {
			for _, e := range o.Edges {
				need[bare(e.Before)], need[bare(e.After)] = -1, -1
			}
			for _, grp := range o.Together {
				for _, p := range grp {
					need[bare(p)] = -1
				}
			}
		}
		for i, p := range pts {
			if p.Site == 0 {
				continue
			}
			if _, ok := need[bare(p)]; ok {
				need[bare(p)] = i
			}
		}
		for _, o := range orders {
			if f.Kind == races.Kind && len(o.Edges) == 0 {
				// A race's accesses held at once: any two the
				// trace cannot order look so, which is what made
				// the race a prediction; its adjacent orders are
				// what a crash's trace can show.
				continue
			}
			if shown(o, evs, need) {
				return o.What, true
			}
		}
	}
	return "", false
}

// shown reports whether the trace evs shows that order o happened; at maps
// each step to its event's index (-1 if the trace has none).
func shown(o validate.Order, evs []trace.Event, at map[plan.Point]int) bool {
	if len(o.Edges) == 0 && len(o.Together) == 0 {
		return false
	}
	for _, e := range o.Edges {
		a, b := at[bare(e.Before)], at[bare(e.After)]
		if a < 0 || b < 0 || !seqBefore(evs, a, b) {
			return false
		}
	}
	for _, grp := range o.Together {
		for i, p := range grp {
			a := at[bare(p)]
			if a < 0 {
				return false
			}
			for _, q := range grp[i+1:] {
				b := at[bare(q)]
				if b < 0 || seqBefore(evs, a, b) || seqBefore(evs, b, a) {
					return false
				}
			}
		}
	}
	return true
}

// seqBefore reports whether the trace evs (in trace.ReadAll's order) shows
// that event a happened before event b: in program order on one goroutine;
// across goroutines, if a sync event of a's goroutine at or after a took a
// seq below b's (a sync event's own, or for an access or function event
// its goroutine's last sync event's), since sync events take their seq
// from one counter as they happen. Plain accesses of two goroutines with
// no sync event between them have no known order. As everywhere in the
// trace, a release recorded before it happens (an Unlock, a WaitGroup's
// Done) has the seq of its record.
func seqBefore(evs []trace.Event, a, b int) bool {
	g := evs[a].Goroutine
	if g == evs[b].Goroutine {
		return a < b
	}
	for j := a; j < len(evs); j++ {
		if evs[j].Goroutine == g && evs[j].Kind.IsSync() {
			return evs[j].Seq < evs[b].Seq
		}
	}
	return false
}

func bare(p plan.Point) plan.Point { return plan.Point{G: p.G, Site: p.Site, N: p.N} }

// goTestRepro is the command that runs a test again under go test, for a
// failure of its recorded run, with go test's flags before -run.
func goTestRepro(importPath, test string, flags ...string) string {
	cmd := "go test "
	for _, f := range flags {
		cmd += f + " "
	}
	return cmd + "-run '^" + test + "$' " + importPath
}

// inDecl sets the function declaration of a site read from a stack, from
// its file's source, so that its finding's ID counts the line from there
// as for the sites of the site table. A file that does not parse leaves
// the site as it is.
func inDecl(s *finding.Site) {
	if s.File == "" || s.Line <= 0 {
		return
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, s.File, nil, parser.SkipObjectResolution)
	if err != nil {
		return
	}
	tf := fset.File(f.Pos())
	if s.Line > tf.LineCount() {
		return
	}
	finding.InDecl(s, fset, f, tf.LineStart(s.Line))
}
