package record

import (
	"errors"
	"flag"
	"io"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestTopLevel(t *testing.T) {
	for _, tc := range []struct{ pattern, top, sub string }{
		{"", "", ""},
		{"TestA", "TestA", ""},
		{"TestA/sub", "TestA", "sub"},
		{"TestA/sub/deeper", "TestA", "sub/deeper"},
		{"Test[/]x/y", "Test[/]x", "y"},
		{"Test(a/b)/y", "Test(a/b)", "y"},
		{`Test\/x/y`, `Test\/x`, "y"},
	} {
		top, sub := topLevel(tc.pattern)
		if top != tc.top || sub != tc.sub {
			t.Errorf("topLevel(%q) = %q, %q; want %q, %q", tc.pattern, top, sub, tc.top, tc.sub)
		}
	}
}

func TestRunPatternSelectsOnlyTheTest(t *testing.T) {
	p := runPattern("TestA", "")
	re := regexp.MustCompile(p)
	if !re.MatchString("TestA") || re.MatchString("TestAB") || re.MatchString("XTestA") {
		t.Errorf("runPattern(TestA) = %q selects the wrong tests", p)
	}
	if got := runPattern("TestA", "sub"); got != "^TestA$/sub" {
		t.Errorf("runPattern(TestA, sub) = %q", got)
	}
}

func TestGoTestFlags(t *testing.T) {
	fs := flag.NewFlagSet("record", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	g := DefineGoTestFlags(fs)
	err := fs.Parse([]string{"-tags=a,b", "-short", "-v", "-parallel=3", "-run=TestA/x", "-timeout=5s", "./p", "-args", "-x"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"-tags=a,b"}; !slices.Equal(g.Build, want) {
		t.Errorf("Build = %q, want %q", g.Build, want)
	}
	if want := []string{"-test.short=true", "-test.v=true", "-test.parallel=3"}; !slices.Equal(g.Test, want) {
		t.Errorf("Test = %q, want %q", g.Test, want)
	}
	if g.Run != "TestA/x" || g.Timeout != 5*time.Second {
		t.Errorf("Run = %q, Timeout = %v", g.Run, g.Timeout)
	}
	pkgs, args := SplitArgs(fs.Args())
	if !slices.Equal(pkgs, []string{"./p"}) || !slices.Equal(args, []string{"-x"}) {
		t.Errorf("SplitArgs = %q, %q", pkgs, args)
	}
}

func TestRefusedFlags(t *testing.T) {
	for _, arg := range []string{"-cover", "-coverpkg=./...", "-race", "-count=2", "-overlay=x.json", "-modfile=x.mod"} {
		fs := flag.NewFlagSet("record", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		DefineGoTestFlags(fs)
		err := fs.Parse([]string{arg})
		if err == nil {
			t.Errorf("%s accepted", arg)
			continue
		}
		if strings.Contains(err.Error(), "not defined") || strings.Count(err.Error(), "\n") > 0 {
			t.Errorf("%s: want one line saying why, got %q", arg, err)
		}
	}
}

func TestClassify(t *testing.T) {
	exit1 := &exec.ExitError{}
	for _, tc := range []struct {
		output string
		err    error
		want   Outcome
	}{
		{"=== RUN   TestA\n--- PASS: TestA (0.00s)\nPASS\n", nil, Pass},
		{"=== RUN   TestA\n--- SKIP: TestA (0.00s)\nPASS\n", nil, Skip},
		{"=== RUN   TestA\n--- FAIL: TestA (0.00s)\nFAIL\n", exit1, Fail},
		{"=== RUN   TestA\npanic: runtime error: invalid memory address or nil pointer dereference\n", exit1, Panic},
		{"=== RUN   TestA\nfatal error: concurrent map writes\n", exit1, Fatal},
		{"=== RUN   TestA\npanic: test timed out after 1s\n", exit1, Timeout},
		{"=== RUN   TestA\n", exit1, Exit},
		// The runtime's header after a line printed without a newline,
		// the goroutine dump after it.
		{"=== RUN   TestA\nhandshake: sent key, panic: boom\n\ngoroutine 7 [running]:\nexample.com/a.f()\n\t/a/a.go:3 +0x1d\n", exit1, Panic},
		{"=== RUN   TestA\nwaiting for the serverpanic: test timed out after 1s\n\trunning tests:\n\t\tTestA (1s)\n\ngoroutine 20 [running]:\n", exit1, Timeout},
		// Logged and printed text that holds "panic: ", no dump: the
		// t.Fatal's failure.
		{"=== RUN   TestA\n    a_test.go:5: recovered panic: inner\nnote: panic: a word\n    a_test.go:9: failed\n--- FAIL: TestA (0.00s)\nFAIL\n", exit1, Fail},
		{"", errors.New("exec: not found"), Exit},
		// A child process's panic, its stack copied by a logger, in the
		// output of a test that passed and exited 0, or failed: no
		// crash. Beside them, the same lines where the process died.
		{childPanic + "--- PASS: TestA (0.26s)\nPASS\n", nil, Pass},
		{childPanic + "    a_test.go:9: no panic in the log\n--- FAIL: TestA (0.26s)\nFAIL\n", exit1, Fail},
		{childPanic, nil, Pass},
		{childPanic, exit1, Panic},
	} {
		if got := classify([]byte(tc.output), tc.err); got != tc.want {
			t.Errorf("classify(%q) = %s, want %s", tc.output, got, tc.want)
		}
	}
}

// childPanic is the output of a test that starts a child process that
// panics and logs what the child wrote to its stderr, as go-plugin's
// TestServerLogPanic does.
const childPanic = "=== RUN   TestA\n" +
	"2026-11-30T21:24:53.828Z [ERROR] test-logger.a.test: panic: invalid foo bar\n" +
	"2026-11-30T21:24:53.828Z [ERROR] test-logger.a.test: \n" +
	"2026-11-30T21:24:53.828Z [ERROR] test-logger.a.test: goroutine 21 [running]:\n" +
	"2026-11-30T21:24:53.828Z [ERROR] test-logger.a.test: example.com/a.(*server).Panic(...)\n" +
	"2026-11-30T21:24:53.828Z [ERROR] test-logger.a.test: \t/a/a.go:3 +0x1d\n"

func TestExecName(t *testing.T) {
	for path, want := range map[string]string{
		"go.etcd.io/raft/v3":         "raft",
		"go.etcd.io/raft/v3/tracker": "tracker",
		"example.com/m/v1":           "v1",
		"example.com/m/v02":          "v02",
		"example.com/m/vx":           "vx",
		"precog.example/kernels/kb1": "kb1",
		"github.com/alitto/pond/v2":  "pond",
		"v2":                         "v2",
	} {
		if got := execName(path); got != want {
			t.Errorf("execName(%q) = %q, want %q", path, got, want)
		}
	}
}
