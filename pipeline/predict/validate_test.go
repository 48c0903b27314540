package predict

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/pipeline/record"
	"github.com/precog-dev/precog/pipeline/validate"
)

// TestStoppedTarget checks the bound of a forced run of a witness from a
// run that -record-budget stopped: its recorded time and the plan's waits
// with some slack, not three times that, since the test would run on to
// any bound; a witness from a run that ended keeps three times its time
// (the control), and both stay within -timeout.
func TestStoppedTarget(t *testing.T) {
	ix := &record.Index{Packages: []*record.Package{{ImportPath: "example.com/p", Dir: "/m/p", Tests: []*record.Test{
		{Name: "TestStress", Outcome: record.Stopped, Wall: 90 * time.Second},
		{Name: "TestEnded", Outcome: record.Pass, Wall: 90 * time.Second},
	}}}}
	for _, c := range []struct {
		test    string
		timeout time.Duration
		want    string
	}{
		{"TestStress", 10 * time.Minute, "-test.timeout=1m40s"},
		{"TestEnded", 10 * time.Minute, "-test.timeout=4m40s"},
		{"TestStress", time.Minute, "-test.timeout=1m0s"},
	} {
		o := Options{Flags: &record.GoTestFlags{Timeout: c.timeout}}
		tg, ok := target(o, "/bin", ix, finding.Witness{Test: "example.com/p." + c.test})
		if !ok || !slices.Contains(tg.Args, c.want) {
			t.Errorf("%s, -timeout %v: arguments %v, want %s", c.test, c.timeout, tg.Args, c.want)
		}
	}
}

// TestHangPlainBound checks the bound of a hang's runs without recording
// (f40869c): go test's -timeout (ten minutes when it says none), not the
// recorded run's: a test that -record-budget stopped after 90 s, or one
// whose recorded run was short while its cheap run waited on a timer, is
// a hang only if go test would time out too. Another failure's plain runs
// (the control) keep the recorded run's bound.
func TestHangPlainBound(t *testing.T) {
	ix := &record.Index{Packages: []*record.Package{{ImportPath: "example.com/p", Dir: "/m/p", Tests: []*record.Test{
		{Name: "TestStress", Outcome: record.Stopped, Wall: 90 * time.Second},
	}}}}
	res := &Result{Index: ix, cheap: &cheapRuns{}}
	for _, c := range []struct {
		timeout time.Duration
		hang    bool
		want    string
	}{
		{10 * time.Minute, false, "-test.timeout=1m40s"},
		{10 * time.Minute, true, "-test.timeout=10m0s"},
		{0, true, "-test.timeout=10m0s"},
		{3 * time.Minute, true, "-test.timeout=3m0s"},
	} {
		o := Options{Flags: &record.GoTestFlags{Timeout: c.timeout}}
		tg, pkg, ok := plainTarget(o, "/bin", res, "example.com/p.TestStress", c.hang)
		if !ok || pkg != "example.com/p" || !slices.Contains(tg.Args, c.want) || !slices.Contains(tg.Args, "-test.run=^TestStress$") {
			t.Errorf("-timeout %v, hang %v: %+v of %q, %v; want %s", c.timeout, c.hang, tg, pkg, ok, c.want)
		}
		if bound, _ := time.ParseDuration(strings.TrimPrefix(c.want, "-test.timeout=")); tg.Timeout < bound {
			t.Errorf("-timeout %v, hang %v: the run is killed after %v, before its own -test.timeout", c.timeout, c.hang, tg.Timeout)
		}
	}
	// A test stopped in CFP's cheap run and not recorded after it (the
	// mend's first case: a live test waiting on a timer) gets the same
	// bound for its hang, from the cheap run's binary.
	res.cheap.failed = map[string]cheapFailure{"example.com/q.TestWait": {pkg: "example.com/q", pkgDir: t.TempDir()}}
	o := Options{Flags: &record.GoTestFlags{}}
	tg, pkg, ok := plainTarget(o, "/bin", res, "example.com/q.TestWait", true)
	if !ok || pkg != "example.com/q" || !slices.Contains(tg.Args, "-test.timeout=10m0s") || tg.Timeout < 10*time.Minute {
		t.Errorf("a hang seen only in a cheap run: %+v of %q, %v; want -test.timeout=10m0s", tg, pkg, ok)
	}
}

// TestCheapOnlyPlainRuns checks that the failure of a test that failed in
// CFP's cheap run and was not recorded after it gets its runs without
// recording from the cheap run's binary: a test that passes there is not
// confirmed (recording's slowdown failed it), and one that fails again is
// confirmed. The binaries are shell scripts standing in for the test
// binaries record leaves in BinDir.
func TestCheapOnlyPlainRuns(t *testing.T) {
	binDir := t.TempDir()
	for pkg, script := range map[string]string{
		"example.com/slow":  "#!/bin/sh\necho PASS\nexit 0\n",
		"example.com/fails": "#!/bin/sh\necho '--- FAIL: TestX (0.00s)'\necho FAIL\nexit 1\n",
	} {
		bin := record.InstrumentedBinary(binDir, pkg)
		if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	res := &Result{Index: &record.Index{}, cheap: &cheapRuns{failed: map[string]cheapFailure{
		"example.com/slow.TestX":  {pkg: "example.com/slow", pkgDir: t.TempDir()},
		"example.com/fails.TestX": {pkg: "example.com/fails", pkgDir: t.TempDir()},
	}}}
	o := Options{Flags: &record.GoTestFlags{Timeout: time.Minute}}
	for test, want := range map[string]finding.Status{
		"example.com/slow.TestX":  finding.NotConfirmed,
		"example.com/fails.TestX": finding.Confirmed,
	} {
		tg, _, ok := plainTarget(o, binDir, res, test, false)
		if !ok || !slices.Contains(tg.Args, "-test.run=^TestX$") {
			t.Fatalf("%s: target %+v, %v", test, tg, ok)
		}
		f := &finding.Finding{Kind: finding.TestFailed, Status: finding.Confirmed, Tests: []string{test},
			Validation: &finding.Validation{Reason: "happened in CFP's cheap run (not recorded after it: -record-budget): slow"}}
		plainCheck(t.Context(), f, tg, ok, plainBinary{})
		if f.Status != want {
			t.Errorf("%s: %s after %d plain runs (%s), want %s", test, f.Status, f.Validation.Runs, f.Validation.Reason, want)
		}
	}
	if _, _, ok := plainTarget(o, binDir, res, "example.com/other.TestX", false); ok {
		t.Error("a test neither recorded nor failed in the cheap run has a target")
	}
}

// TestPlainBinary checks that the runs without recording use the test
// binary go test would build, not the instrumented one with the shim off: a
// test that fails only in the instrumented binary (a count of allocations
// that the calls into the shim change) is not confirmed, and a test that
// fails under go test too stays confirmed, and one in a package whose test
// files go test's vet refuses is built with -vet=off and reproduced with
// it. A test that fails alone but passes with its package's other tests
// in one process, as go test runs them, is not confirmed. Shell scripts
// that fail stand for the instrumented binaries; the module's own tests
// are built.
func TestPlainBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test -c")
	}
	mod := t.TempDir()
	for name, content := range map[string]string{
		"go.mod":      "module example.com/m\n\ngo 1.22\n",
		"p/p_test.go": "package p\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) {}\n",
		"q/q_test.go": "package q\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) { t.Fatal(\"fails under go test too\") }\n",
		// printf's check, which go test runs, refuses %d of a string.
		"v/v_test.go": "package v\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) { t.Fatalf(\"%d\", \"fails under go test -vet=off\") }\n",
		// i's TestX needs what TestSetup, before it, sets up: it fails
		// alone and passes under go test.
		"i/i_test.go": "package i\n\nimport \"testing\"\n\nvar ready bool\n\nfunc TestSetup(t *testing.T) { ready = true }\n\nfunc TestX(t *testing.T) {\n\tif !ready {\n\t\tt.Fatal(\"run TestSetup first\")\n\t}\n}\n",
	} {
		path := filepath.Join(mod, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	binDir := t.TempDir()
	ix := &record.Index{}
	for _, pkg := range []string{"p", "q", "v", "i"} {
		bin := record.InstrumentedBinary(binDir, "example.com/m/"+pkg)
		if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(bin, []byte("#!/bin/sh\necho '--- FAIL: TestX (0.00s)'\necho FAIL\nexit 1\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		ix.Packages = append(ix.Packages, &record.Package{ImportPath: "example.com/m/" + pkg, Dir: filepath.Join(mod, pkg),
			Tests: []*record.Test{{Name: "TestX", Outcome: record.Fail, Wall: time.Second}}})
	}
	res := &Result{Index: ix}
	o := Options{Dir: mod, Flags: &record.GoTestFlags{Timeout: time.Minute}}
	plain := newPlainBuilds(o, t.TempDir())
	for test, want := range map[string]struct {
		status finding.Status
		vet    bool // go test's vet refuses the package
	}{
		"example.com/m/p.TestX": {finding.NotConfirmed, false},
		"example.com/m/q.TestX": {finding.Confirmed, false},
		"example.com/m/v.TestX": {finding.Confirmed, true},
		"example.com/m/i.TestX": {finding.NotConfirmed, false},
	} {
		tg, pkg, ok := plainTarget(o, binDir, res, test, false)
		if !ok || pkg != strings.TrimSuffix(test, ".TestX") {
			t.Fatalf("%s: target %+v of package %q, %v", test, tg, pkg, ok)
		}
		tg, pb := plain.uninstrumented(t.Context(), tg, pkg)
		if pb.path == "" {
			t.Fatalf("%s: package %s's test did not build", test, pkg)
		}
		if (pb.vetErr != nil) != want.vet {
			t.Errorf("%s: vet's refusal %v, want one: %v", test, pb.vetErr, want.vet)
		}
		f := &finding.Finding{Kind: finding.TestFailed, Status: finding.Confirmed, Tests: []string{test},
			Repro:      goTestRepro(pkg, "TestX"),
			Validation: &finding.Validation{Reason: "happened in run 0: fails"}}
		if plainCheck(t.Context(), f, tg, ok, pb) {
			plain.alone(t.Context(), f, tg, pkg)
		}
		if f.Status != want.status {
			t.Errorf("%s: %s after %d runs without recording (%s), want %s", test, f.Status, f.Validation.Runs, f.Validation.Reason, want.status)
		}
		// Each failure that go test shows fails together too.
		if together := strings.Contains(f.Validation.Reason, "run together in one process too"); together != (want.status == finding.Confirmed) {
			t.Errorf("%s: reason %q", test, f.Validation.Reason)
		}
		if vetOff := strings.Contains(f.Repro, " -vet=off "); vetOff != (want.vet && want.status == finding.Confirmed) {
			t.Errorf("%s: reproducer %q", test, f.Repro)
		}
	}
}

// TestPlainChecksFirst checks that the failures the recorded runs showed
// get their runs without recording before the forced runs of the
// predictions: a SIGTERM (or a spent -validate-budget) during the forced
// runs left a test that fails only instrumented confirmed, and the job
// failed on it (fasthttp's allocation tests). The instrumented binaries are
// shell scripts: p's fails (as an allocation count does under the shim),
// s's, the forced run of a race, marks that it started and sleeps, and the
// test cancels the context when it starts, as a SIGTERM would. p's test
// passes as go test builds it: not confirmed. The control is the forced
// run itself, which must still have started.
func TestPlainChecksFirst(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test -c")
	}
	mod, binDir, out := t.TempDir(), t.TempDir(), t.TempDir()
	marker := filepath.Join(t.TempDir(), "forced")
	files := map[string]string{
		"go.mod":      "module example.com/m\n\ngo 1.22\n",
		"p/p_test.go": "package p\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) {}\n",
		"s/s_test.go": "package s\n\nimport \"testing\"\n\nfunc TestY(t *testing.T) {}\n",
		"sites.json":  `{"sites":[{"id":1,"file":"/m/s/s.go","line":3,"col":1,"kind":"read","function":"f","expr":"x"},{"id":2,"file":"/m/s/s.go","line":4,"col":1,"kind":"write","function":"g","expr":"x"}]}`,
	}
	for name, content := range files {
		dir := mod
		if name == "sites.json" {
			dir = out
		}
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for pkg, script := range map[string]string{
		"p": "#!/bin/sh\necho '--- FAIL: TestX (0.00s)'\necho FAIL\nexit 1\n",
		"s": "#!/bin/sh\ntouch " + marker + "\nsleep 60\n",
	} {
		bin := record.InstrumentedBinary(binDir, "example.com/m/"+pkg)
		if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ix := &record.Index{Sites: "sites.json", Packages: []*record.Package{
		{ImportPath: "example.com/m/p", Dir: filepath.Join(mod, "p"), Tests: []*record.Test{{Name: "TestX", Outcome: record.Fail, Wall: time.Second}}},
		{ImportPath: "example.com/m/s", Dir: filepath.Join(mod, "s"), Tests: []*record.Test{{Name: "TestY", Outcome: record.Pass, Wall: time.Second}}},
	}}
	failed := finding.Finding{ID: "aaaaaaaaaaaa", Kind: finding.TestFailed, Status: finding.Confirmed, Tests: []string{"example.com/m/p.TestX"},
		Validation: &finding.Validation{Reason: "happened in run 0: fails"}}
	race := finding.Finding{ID: "bbbbbbbbbbbb", Kind: finding.Race, Status: finding.Predicted, Tests: []string{"example.com/m/s.TestY"},
		Sites: []finding.Site{{File: "/m/s/s.go", Line: 3, Col: 1, Role: "read", ID: 1}, {File: "/m/s/s.go", Line: 4, Col: 1, Role: "write", ID: 2}},
		Witnesses: []finding.Witness{{Test: "example.com/m/s.TestY", Events: []finding.Event{
			{Role: "read", G: 1, Site: 1, Kind: "Read", Index: 3}, {Role: "write", G: 2, Site: 2, Kind: "Write", Index: 5}}}}}
	res := &Result{Index: ix, Findings: []finding.Finding{failed, race}, unforced: map[string]bool{failed.ID: true}}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() {
		for ctx.Err() == nil {
			if _, err := os.Stat(marker); err == nil {
				cancel() // a SIGTERM during the forced runs
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	o := Options{Dir: mod, Flags: &record.GoTestFlags{Timeout: time.Minute}, Validate: &ValidateOptions{Parallel: 1, Budget: 5 * time.Minute}}
	var lines []string
	progress := newTracker(func(p Progress) {
		if len(lines) == 0 || lines[len(lines)-1] != p.Line {
			lines = append(lines, p.Line)
		}
	})
	if err := validateAll(ctx, o, out, binDir, res, progress); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("the race's forced run did not start: %v", err)
	}
	if want := "validating: running 1 failed test again without instrumentation"; len(lines) == 0 || lines[0] != want {
		t.Errorf("progress lines %q, want the first %q", lines, want)
	}
	if f := res.Findings[0]; f.Status != finding.NotConfirmed || strings.Contains(f.Validation.Reason, "validation was stopped") {
		t.Errorf("the failure of %s: %s after %d runs without recording (%s), want %s", f.Tests[0], f.Status, f.Validation.Runs, f.Validation.Reason, finding.NotConfirmed)
	}
}

// TestPlainCheckStopped: a recorded failure whose runs without recording
// were stopped before they told it apart (validation interrupted) stays
// confirmed and says that it was not checked (TestPlainChecksFirst is the
// control: checked, it says nothing of the kind).
func TestPlainCheckStopped(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	f := &finding.Finding{Kind: finding.TestFailed, Status: finding.Confirmed, Tests: []string{"example.com/m/p.TestX"},
		Validation: &finding.Validation{Reason: "happened in run 0: fails"}}
	plainCheck(ctx, f, validate.Target{}, true, plainBinary{})
	if want := "; validation was stopped before its runs without recording were done (0 of 2 passed)"; f.Status != finding.Confirmed || !strings.Contains(f.Validation.Reason, want) {
		t.Errorf("stopped before its plain runs: %s, %q; want confirmed, saying %q", f.Status, f.Validation.Reason, want)
	}
}

// TestSpentOn: the note that validation's budget ran out names the tests
// whose findings took a third of its time or more, the largest first; when
// none did (the time spread over many tests), it names none.
func TestSpentOn(t *testing.T) {
	res := func(spent ...any) []validate.Result {
		var rs []validate.Result
		for i := 0; i < len(spent); i += 2 {
			rs = append(rs, validate.Result{Validation: finding.Validation{Test: spent[i].(string), WallNs: int64(spent[i+1].(int)) * int64(time.Second)}})
		}
		return rs
	}
	for _, c := range []struct {
		results []validate.Result
		want    string
	}{
		{res("p.TestSlow", 35, "p.TestSlow", 35, "p.TestA", 10, "p.TestB", 20), "; most of its time went to the findings of p.TestSlow (70%, 2 findings) (leave a test out with -skip, or give validation more time)"},
		{res("p.TestA", 40, "p.TestB", 35, "p.TestC", 25), "; most of its time went to the findings of p.TestA (40%, 1 finding) and p.TestB (35%, 1 finding) (leave a test out with -skip, or give validation more time)"},
		{res("p.TestA", 25, "p.TestB", 25, "p.TestC", 25, "p.TestD", 25), ""},
		{res("", 10), ""},
		{nil, ""},
	} {
		if got := spentOn(c.results); got != c.want {
			t.Errorf("spentOn =\n%q, want\n%q", got, c.want)
		}
	}
}

// TestClearRepro: the schedules an earlier precog test left in the output
// directory's repro directory go once, before the first round (a later
// round's validation adds to them); a repro directory elsewhere (the
// cache's, shared by every run) stays.
func TestClearRepro(t *testing.T) {
	out := t.TempDir()
	old := ReproFile(filepath.Join(out, "repro"), "0123456789ab")
	if err := os.MkdirAll(filepath.Dir(old), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(old, []byte("{}"), 0o666); err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(t.TempDir(), "repro")
	for _, o := range []Options{
		{Out: out, Validate: &ValidateOptions{ReproDir: cache}},
		{Out: out},
		{Validate: &ValidateOptions{ReproDir: filepath.Join(out, "repro")}},
	} {
		if err := clearRepro(o); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(old); err != nil {
			t.Fatalf("clearRepro(%+v) removed the output directory's schedules: %v", o, err)
		}
	}
	if err := clearRepro(Options{Out: out, Validate: &ValidateOptions{ReproDir: filepath.Join(out, "repro")}}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("the earlier schedule is still there: %v", err)
	}
}
