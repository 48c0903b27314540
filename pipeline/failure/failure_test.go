package failure

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func parseFile(t *testing.T, name, test string, exited bool) *Failure {
	t.Helper()
	out, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return Parse(out, test, "", exited)
}

// top returns the innermost frame of f's goroutine as base:line in func.
func top(f *Failure) string {
	if len(f.Goroutine.Frames) == 0 {
		return ""
	}
	fr := f.Goroutine.Frames[0]
	return fmt.Sprintf("%s:%d %s", filepath.Base(fr.File), fr.Line, fr.Func)
}

func TestParse(t *testing.T) {
	for _, c := range []struct {
		file, test    string
		kind          Kind
		msg, top, log string
		frames        int
	}{
		{"goroutine-panic.txt", "TestLast", Panic, "runtime error: index out of range [2] with length 2",
			"crashpanic.go:27 precog.example/kernels/crashpanic.(*Registry).Nth", "", 2},
		{"mapwrites.txt", "TestFill", Fatal, "concurrent map writes",
			"panic.go:1181 internal/runtime/maps.fatal", "", 2},
		{"subtest-panic.txt", "TestBoom", Panic, "assignment to entry in nil map",
			"testing.go:1974 testing.tRunner.func1.2", "a_test.go:5: x", 5},
		{"timeout.txt", "TestStop", Timeout, "test timed out after 3s",
			"sema.go:114 sync.runtime_SemacquireWaitGroup", "", 6},
		{"fatalf.txt", "TestCount", Fail, "count = 6, want 3", "", "crashfail_test.go:17: count = 6, want 3", 0},
		{"subtest-error.txt", "TestSub", Fail, "bad 1", "", "a_test.go:8: bad 1", 0},
		// Real output of test binaries run as precog record runs them
		// (-test.v; s_test.go's tests): the runtime's header after a
		// line the test printed without a newline.
		{"midline-panic.txt", "TestGoroutinePanicMidLine", Panic, "runtime error: index out of range [2] with length 2",
			"s_test.go:12 example.com/shapes.(*reg).nth", "", 2},
		{"midline-timeout.txt", "TestHangNoNewline", Timeout, "test timed out after 1s",
			"s_test.go:60 example.com/shapes.TestHangNoNewline", "", 2},
		{"midline-deadlock.txt", "TestHangNoNewline", Fatal, "all goroutines are asleep - deadlock!",
			"testing.go:2109 testing.(*T).Run", "", 6},
		// A line the test printed that looks like a header, and the real
		// one after it: the one the goroutine dump follows.
		{"fake-then-real.txt", "TestFakeThenReal", Panic, "assignment to entry in nil map",
			"testing.go:1974 testing.tRunner.func1.2", "", 5},
		// The negative control: "panic: " inside logged and printed
		// lines, and a t.Fatal: a failed test, not a panic.
		{"logged-panic.txt", "TestLoggedPanic", Fail, "handshake failed", "", "s_test.go:45: handshake failed", 0},
		// A child process's panic and stack, copied into the test's
		// output by a logger, and the test's t.Fatal after it: a failed
		// test (go-plugin's TestServerLogPanic, run as goplugin.test
		// where it looks for go-plugin.test in the log).
		{"child-panic.txt", "TestServerLogPanic", Fail, "failed to find panic in error log output", "",
			"client_test.go:1608: failed to find panic in error log output", 0},
		// With GODEBUG=tracebackancestors (precog's runs set it), the
		// ancestors' stacks at the creations follow the goroutine's own
		// frames: not its frames.
		{"ancestors-panic.txt", "TestAncestors", Panic, "runtime error: index out of range [2] with length 2",
			"s_test.go:10 example.com/shapes.(*reg).nth", "", 3},
		// Killed by SIGQUIT mid-line: the signal, not a register of the
		// dump.
		{"quit.txt", "TestSleep", Exit, "SIGQUIT: quit", "", "", 0},
	} {
		t.Run(c.file, func(t *testing.T) {
			f := parseFile(t, c.file, c.test, true)
			if f == nil {
				t.Fatal("no failure")
			}
			if f.Kind != c.kind || f.Message != c.msg {
				t.Errorf("got %s %q, want %s %q", f.Kind, f.Message, c.kind, c.msg)
			}
			if got := top(f); got != c.top {
				t.Errorf("top frame %q, want %q", got, c.top)
			}
			if len(f.Goroutine.Frames) != c.frames {
				t.Errorf("%d frames, want %d: %v", len(f.Goroutine.Frames), c.frames, f.Goroutine.Frames)
			}
			log := ""
			if l, ok := f.Report(); ok {
				log = fmt.Sprintf("%s:%d: %s", l.File, l.Line, l.Text)
			}
			if c.kind == Fail && log != c.log {
				t.Errorf("report %q, want %q", log, c.log)
			}
		})
	}
}

// TestTimeoutOthers checks that a timeout keeps the other goroutines,
// where the rest of the program was stuck: the worker at its range.
func TestTimeoutOthers(t *testing.T) {
	f := parseFile(t, "timeout.txt", "TestStop", true)
	if f.Goroutine.Header != "goroutine 25 [sync.WaitGroup.Wait]" {
		t.Errorf("test's goroutine %q", f.Goroutine.Header)
	}
	found := false
	for _, g := range f.Others {
		for _, fr := range g.Frames {
			if fr.Func == "precog.example/kernels/crashhang.Start.func1" && fr.Line == 24 {
				found = true
			}
		}
	}
	if !found {
		t.Errorf("the worker blocked at crashhang.go:24 is not among the others: %v", f.Others)
	}
}

func TestPassed(t *testing.T) {
	out := []byte("=== RUN   TestX\n    x_test.go:3: hello\n--- PASS: TestX (0.00s)\nPASS\n")
	if f := Parse(out, "TestX", "", false); f != nil {
		t.Errorf("a passing run parsed as %+v", f)
	}
	if f := Parse(out, "TestX", "", true); f == nil || f.Kind != Exit {
		t.Errorf("a passing run that exited non-zero parsed as %+v, want exit", f)
	}
}

// TestFirst checks that First reads a panic or fatal error as Parse does,
// a timeout with the first goroutine block (the alarm's), and no crash in
// a test that only failed.
func TestFirst(t *testing.T) {
	for _, c := range []struct {
		file string
		kind Kind
		msg  string
		top  string
	}{
		{"goroutine-panic.txt", Panic, "runtime error: index out of range [2] with length 2",
			"crashpanic.go:27 precog.example/kernels/crashpanic.(*Registry).Nth"},
		{"mapwrites.txt", Fatal, "concurrent map writes", "panic.go:1181 internal/runtime/maps.fatal"},
		{"subtest-panic.txt", Panic, "assignment to entry in nil map", "testing.go:1974 testing.tRunner.func1.2"},
		{"timeout.txt", Timeout, "test timed out after 3s", "testing.go:2802 testing.(*M).startAlarm.func1"},
		{"fatalf.txt", "", "", ""},
		{"subtest-error.txt", "", "", ""},
	} {
		t.Run(c.file, func(t *testing.T) {
			out, err := os.ReadFile(filepath.Join("testdata", c.file))
			if err != nil {
				t.Fatal(err)
			}
			f := First(out)
			if c.kind == "" {
				if f != nil {
					t.Fatalf("a test failure read as a crash: %+v", f)
				}
				return
			}
			if f == nil || f.Kind != c.kind || f.Message != c.msg || top(f) != c.top {
				t.Fatalf("First = %+v, want %s %q at %s", f, c.kind, c.msg, c.top)
			}
			if p := Parse(out, "", "", true); c.kind != Timeout && !reflect.DeepEqual(p.Goroutine, f.Goroutine) {
				t.Errorf("First's goroutine %+v, Parse's %+v", f.Goroutine, p.Goroutine)
			}
		})
	}
}

// TestMultiLineLog checks that a message of many lines is read whole: the
// testing package indents its further lines four spaces more than its
// first, an empty one included, and the next log line ends it.
func TestMultiLineLog(t *testing.T) {
	f := parseFile(t, "multiline.txt", "TestGraph", true)
	want := []Log{
		{File: "graph_test.go", Line: 152, Text: "got:\ndigraph {\n\tcompound=true;\n\n}\nwant:\ndigraph {\n}"},
		{File: "graph_test.go", Line: 153, Text: "done"},
	}
	if f == nil || !reflect.DeepEqual(f.Logs, want) {
		t.Fatalf("logs %#v, want %#v", f, want)
	}
	if f.Kind != Fail || f.Message != "done" {
		t.Errorf("got %s %q, want fail %q", f.Kind, f.Message, "done")
	}
}

// TestEmptyFatal checks that a t.Fatal() without arguments takes its
// message from the line logged before it (a helper's t.Logf of the
// reason), and has none when nothing was logged before.
func TestEmptyFatal(t *testing.T) {
	for _, c := range []struct{ out, want string }{
		{"=== RUN   TestX\n    zk_test.go:20: could not find testing zookeeper bin path\n    zk_test.go:21: \n--- FAIL: TestX (0.00s)\n", "could not find testing zookeeper bin path"},
		{"=== RUN   TestX\n    zk_test.go:21: \n--- FAIL: TestX (0.00s)\n", ""},
		{"=== RUN   TestX\n    zk_test.go:20: setting up\n    zk_test.go:21: want 3\n--- FAIL: TestX (0.00s)\n", "want 3"},
	} {
		f := Parse([]byte(c.out+"FAIL\n"), "TestX", "", true)
		if f == nil || f.Kind != Fail || f.Message != c.want {
			t.Errorf("%q: parsed as %+v, want a fail with message %q", c.out, f, c.want)
		}
	}
}

// TestHeadline: the line that says what failed is the first that is not
// blank, or testify's Error line; none in a blank message.
func TestHeadline(t *testing.T) {
	for _, c := range []struct {
		lines []string
		at    int
		text  string
	}{
		{[]string{"count = 6, want 3"}, 0, "count = 6, want 3"},
		{[]string{"", "\tError Trace:\tx_test.go:7", "\tError:      \tNot equal: ", "\t\texpected: 1"}, 2, "Not equal:"},
		{[]string{"", "  got:", "x"}, 1, "got:"},
		{[]string{"", " "}, -1, ""},
	} {
		if at, text := Headline(c.lines); at != c.at || text != c.text {
			t.Errorf("Headline(%q) = %d %q, want %d %q", c.lines, at, text, c.at, c.text)
		}
	}
}

// TestReportPassesOverLogs checks Report on a real test's output
// (testdata/logger's): the t.Fatalf's line is the report, not the lines
// that t.Log wrote after it (a goroutine logging through an adapter, as
// go-nsq's consumer does) or before it (the test's own t.Logf). Without
// the package's directory, the last line is taken (the control).
func TestReportPassesOverLogs(t *testing.T) {
	out, err := os.ReadFile(filepath.Join("testdata", "fatal-then-log.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ dir, want string }{
		{filepath.Join("testdata", "logger"), "logger_test.go:37: we got 0 commands != 10 expected"},
		{"", "logger_test.go:17: INF 1 [topic/ch] connecting to nsqd"},
	} {
		f := Parse(out, "TestFatalThenLog", c.dir, true)
		if f == nil || f.Kind != Fail {
			t.Fatalf("dir %q: parsed as %+v, want a fail", c.dir, f)
		}
		l, ok := f.Report()
		if got := fmt.Sprintf("%s:%d: %s", l.File, l.Line, l.Text); !ok || got != c.want {
			t.Errorf("dir %q: report %q, want %q", c.dir, got, c.want)
		}
		if want := c.want[strings.Index(c.want, ": ")+2:]; f.Message != want {
			t.Errorf("dir %q: message %q, want %q", c.dir, f.Message, want)
		}
	}
}

// TestEnvironment checks what a failure's text shows of the machine. The
// error lines are Go's own, printed by a program that dialled a closed
// port of this machine (IPv4 and IPv6) and of another, an HTTP server there, a Unix socket that is not there (wrapped as
// testcontainers wraps it) and one that refuses, a host that does not resolve and an address
// with no route, and ran a program not installed and one by a path that
// does not exist; failsafe-go's TestCache shape is a testify message that
// holds the DNS error before a nil dereference. The controls, failures of
// the code and errors that merely look alike, show nothing.
func TestEnvironment(t *testing.T) {
	for _, c := range []struct {
		out, what, line string
	}{
		{"    p_test.go:9: dial tcp 127.0.0.1:1: connect: connection refused\n--- FAIL: TestX (0.00s)\n",
			"a refused connection to this machine, whose service was not running or not listening yet", "dial tcp 127.0.0.1:1: connect: connection refused"},
		{"    p_test.go:64: Post \"http://127.0.0.1:1/pub\": dial tcp 127.0.0.1:1: connect: connection refused\n--- FAIL: TestX (0.00s)\n",
			"a refused connection to this machine, whose service was not running or not listening yet", "Post \"http://127.0.0.1:1/pub\": dial tcp 127.0.0.1:1: connect: connection refused"},
		{"    p_test.go:9: dial tcp [::1]:8080: connect: connection refused\n--- FAIL: TestX (0.00s)\n",
			"a refused connection to this machine, whose service was not running or not listening yet", "dial tcp [::1]:8080: connect: connection refused"},
		{"    p_test.go:9: dial tcp 10.1.2.3:6379: connect: connection refused\n--- FAIL: TestX (0.00s)\n",
			"a refused connection", "dial tcp 10.1.2.3:6379: connect: connection refused"},
		{"    p_test.go:9: dial tcp: lookup no-such-host.invalid on 10.255.255.53:53: no such host\n--- FAIL: TestX (0.00s)\n",
			"a DNS failure", "dial tcp: lookup no-such-host.invalid on 10.255.255.53:53: no such host"},
		{"    p_test.go:9: dial tcp [2001:db8::1]:80: connect: no route to host\n--- FAIL: TestX (0.00s)\n",
			"an unreachable network", "dial tcp [2001:db8::1]:80: connect: no route to host"},
		{"    p_test.go:41: failed to connect to the docker API at unix:///var/run/docker.sock; check if the path is correct and if the daemon is running: dial unix /var/run/docker.sock: connect: no such file or directory\n--- FAIL: TestX (0.00s)\n",
			"a missing Unix socket", "failed to connect to the docker API at unix:///var/run/docker.sock; check if the path is correct and if the daemon is running: dial unix /var/run/docker.sock: connect: no such file or directory"},
		{"    journald_test.go:90: Unexpected error write unixgram @afcc3->/run/systemd/journal/socket: sendmsg: no such file or directory\n--- FAIL: TestX (0.00s)\n",
			"a missing Unix socket", "Unexpected error write unixgram @afcc3->/run/systemd/journal/socket: sendmsg: no such file or directory"},
		{"    p_test.go:9: dial unixgram /run/none.sock: connect: no such file or directory\n--- FAIL: TestX (0.00s)\n",
			"a missing Unix socket", "dial unixgram /run/none.sock: connect: no such file or directory"},
		{"    p_test.go:9: dial unix /tmp/none.sock: connect: connection refused\n--- FAIL: TestX (0.00s)\n",
			"a refused connection", "dial unix /tmp/none.sock: connect: connection refused"},
		{"    p_test.go:9: exec: \"nsqd-not-installed\": executable file not found in $PATH\n--- FAIL: TestX (0.00s)\n",
			"a missing program", "exec: \"nsqd-not-installed\": executable file not found in $PATH"},
		{"    p_test.go:9: fork/exec /opt/none/nsqd: no such file or directory\n--- FAIL: TestX (0.00s)\n",
			"a missing program", "fork/exec /opt/none/nsqd: no such file or directory"},
		{"    cache_test.go:20: \n        \tError Trace:\t/m/examples/cache_test.go:20\n        \tError:      \tReceived unexpected error:\n        \t            \tdial tcp: lookup golang.org on 10.255.255.53:53: no such host\n        \tTest:       \tTestX\n--- FAIL: TestX (0.00s)\npanic: runtime error: invalid memory address or nil pointer dereference [recovered]\n",
			"a DNS failure", "dial tcp: lookup golang.org on 10.255.255.53:53: no such host"},
		{"    libpq.go:24: \n        \tError Trace:\tadapter/testing/all.go:81\n        \tError:      \tShould be true\n        \tTest:       \tTestX\n        \tMessages:   \tTEST_POSTGRES env var is not set\n--- FAIL: TestX (0.00s)\n",
			"an unset environment variable", "Messages: TEST_POSTGRES env var is not set"},
		{"    p_test.go:9: environment variable DATABASE_URL must be set\n--- FAIL: TestX (0.00s)\n",
			"an unset environment variable", "environment variable DATABASE_URL must be set"},
		{"    p_test.go:9: missing required env var REDIS_ADDR\n--- FAIL: TestX (0.00s)\n",
			"an unset environment variable", "missing required env var REDIS_ADDR"},
		{"    e2e_test.go:40: invalid configuration: no configuration has been provided, try setting KUBERNETES_MASTER environment variable\n--- FAIL: TestX (0.00s)\n",
			"an unset environment variable", "invalid configuration: no configuration has been provided, try setting KUBERNETES_MASTER environment variable"},
		{"    e2e_test.go:96: docker unavailable (needed for DynamoDB Local): exit status 1\n--- FAIL: TestX (0.00s)\n",
			"no Docker", "docker unavailable (needed for DynamoDB Local): exit status 1"},
		// The controls.
		{"    p_test.go:9: count = 6, want 3\n--- FAIL: TestX (0.00s)\n", "", ""},
		{"    p_test.go:9: env var HOME = /root, want /home/u\n--- FAIL: TestX (0.00s)\n", "", ""},
		{"    p_test.go:9: setting HOME environment variable: permission denied\n--- FAIL: TestX (0.00s)\n", "", ""},
		{"    p_test.go:9: docker image name = \"a\", want \"b\"\n--- FAIL: TestX (0.00s)\n", "", ""},
		{"    p_test.go:9: lookup user: not found\n--- FAIL: TestX (0.00s)\n", "", ""},
		{"    p_test.go:9: open testdata/none.sock: no such file or directory\n--- FAIL: TestX (0.00s)\n", "", ""},
		{"    p_test.go:9: write /tmp/out.log: no such file or directory\n--- FAIL: TestX (0.00s)\n", "", ""},
		{"    p_test.go:9: read tcp 127.0.0.1:80->127.0.0.1:5000: read: connection reset by peer\n--- FAIL: TestX (0.00s)\n", "", ""},
	} {
		f := Parse([]byte("=== RUN   TestX\n"+c.out+"FAIL\n"), "TestX", "", true)
		if f == nil {
			t.Fatalf("%q: no failure", c.out)
		}
		env, ok := f.Environment()
		if ok != (c.what != "") || env.What != c.what || env.Line != c.line {
			t.Errorf("%q:\n got %q, %q (%v)\nwant %q, %q", c.out, env.What, env.Line, ok, c.what, c.line)
		}
	}
}

// TestMissingTestdata checks that a file under testdata that the test
// could not open is the environment only when the package directory
// lacks it now: one the test writes there itself, or that is there, is
// the code's failure; other paths, and other errors, show nothing.
func TestMissingTestdata(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "testdata"), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "testdata", "there.gz"), nil, 0o666); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		out, line string
	}{
		{"    reader_test.go:88: open testdata/Mark.Twain-Tom.Sawyer_linked.txt.gz: no such file or directory\n--- FAIL: TestX (0.00s)\n",
			"open testdata/Mark.Twain-Tom.Sawyer_linked.txt.gz: no such file or directory"},
		{"    p_test.go:9: stat testdata/gone/a.txt: no such file or directory\n--- FAIL: TestX (0.00s)\n",
			"stat testdata/gone/a.txt: no such file or directory"},
		// The controls.
		{"    p_test.go:9: open testdata/there.gz: no such file or directory\n--- FAIL: TestX (0.00s)\n", ""},
		{"    p_test.go:9: open /tmp/out/a.txt: no such file or directory\n--- FAIL: TestX (0.00s)\n", ""},
		{"    p_test.go:9: open testdata/none.txt: permission denied\n--- FAIL: TestX (0.00s)\n", ""},
	} {
		f := Parse([]byte("=== RUN   TestX\n"+c.out+"FAIL\n"), "TestX", "", true)
		if f == nil {
			t.Fatalf("%q: no failure", c.out)
		}
		if _, ok := f.Environment(); ok {
			t.Errorf("%q: Environment shows something: the text alone must not", c.out)
		}
		env, ok := f.MissingTestdata(dir)
		if want := "a test data file missing from the package"; ok != (c.line != "") || ok && (env.What != want || !strings.HasSuffix(env.Line, c.line)) {
			t.Errorf("%q:\n got %q, %q (%v)\nwant %q, %q", c.out, env.What, env.Line, ok, want, c.line)
		}
	}
}

// TestEscapes: the colours a test's output carries (go-testdeep's) are
// not part of the failure's message or logs, and output without escape
// sequences is read as it is.
func TestEscapes(t *testing.T) {
	out := "=== RUN   TestX\n    x_test.go:20: \x1b[1;33mFailed test\x1b[0m\n    x_test.go:21: got \x1b[31m3\x1b[0m, want \x1b[32m4\x1b[0m\n--- FAIL: TestX (0.00s)\nFAIL\n"
	f := Parse([]byte(out), "TestX", "", true)
	want := []Log{{File: "x_test.go", Line: 20, Text: "Failed test"}, {File: "x_test.go", Line: 21, Text: "got 3, want 4"}}
	if f == nil || f.Kind != Fail || f.Message != "got 3, want 4" || !reflect.DeepEqual(f.Logs, want) {
		t.Fatalf("Parse = %+v, want a failure %q with logs %+v", f, "got 3, want 4", want)
	}
	for in, want := range map[string]string{
		"plain":                "plain",
		"a\x1b[0mb":            "ab",
		"\x1b[38;5;208mx":      "x",
		"x\x1b":                "x",
		"x\x1b[":               "x",
		"\x1b(By":              "By",
		"a\x1b[?25lb\x1b[?25h": "ab",
	} {
		if got := string(stripEscapes([]byte(in))); got != want {
			t.Errorf("stripEscapes(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestPassedThenExited: a process that printed PASS and exited non-zero
// is an exit failure whose message says its tests passed first, not
// "PASS"; the last other line is the message otherwise.
func TestPassedThenExited(t *testing.T) {
	for out, want := range map[string]string{
		"=== RUN   TestX\n--- PASS: TestX (0.00s)\nPASS\nexit status 1\n": "its tests passed, then the process exited non-zero (TestMain after m.Run, an os.Exit, or a check the test binary makes at its end)",
		"=== RUN   TestX\nleaked goroutines found\nexit status 1\n":       "leaked goroutines found",
	} {
		f := Parse([]byte(out), "TestX", "", true)
		if f == nil || f.Kind != Exit || f.Message != want {
			t.Errorf("Parse(%q) = %+v, want an exit failure %q", out, f, want)
		}
	}
}

// TestGinkgo checks that a Ginkgo suite's failure is reported by its first
// failed spec (real output of go test -v on a v2 and a v1 suite: a failed
// assertion and a panic, in that order; and the panic alone), and that a
// suite's summary is not read where there is none.
func TestGinkgo(t *testing.T) {
	for _, c := range []struct{ file, log string }{
		{"ginkgo-v2.txt", `gk_suite_test.go:21: spec "Counter when empty [It] subtracts" failed: Expected <int>: 0 to equal <int>: 3 (and 1 more spec)`},
		{"ginkgo-v1.txt", `gk_suite_test.go:21: spec "Counter when empty [It] subtracts" failed (and 1 more spec)`},
		// The panic's own frame in the test's directory, not the
		// runtime's that the summary gives.
		{"ginkgo-v2-panic.txt", `gk_suite_test.go:26: spec "Counter [It] panics" panicked: assignment to entry in nil map`},
	} {
		t.Run(c.file, func(t *testing.T) {
			out, err := os.ReadFile(filepath.Join("testdata", c.file))
			if err != nil {
				t.Fatal(err)
			}
			dir := "/src/gk"
			if strings.Contains(c.file, "v1") {
				dir = "/src/gk1"
			}
			f := Parse(out, "TestGk", dir, true)
			if f == nil || f.Kind != Fail {
				t.Fatalf("parsed as %+v, want a failed test", f)
			}
			l, ok := f.Report()
			if got := fmt.Sprintf("%s:%d: %s", l.File, l.Line, l.Text); !ok || got != c.log {
				t.Errorf("report %q, want %q", got, c.log)
			}
			if want := c.log[strings.Index(c.log, "spec "):]; f.Message != want {
				t.Errorf("message %q, want %q", f.Message, want)
			}
		})
	}
	// A location outside the test's directory is named in full, where
	// precog finds the file.
	out, _ := os.ReadFile(filepath.Join("testdata", "ginkgo-v2.txt"))
	if l, _ := Parse(out, "TestGk", "/src/other", true).Report(); !strings.HasSuffix(l.Text, " at /src/gk/gk_suite_test.go:21") {
		t.Errorf("report outside the directory %q, want it to end with the location", l.Text)
	}
	// A failed test without a summary: its t.Error line, as before.
	if l, _ := parseFile(t, "fatalf.txt", "TestCount", true).Report(); l.Text != "count = 6, want 3" {
		t.Errorf("a plain failure's report %q", l.Text)
	}
}
