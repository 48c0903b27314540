package predict

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/pipeline/control"
	"github.com/precog-dev/precog/pipeline/failure"
	"github.com/precog-dev/precog/pipeline/record"
	"github.com/precog-dev/precog/shim/trace"
)

// TestAbsorbNeedsOrder checks that a crash of a recorded run at a
// finding's site confirms the finding only when the run's trace shows the
// finding's order before the crash (kernel crashorder's shape): a resize
// on a goroutine of its own writes a size, the test goroutine sleeps,
// then reads it and panics. The trace shows the write before the read
// (the goroutine's end took a seq before the test's wake), so a race
// between them, one of whose orders that is, is confirmed; con-uninit's
// order, the read before the write, did not happen, and it stays
// predicted.
func TestAbsorbNeedsOrder(t *testing.T) {
	const write, read, sleep = 30, 33, 5
	evs := []trace.Event{
		{Goroutine: 1, Kind: trace.EvSleep, Site: sleep, Seq: 1},
		{Goroutine: 2, Kind: trace.EvBegin, Seq: 2},
		{Goroutine: 2, Kind: trace.EvWrite, Site: write, Seq: 2, Sub: 1},
		{Goroutine: 2, Kind: trace.EvEnd, Seq: 3},
		{Goroutine: 1, Kind: trace.EvWake, Site: sleep, Seq: 4},
		{Goroutine: 1, Kind: trace.EvRead, Site: read, Seq: 4, Sub: 1},
	}
	sites := []finding.Site{
		{ID: read, Role: "read", File: "/k/crashorder.go", Line: 33, Function: "(*Pool).Last"},
		{ID: write, Role: "init", File: "/k/crashorder.go", Line: 30, Function: "(*Pool).Resize"},
	}
	wRead := finding.Event{Role: "read", G: 1, Site: read, Index: 5}
	wWrite := finding.Event{Role: "init", G: 2, Site: write, Index: 2}
	uninit := finding.Finding{Kind: "con-uninit", Status: finding.Predicted, Sites: sites,
		Witnesses: []finding.Witness{{Events: []finding.Event{wRead, wWrite}}}}
	race := finding.Finding{Kind: "race", Status: finding.Predicted,
		Sites:     []finding.Site{{ID: write, Role: "write", File: sites[1].File, Line: 30}, {ID: read, Role: "read", File: sites[0].File, Line: 33}},
		Witnesses: []finding.Witness{{Events: []finding.Event{{Role: "write", G: 2, Site: write, Index: 2}, {Role: "read", G: 1, Site: read, Index: 5}}}}}
	crash := &finding.Finding{Kind: finding.Crash, Status: finding.Confirmed, Validation: &finding.Validation{Reason: "happened in the recorded run: panic: runtime error: index out of range [7] with length 4"}}
	fl := &failure.Failure{Kind: failure.Panic, Message: "runtime error: index out of range [7] with length 4"}
	fl.Goroutine.Frames = []failure.Frame{{Func: "k/crashorder.(*Pool).Last", File: "/k/crashorder.go", Line: 33}}
	found := []finding.Finding{uninit, race}
	if !absorb(found, crash, fl, evs, control.Points(evs)) {
		t.Fatal("the crash confirmed nothing; want the race")
	}
	if found[0].Status != finding.Predicted {
		t.Errorf("con-uninit is %s (%s); want predicted: the trace shows the write before the read", found[0].Status, found[0].Validation.Reason)
	}
	if found[1].Status != finding.Confirmed {
		t.Errorf("the race is %s; want confirmed: the trace shows the write before the read", found[1].Status)
	}

	// Without the goroutine's end, nothing orders the write before the
	// read in the trace: neither order is shown, and nothing is confirmed.
	unordered := []trace.Event{evs[0], evs[1], evs[2], evs[4], evs[5]}
	race.Witnesses[0].Events[1].Index = 4
	found = []finding.Finding{race}
	if absorb(found, crash, fl, unordered, control.Points(unordered)) || found[0].Status != finding.Predicted {
		t.Errorf("the race is %s with no order in the trace; want predicted", found[0].Status)
	}
}

// TestFailureSites checks where a failed test's finding points. The
// testing package prints only a file's base name: one in the test's
// package is found there; a helper's in another package is found by the
// full path in its message (testify's Error Trace: failsafe-go's
// internal/testutil/tester.go reported "test/tester.go", a file that does
// not exist); a name neither gives, and a failure with no t.Error line
// at all (goconvey's own report, then t.Fail), and a process that exited
// non-zero after its tests passed, point at the test's declaration, and the latter's message says why it has none (it read
// "TestX failed: " at an empty position). The validation's reason is
// the message's one line that says what failed: a testify assertion's
// Error line, not its Error Trace.
func TestFailureSites(t *testing.T) {
	root := t.TempDir()
	pkg := filepath.Join(root, "test")
	helper := filepath.Join(root, "internal", "testutil", "tester.go")
	for file, src := range map[string]string{
		filepath.Join(pkg, "x_test.go"): "package test\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) {\n\tt.Fail()\n}\n",
		helper:                          "package testutil\n",
	} {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name, out, file string
		line            int
		message         string
		reason          string // Validation.Reason
		env             string // Validation.Environment
	}{
		{"own file", "    x_test.go:6: want 1\n--- FAIL: TestX (0.00s)\n", filepath.Join(pkg, "x_test.go"), 6, "TestX failed: want 1", "want 1", ""},
		{"helper's file", "    tester.go:202: \n        \tError Trace:\t" + helper + ":202\n        \t            \t\t\t\t" + filepath.Join(pkg, "x_test.go") + ":6\n        \tError:      \tNot equal\n--- FAIL: TestX (0.00s)\n",
			helper, 202, "TestX failed: \n\tError Trace:\t" + helper, "Not equal", ""},
		{"unknown file", "    other.go:9: bad\n--- FAIL: TestX (0.00s)\n", filepath.Join(pkg, "x_test.go"), 5, "TestX failed: bad", "bad", ""},
		{"no message", "  a thing \n    is two ✘\n\nFailures:\n\n  * " + filepath.Join(pkg, "x_test.go") + " \n  Line 12:\n  Expected: 3\n  Actual:   2\n\n--- FAIL: TestX (0.00s)\n",
			filepath.Join(pkg, "x_test.go"), 5, "TestX failed: " + noMessage, noMessage, ""},
		{"exit after PASS", "--- PASS: TestX (0.00s)\nPASS\n", filepath.Join(pkg, "x_test.go"), 5, "TestX's process exited: its tests passed, then the process exited non-zero", "its tests passed, then the process exited non-zero (TestMain after m.Run, an os.Exit, or a check the test binary makes at its end)", ""},
		{"refused", "    x_test.go:6: dial tcp 127.0.0.1:4150: connect: connection refused\n--- FAIL: TestX (0.00s)\n", filepath.Join(pkg, "x_test.go"), 6,
			"TestX failed: dial tcp", "dial tcp 127.0.0.1:4150: connect: connection refused", "a refused connection to this machine, whose service was not running or not listening yet: dial tcp 127.0.0.1:4150: connect: connection refused"},
	} {
		log := filepath.Join(root, c.name+".log")
		if err := os.WriteFile(log, []byte("=== RUN   TestX\n"+c.out+"FAIL\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		f, _ := failureOf(root, "example.com/test.TestX", runFile{log: filepath.Base(log), outcome: record.Fail}, pkg, func(string) bool { return false })
		if f == nil {
			t.Errorf("%s: no finding", c.name)
			continue
		}
		if s := f.Sites[0]; s.File != c.file || s.Line != c.line {
			t.Errorf("%s: site %s:%d; want %s:%d", c.name, s.File, s.Line, c.file, c.line)
		}
		if !strings.HasPrefix(f.Message, c.message) {
			t.Errorf("%s: message %q; want it to begin %q", c.name, f.Message, c.message)
		}
		if want := "happened in the recorded run: " + c.reason; f.Validation.Reason != want {
			t.Errorf("%s: reason %q; want %q", c.name, f.Validation.Reason, want)
		}
		if f.Validation.Environment != c.env {
			t.Errorf("%s: environment %q; want %q", c.name, f.Validation.Environment, c.env)
		}
	}
}

// TestStopNote checks the note of a run that the recording budget stopped:
// where the test's goroutine was, from the stacks the testing package's
// timeout printed (failure's timeout.txt, a real test binary's), where
// its log is (kept with -o) or how to keep it, and what precog did when
// the process printed none (it was killed). A stopped run is no failure
// unless it deadlocked: timeout.txt's test waits on a WaitGroup for a
// worker blocked on a channel, a hang in the unperturbed run, not
// confirmed until a run without recording times out too; the same stacks
// with the worker asleep or in a select (it may wait for a timer), with
// the test's goroutine in a select, or with a dependency's goroutine in a
// system call (a child process it waits for), a perturbed run's, and a run
// killed without stacks are none (the controls).
func TestStopNote(t *testing.T) {
	dir := timeoutLogs(t)
	user := func(file string) bool { return strings.Contains(file, "/kernels/crashhang/") }
	const name = "precog.example/kernels/crashhang.TestStop"
	const note = name + ": still running 30s after -record-budget was spent, stopped as -timeout stops a test, in (*Pool).Stop at crashhang.go:33 (its log has every goroutine's stack: "
	for _, c := range []struct {
		log  string
		n    int
		kept bool
		want string
		hang bool
	}{
		{"dump.log", 0, false, note + "precog test -o DIR keeps it); analysed up to there", true},
		{"dump.log", 0, true, note + filepath.Join(dir, "dump.log") + "); analysed up to there", true},
		{"dump.log", 1, false, strings.Replace(note, ": still", " (run 1): still", 1) + "precog test -o DIR keeps it); analysed up to there", false},
		{"worker.log", 0, false, note + "precog test -o DIR keeps it); analysed up to there", false},
		{"asleep.log", 0, false, note + "precog test -o DIR keeps it); analysed up to there", false},
		{"select.log", 0, false, note + "precog test -o DIR keeps it); analysed up to there", false},
		{"syscall.log", 0, false, note + "precog test -o DIR keeps it); analysed up to there", false},
		{"killed.log", 2, false, name + " (run 2): still running 30s after -record-budget was spent, stopped as -timeout stops a test (it did not end at its -test.timeout and was killed)", false},
	} {
		r := runFile{n: c.n, log: c.log, outcome: record.Stopped}
		if got := stopNote(dir, name, r, user, c.kept); got != c.want {
			t.Errorf("%s run %d:\n got %s\nwant %s", c.log, c.n, got, c.want)
		}
		f, _ := failureOf(dir, name, r, dir, user)
		switch {
		case c.hang && f == nil:
			t.Errorf("%s run %d: a deadlocked stopped run gave no hang", c.log, c.n)
		case c.hang && (f.Kind != finding.Crash || f.Status != finding.NotConfirmed || f.Validation.Effect != "hang" || !strings.Contains(f.Message, "every goroutine of its code blocked") || f.Sites[0].Line != 33):
			t.Errorf("%s run %d: %s %s %q at line %d, want a hang at crashhang.go:33", c.log, c.n, f.Kind, f.Validation.Effect, f.Message, f.Sites[0].Line)
		case !c.hang && f != nil:
			t.Errorf("%s run %d: a stopped run gave the failure %q", c.log, c.n, f.Message)
		}
	}
}

// TestFailureNote checks the one line that says in which runs a test
// failed, CFP's cheap run included; a test that failed in none has none.
func TestFailureNote(t *testing.T) {
	const name = "example.com/a.TestA"
	runs := func(os ...record.Outcome) []runFile {
		var rs []runFile
		for i, o := range os {
			rs = append(rs, runFile{n: i, outcome: o})
		}
		return rs
	}
	for _, c := range []struct {
		runs  []runFile
		cheap record.Outcome
		want  string
	}{
		{runs(record.Pass), "", ""},
		{runs(record.Stopped), "", ""},
		{runs(record.Fail), "", name + ": fail when recorded"},
		{runs(record.Fail), record.Fail, name + ": fail in CFP's cheap run and when recorded"},
		{runs(record.Fail), record.Timeout, name + ": timeout in CFP's cheap run, fail when recorded"},
		{runs(record.Pass), record.Fail, name + ": fail in CFP's cheap run, pass when recorded again"},
		{runs(record.Pass, record.Fail, record.Panic), "", name + ": 2 of 3 runs failed (fail, panic)"},
		{runs(record.Pass, record.Fail), record.Fail, name + ": fail in CFP's cheap run; 1 of 2 recorded runs failed (fail)"},
		{runs(record.Pass, record.Pass), record.Exit, name + ": exit in CFP's cheap run; 0 of 2 recorded runs failed"},
	} {
		got := strings.Join(failureNote(name, c.runs, c.cheap), "\n")
		if got != c.want {
			t.Errorf("runs %v, cheap run %q:\n got %q\nwant %q", c.runs, c.cheap, got, c.want)
		}
	}
}

// TestSlowTimeout: a recorded run that timed out is a hang, confirmed as
// recorded, "stuck" where its goroutines all wait on each other
// (timeout.txt); where one of them was asleep or in a select, it says it
// timed out with its goroutines not all blocked, as a test only slower
// than -timeout does (vault's TestLifetimeWatcher, held-out rehearsal 44).
func TestSlowTimeout(t *testing.T) {
	dir := timeoutLogs(t)
	user := func(file string) bool { return strings.Contains(file, "/kernels/crashhang/") }
	const name = "precog.example/kernels/crashhang.TestStop"
	for log, want := range map[string]string{
		"dump.log":    "TestStop hung: test timed out after 3s, its goroutine stuck in (*Pool).Stop",
		"asleep.log":  "TestStop timed out: test timed out after 3s, its goroutines not all blocked (one running, asleep, in a select or in a system call: a test slower than -timeout ends so too); its goroutine was in (*Pool).Stop",
		"select.log":  "TestStop timed out: test timed out after 3s, its goroutines not all blocked (one running, asleep, in a select or in a system call: a test slower than -timeout ends so too); its goroutine was in (*Pool).Stop",
		"syscall.log": "TestStop timed out: test timed out after 3s, its goroutines not all blocked (one running, asleep, in a select or in a system call: a test slower than -timeout ends so too); its goroutine was in (*Pool).Stop",
	} {
		f, _ := failureOf(dir, name, runFile{log: log, outcome: record.Timeout}, dir, user)
		if f == nil || f.Kind != finding.Crash || f.Status != finding.Confirmed || f.Validation.Effect != "hang" || f.Message != want {
			t.Errorf("%s: %+v; want a confirmed hang %q", log, f, want)
		}
	}
}

// timeoutLogs writes, in a new directory it returns, test logs made of
// failure's timeout.txt (a real test binary's timeout: the test waits on
// a WaitGroup for a worker blocked on a channel): dump.log as it is, and
// the same stacks with the worker asleep (asleep.log), the test's
// goroutine in a select (select.log) or the worker in one (worker.log),
// the same with a goroutine of a dependency waiting for a child process
// in a system call (syscall.log), and a run killed before it printed any
// (killed.log).
func timeoutLogs(t *testing.T) string {
	t.Helper()
	dump, err := os.ReadFile(filepath.Join("..", "failure", "testdata", "timeout.txt"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, out := range map[string][]byte{
		"dump.log":   dump,
		"killed.log": []byte("=== RUN   TestStop\n"),
		"asleep.log": bytes.Replace(dump, []byte("goroutine 26 [chan receive]"), []byte("goroutine 26 [sleep]"), 1),
		"select.log": bytes.Replace(dump, []byte("goroutine 25 [sync.WaitGroup.Wait]"), []byte("goroutine 25 [select]"), 1),
		"worker.log": bytes.Replace(dump, []byte("goroutine 26 [chan receive]"), []byte("goroutine 26 [select, 2 minutes]"), 1),
		"syscall.log": append(bytes.Clone(dump), []byte(`
goroutine 31 [syscall]:
syscall.Syscall6(0xf7, 0x3, 0x1b, 0xc0001b5c38, 0x1000004, 0x0, 0x0)
	/usr/local/go/src/syscall/syscall_linux.go:95 +0x39
os.(*Process).pidfdWait(0xc0000a8000?)
	/usr/local/go/src/os/pidfd_linux.go:106 +0x236
os/exec.(*Cmd).Wait(0xc0000c2000)
	/usr/local/go/src/os/exec/exec.go:922 +0x45
example.com/dep/driver.run.func1()
	/root/go/pkg/mod/example.com/dep@v1.0.0/driver/driver.go:40 +0x57
created by example.com/dep/driver.run in goroutine 26
	/root/go/pkg/mod/example.com/dep@v1.0.0/driver/driver.go:38 +0x9f
`)...),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
