// Package failure reads how a test failed from the output of its process,
// the way a Go developer reads go test's: the panic or fatal error and the
// stack of the goroutine that raised it, the test that timed out and where
// its goroutine was stuck, or the t.Error and t.Fatal lines of a failed
// test. precog test turns each failure into a finding (issue 10: a suite
// whose tests fail must not pass precog test).
//
// It is sound for output of a test binary run with -test.v, one top-level
// test per process, as precog record runs them. A stack is that of the
// first goroutine block after the panic (the goroutine that panicked); for
// a timeout, that of the goroutine running the test. The runtime's header
// is found at a line's start or after what the program wrote without a
// newline, where the goroutine dump follows it (headerLine); output
// interleaved by other goroutines printing inside the dump can still hide
// a frame. The testing package prints a t.Log line as it prints a t.Fatal
// line: Report tells them apart by the call at the logged position in the
// test package's source (LogCalls), which a line of a helper in another
// package, or of a logger that wraps t.Log with t.Helper, does not show.
// Environment reads Go's own error texts, not the meaning of the test's.
package failure

import (
	"bytes"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Kind is how a test failed.
type Kind string

// The kinds of failure, from the most to the least severe.
const (
	Panic   Kind = "panic"   // "panic: ..." (recover did not stop it)
	Fatal   Kind = "fatal"   // "fatal error: ...", such as concurrent map writes
	Timeout Kind = "timeout" // "panic: test timed out after ..."
	Fail    Kind = "fail"    // the test reported failure (t.Error, t.Fatal, t.Fail)
	Exit    Kind = "exit"    // the process exited non-zero with none of the above
)

// A Failure is how one test process failed.
type Failure struct {
	Kind Kind
	// Message is the panic's or fatal error's text, the timeout's
	// duration line, or the text of the t.Error or t.Fatal that
	// reported the failure (all its lines).
	Message string
	// Goroutine is the goroutine that panicked, or, for a timeout, the one
	// running the test.
	Goroutine Goroutine
	// Others are, for a timeout, the other goroutines of the dump: where
	// the rest of the program was stuck.
	Others []Goroutine
	// Logs are the lines the tests logged (t.Error, t.Fatal, t.Log), in
	// order, up to the first "--- FAIL" line.
	Logs []Log
	// suite is the line a test framework's own report gave for the
	// failure, when the test has none of its own: a Ginkgo suite's first
	// failed spec (see "Ginkgo suites").
	suite *Log
	dir   string // the test package's directory (Parse)
}

// Report returns the line that reported a Fail: the last line logged
// before go test's first "--- FAIL" line (t.Fatal's, or the t.Error's
// that nothing followed) that a t.Log or t.Logf did not write (LogCalls.Wrote):
// after a t.Fatal, the test's deferred calls wait for goroutines of the
// code under test that may still log through the test's logger (go-nsq's
// consumer does, through an adapter that calls t.Log) before go test
// prints "--- FAIL". If t.Log wrote every line, the last. A Ginkgo suite's
// failure is reported by its first failed spec (see "Ginkgo suites"). ok
// is false when the test failed without a message (t.Fail).
func (f *Failure) Report() (Log, bool) {
	if f.suite != nil {
		return *f.suite, true
	}
	i := f.report()
	if i < 0 {
		return Log{}, false
	}
	return f.Logs[i], true
}

// report returns the index in Logs of Report's line, -1 for none.
func (f *Failure) report() int {
	if len(f.Logs) == 0 {
		return -1
	}
	calls := NewLogCalls(f.dir)
	for i := len(f.Logs) - 1; i >= 0; i-- {
		if !calls.Wrote(f.Logs[i]) {
			return i
		}
	}
	return len(f.Logs) - 1
}

// An Environment is what a failure's text shows of the machine the test
// ran on rather than of its code: a refused connection (no server where
// the test expects one: go-nsq's tests need an nsqd on 127.0.0.1:4150), a
// missing Unix socket (no server there either: psrpc's testcontainers
// tests dial Docker's /var/run/docker.sock), a DNS failure or an
// unreachable network (failsafe-go's TestCache dials golang.org), or a
// missing program. The test really fails there, as
// under go test; precog cannot tell whether that is the test's fault.
type Environment struct {
	What string // "a refused connection" (or one "to this machine"), "a missing Unix socket", "a DNS failure", "an unreachable network", "a missing program", "an unset environment variable", "no Docker"
	Line string // the line of the text that shows it, trimmed, its runs of spaces and tabs one space (testify's "Messages:   \t...")
}

// environments are the error texts of Go's net and os/exec packages that
// show an Environment, the first that a line holds deciding: net.OpError's
// "connect: connection refused" (Windows: "actively refused it"; to a
// loopback address it may be the test's own server, dialled before it
// listened, as much as a local service that is not running: heldout17's
// gws, whose test server a recorded run had not started yet), its
// "dial unix PATH: connect: no such file or directory" (a socket file that
// is not there; one whose server is gone refuses the connection; of a
// datagram socket, also a write's "write unixgram LOCAL->PATH: sendmsg:
// no such file or directory": zerolog's journald writer with no systemd
// journal at /run/systemd/journal/socket),
// net.DNSError's "lookup HOST[ on SERVER]: no such host" and the like,
// "connect: network is unreachable" and "no route to host", exec's
// "executable file not found in $PATH" and "fork/exec PATH: no such file
// or directory"; a test's own word that an environment variable it needs
// is not set (gue's 44 tests: "TEST_POSTGRES env var is not set", held-out
// rehearsal 49; client-go's "no configuration has been provided, try
// setting KUBERNETES_MASTER environment variable", cli-utils' e2e suites,
// rehearsal 57), or that Docker is not there.
var environments = []struct {
	what string
	re   *regexp.Regexp
}{
	{"a DNS failure", regexp.MustCompile(`lookup [^\s:]+(:\d+)?( on \S+)?: (no such host|server misbehaving|.*name resolution|.*i/o timeout|no answer from DNS server)`)},
	{"a refused connection to this machine, whose service was not running or not listening yet", regexp.MustCompile(`(127\.\d+\.\d+\.\d+|\[::1\]|localhost):\d+: connect: connection refused`)},
	{"a refused connection", regexp.MustCompile(`connection refused|actively refused it`)},
	{"a missing Unix socket", regexp.MustCompile(`(dial unix(gram|packet)? \S+: connect|write unixgram \S+: sendmsg): no such file or directory`)},
	{"an unreachable network", regexp.MustCompile(`network is unreachable|no route to host`)},
	{"a missing program", regexp.MustCompile(`executable file not found in|fork/exec \S+: no such file or directory`)},
	{"an unset environment variable", regexp.MustCompile(`(?i)\benv(ironment)?[ _-]?var(iable)?s?\b.*\b(not set|unset|not defined|must be set|is required|is empty)\b|\b(missing|required|unset)\b.*\benv(ironment)?[ _-]?var(iable)?s?\b|\b(try|please|must) set(ting)? (the )?[A-Z][A-Z0-9_]*[A-Z0-9] env(ironment)?[ _-]?var(iable)?\b`)},
	{"no Docker", regexp.MustCompile(`(?i)\bdocker\b.*\b(unavailable|not available|not running|not installed)\b|Cannot connect to the Docker daemon`)},
}

// missingFile is os.PathError's text for a file a test opened under its
// package's testdata directory that is not there.
var missingFile = regexp.MustCompile(`(?:open|stat|lstat) (testdata/[^\s:]+): no such file or directory`)

// MissingTestdata returns the Environment of a failure whose text shows a
// file under testdata, relative to the test's package directory pkgDir,
// that the test could not open, and that is not in pkgDir now: the
// package's copy lacks it (lz4's module zip has no testdata/*.gz:
// heldout18). The text alone does not tell: a file the test writes there
// itself, missing because a goroutine had not written it yet, is a
// failure of the code; so is a file that is there now.
func (f *Failure) MissingTestdata(pkgDir string) (Environment, bool) {
	for line := range f.lines() {
		m := missingFile.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		if _, err := os.Lstat(filepath.Join(pkgDir, filepath.FromSlash(m[1]))); errors.Is(err, fs.ErrNotExist) {
			return Environment{What: "a test data file missing from the package", Line: strings.TrimSpace(line)}, true
		}
	}
	return Environment{}, false
}

// Environment returns what f's text shows of the environment: its
// message's, or else the lines logged before it (a failure that follows
// from an earlier error: failsafe-go's TestCache logs its dial's DNS error,
// then dereferences the nil connection). ok is false if it shows nothing.
func (f *Failure) Environment() (Environment, bool) {
	for line := range f.lines() {
		for _, e := range environments {
			if e.re.MatchString(line) {
				return Environment{What: e.what, Line: strings.Join(strings.Fields(line), " ")}, true
			}
		}
	}
	return Environment{}, false
}

// lines yields the lines of f's message, then those of the lines logged
// before it, where Environment and MissingTestdata look.
func (f *Failure) lines() iter.Seq[string] {
	return func(yield func(string) bool) {
		for line := range strings.Lines(f.Message) {
			if !yield(line) {
				return
			}
		}
		for _, l := range f.Logs {
			for line := range strings.Lines(l.Text) {
				if !yield(line) {
					return
				}
			}
		}
	}
}

// LogCalls tells the lines that t.Log or t.Logf wrote from the others, by
// the source files of a test package's directory that the lines name.
type LogCalls struct {
	dir   string
	files map[string]map[int]bool // base name -> lines that call a Log or Logf
}

// NewLogCalls returns the LogCalls of the test package in dir ("": none
// is known, so no line is a t.Log's).
func NewLogCalls(dir string) *LogCalls {
	return &LogCalls{dir: dir, files: make(map[string]map[int]bool)}
}

// Wrote reports whether a t.Log or t.Logf wrote l: the call at its file
// and line is of a function or method named Log or Logf (the testing
// package's, or a logger adapter's whose own line calls t.Log, as a
// helper's line names its caller). A file that is not in the directory
// (a helper's in another package) or does not parse says no.
func (c *LogCalls) Wrote(l Log) bool {
	if c.dir == "" {
		return false
	}
	lines, ok := c.files[l.File]
	if !ok {
		lines = logLines(filepath.Join(c.dir, l.File))
		c.files[l.File] = lines
	}
	return lines[l.Line]
}

// logLines returns the lines of the Go file path that a call of a
// function or method named Log or Logf spans, nil if it does not parse.
func logLines(path string) map[int]bool {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		return nil
	}
	lines := make(map[int]bool)
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		var name string
		switch fn := call.Fun.(type) {
		case *ast.Ident:
			name = fn.Name
		case *ast.SelectorExpr:
			name = fn.Sel.Name
		}
		if name == "Log" || name == "Logf" {
			for l := fset.Position(call.Pos()).Line; l <= fset.Position(call.End()).Line; l++ {
				lines[l] = true
			}
		}
		return true
	})
	return lines
}

// A Goroutine is one goroutine of a dump.
type Goroutine struct {
	Header string // "goroutine 18 [running]"
	// Frames is its stack, innermost first, as the runtime prints it.
	Frames []Frame
}

// A Frame is one call of a goroutine's stack.
type Frame struct {
	Func string // "pkg.(*T).m", without the arguments
	File string
	Line int
}

// Short returns the frame's function without its import path:
// "example.com/p.(*T).m" is "(*T).m".
func (fr Frame) Short() string {
	if rest, ok := strings.CutPrefix(fr.Func, fr.Package()+"."); ok {
		return rest
	}
	return fr.Func[strings.LastIndexByte(fr.Func, '/')+1:]
}

// Package returns the import path of the frame's function:
// "example.com/p" of "example.com/p.(*T).m", "sync" of
// "sync.(*Mutex).Lock".
func (fr Frame) Package() string {
	slash := strings.LastIndexByte(fr.Func, '/') + 1
	if i := strings.IndexByte(fr.Func[slash:], '.'); i >= 0 {
		return fr.Func[:slash+i]
	}
	return fr.Func
}

// InShim reports whether the frame is the shim's: its wrapper of a sync
// operation, between the user's call and the runtime's frames.
func (fr Frame) InShim() bool {
	return strings.HasPrefix(fr.Func, shimPath+".") || strings.HasPrefix(fr.Func, shimPath+"/")
}

// shimPath is the import path of the shim.
const shimPath = "github.com/precog-dev/precog/shim"

// A Log is one message a test logged: "    x_test.go:17: count = 6, want 3".
type Log struct {
	File string // the file's base name, as the testing package prints it
	Line int
	Text string // the message, its lines joined by "\n"
}

// Parse returns how the process of test (a top-level test's name) failed,
// or nil if its output shows no failure. dir is the test package's
// directory, whose files tell the lines t.Log wrote from those that
// reported the failure (Report); "" if not known. exited says whether the
// process exited non-zero (a failure even when the output says nothing).
// The terminal's escape sequences a test wrote (colours: go-testdeep's
// "\x1b[1;33mFailed test\x1b[0m") are left out of what it reads.
func Parse(out []byte, test, dir string, exited bool) *Failure {
	out = stripEscapes(out)
	blocks, head := goroutines(out)
	f := &Failure{dir: dir}
	switch {
	case head.timeout != "":
		f.Kind, f.Message = Timeout, head.timeout
		i := f.pick(blocks, func(g Goroutine) bool {
			for _, fr := range g.Frames {
				if strings.HasSuffix(fr.Func, "."+test) {
					return true
				}
			}
			return false
		})
		for j, g := range blocks {
			if j != i {
				f.Others = append(f.Others, g)
			}
		}
	case head.fatal != "" || head.panic != "":
		f.Kind, f.Message = Panic, head.panic
		if head.fatal != "" {
			f.Kind, f.Message = Fatal, head.fatal
		}
		f.pick(blocks, func(Goroutine) bool { return true })
	}
	f.Logs = logs(out)
	switch {
	case f.Kind != "":
	case bytes.Contains(out, []byte("--- FAIL: ")):
		f.Kind = Fail
		if l, ok := ginkgoReport(string(out), dir); ok {
			f.suite, f.Message = &l, l.Text
			break
		}
		// A t.Fatal() or t.Error() without arguments says nothing: a
		// helper that logged the reason first (go-zookeeper's test
		// cluster: t.Logf of the missing server, then t.Fatal()) has
		// it on the last line logged before.
		for i := f.report(); i >= 0 && strings.TrimSpace(f.Message) == ""; i-- {
			f.Message = f.Logs[i].Text
		}
	case exited:
		f.Kind = Exit
		f.Message = lastLine(out)
	default:
		return nil
	}
	return f
}

// First returns the first panic, fatal error or timeout in out and the
// first goroutine block after it, or nil if out has none. Unlike Parse it
// does not look for the test's goroutine in a timeout's dump (the block is
// the alarm's that raised it) and reads no logged lines: it is what a
// forced run's verdict needs, whose test is known to have been forced.
func First(out []byte) *Failure {
	out = stripEscapes(out)
	blocks, head := goroutines(out)
	f := &Failure{}
	switch {
	case head.timeout != "":
		f.Kind, f.Message = Timeout, head.timeout
	case head.fatal != "":
		f.Kind, f.Message = Fatal, head.fatal
	case head.panic != "":
		f.Kind, f.Message = Panic, head.panic
	default:
		return nil
	}
	if len(blocks) > 0 {
		f.Goroutine = blocks[0]
	}
	return f
}

// TimedOut returns the goroutines of the dump that a test timeout's
// panic printed in out, in its order: every goroutine of the process,
// since the testing package's alarm prints them all. nil if out holds no
// timeout.
func TimedOut(out []byte) []Goroutine {
	blocks, head := goroutines(out)
	if head.timeout == "" {
		return nil
	}
	return blocks
}

// State returns what the goroutine was doing, as its header says:
// "chan send" of "goroutine 29 [chan send, 2 minutes]".
func (g Goroutine) State() string {
	i, j := strings.LastIndexByte(g.Header, '['), strings.LastIndexByte(g.Header, ']')
	if i < 0 || j < i {
		return ""
	}
	state, _, _ := strings.Cut(g.Header[i+1:j], ",")
	return state
}

// pick takes the first goroutine that ok accepts and returns its index,
// -1 if none.
func (f *Failure) pick(gs []Goroutine, ok func(Goroutine) bool) int {
	for i, g := range gs {
		if ok(g) {
			f.Goroutine = g
			return i
		}
	}
	return -1
}

// header is what precedes the goroutine dump.
type header struct {
	panic, fatal, timeout string
}

// goroutines parses the panic, fatal error or timeout in out (headerLine
// chooses it) and the goroutine blocks after it.
func goroutines(out []byte) ([]Goroutine, header) {
	var h header
	var blocks []Goroutine
	lines := strings.Split(string(out), "\n")
	at := headerLine(lines)
	if at < 0 || ended(lines[at+1:]) {
		return nil, h
	}
	msg, _ := headerIn(lines[at])
	switch {
	case strings.HasPrefix(msg, "panic: test timed out after "):
		h.timeout = strings.TrimPrefix(msg, "panic: ")
	case strings.HasPrefix(msg, "panic: "):
		h.panic = cleanPanic(strings.TrimPrefix(msg, "panic: "))
	default:
		h.fatal = strings.TrimPrefix(msg, "fatal error: ")
	}
	var fn string
	ancestors := false // in a block's "[originating from goroutine N]:" sections (GODEBUG=tracebackancestors)
	for _, line := range lines[at+1:] {
		line = strings.TrimSuffix(line, "\r")
		if g, ok := goroutineHeader(line); ok {
			blocks = append(blocks, Goroutine{Header: g})
			fn, ancestors = "", false
			continue
		}
		if strings.HasPrefix(line, "[originating from goroutine ") {
			// The stack of an ancestor when it created the goroutine
			// (precog runs the tests of a binary with marks with
			// tracebackancestors set): not the
			// goroutine's frames.
			ancestors = true
		}
		switch {
		case ancestors || len(blocks) == 0 || line == "" || strings.HasPrefix(line, "created by "):
			fn = ""
		case strings.HasPrefix(line, "\t"):
			if fn == "" {
				continue // the "created by" line's position
			}
			file, ln := fileLine(line[1:])
			if file != "" {
				b := &blocks[len(blocks)-1]
				b.Frames = append(b.Frames, Frame{Func: fn, File: file, Line: ln})
			}
		default:
			fn = funcName(line)
		}
	}
	return blocks, h
}

// headerLine returns the index of the line of lines that holds the
// runtime's panic, fatal error or timeout header, -1 if none does. The
// header begins a line, or follows what the program wrote without a
// newline just before it died ("waiting for the serverpanic: test timed
// out after 1s": a goroutine printing while another panics, a test
// printing progress before a timeout), and the runtime's goroutine dump
// follows it. So among the lines with a header (headerIn), the first
// that a goroutine block follows before the next such line is the one; a
// test that prints or logs "panic: ..." itself and then crashes is read by
// its crash. A header that begins a line and that no dump follows
// (GOTRACEBACK=none) is taken if no other is; one within a line, never.
func headerLine(lines []string) int {
	cand, first := -1, -1
	for i, line := range lines {
		if msg, start := headerIn(line); msg != "" {
			if start && first < 0 {
				first = i
			}
			cand = i
			continue
		}
		if cand >= 0 {
			if _, ok := goroutineHeader(line); ok {
				return cand
			}
		}
	}
	return first
}

// ended reports whether lines, those after a header, hold the testing
// package's line for a test's end, "--- PASS: " or "--- FAIL: " at a
// line's start: the process went on after the header, which is then text
// it printed, such as a child process's panic that a logger copied
// (go-plugin's TestServerLogPanic runs a plugin that panics and looks for
// the panic in its log), not its own crash, after which the runtime prints
// the goroutines and exits. A test that panics has its "--- FAIL" line
// printed before the panic's header.
func ended(lines []string) bool {
	for _, line := range lines {
		if strings.HasPrefix(line, "--- PASS: ") || strings.HasPrefix(line, "--- FAIL: ") {
			return true
		}
	}
	return false
}

// headerIn returns the panic, fatal error or timeout header that line
// holds, from its "panic: " or "fatal error: " on, and whether it begins
// the line; "" if it holds none. A header after leading blanks only is a
// logged message's further line, not the runtime's (the old
// "\tpanic: x" line of a panic raised again comes after the first
// header), and one after a t.Log line's "file.go:N: " is logged text.
func headerIn(line string) (string, bool) {
	i := strings.Index(line, "panic: ")
	if j := strings.Index(line, "fatal error: "); j >= 0 && (i < 0 || j < i) {
		i = j
	}
	switch {
	case i < 0:
		return "", false
	case i == 0:
		return strings.TrimSuffix(line, "\r"), true
	case strings.TrimLeft(line[:i], " \t") == "" || isLogLine(line):
		return "", false
	}
	return strings.TrimSuffix(line[i:], "\r"), false
}

// isLogLine reports whether line is one a test logged: indented, then
// "file.go:N: " (see logs).
func isLogLine(line string) bool {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) < 4 {
		return false
	}
	file, rest, ok := strings.Cut(t, ":")
	if !ok || !strings.HasSuffix(file, ".go") {
		return false
	}
	num, _, ok := strings.Cut(rest, ": ")
	_, err := strconv.Atoi(num)
	return ok && err == nil
}

// goroutineHeader returns the goroutine header that line ends in,
// "goroutine 18 [running]" of "goroutine 18 [running]:" (also after
// "goroutine 18 gp=0x... m=... [running]:" of GOTRACEBACK=system), and
// whether it has one. The header may follow text another goroutine wrote
// without a newline; one after blanks only is a logged message's line (a
// leak checker's t.Error listing the goroutines it found), not the
// runtime's.
func goroutineHeader(line string) (string, bool) {
	line = strings.TrimSuffix(line, "\r")
	if !strings.HasSuffix(line, "]:") {
		return "", false
	}
	i := strings.LastIndex(line, "goroutine ")
	if i < 0 || (i > 0 && strings.TrimLeft(line[:i], " \t") == "") {
		return "", false
	}
	h := line[i : len(line)-1]
	num, _, _ := strings.Cut(h[len("goroutine "):], " ")
	if _, err := strconv.ParseUint(num, 10, 64); err != nil || !strings.Contains(h, " [") {
		return "", false
	}
	return h, true
}

// cleanPanic drops what the testing package adds to a panic that it
// recovered and raised again: "boom [recovered]", "boom [recovered,
// repanicked]".
func cleanPanic(msg string) string {
	if i := strings.Index(msg, " [recovered"); i >= 0 && strings.HasSuffix(msg, "]") {
		return msg[:i]
	}
	return msg
}

// Headline returns the line of a message (its lines) that says what
// failed, and its index: the first line that is not blank, or, in a
// testify assertion's message (a blank line, then "Error Trace:",
// "Error:", ...), the text of its Error line. It returns -1 and "" if
// every line is blank.
func Headline(lines []string) (int, string) {
	first := slices.IndexFunc(lines, func(l string) bool { return strings.TrimSpace(l) != "" })
	if first < 0 {
		return -1, ""
	}
	if strings.HasPrefix(strings.TrimSpace(lines[first]), "Error Trace:") {
		for i, l := range lines[first:] {
			if text, ok := strings.CutPrefix(strings.TrimSpace(l), "Error:"); ok {
				return first + i, strings.TrimSpace(text)
			}
		}
	}
	return first, strings.TrimSpace(lines[first])
}

// logs returns the lines of out that a test logged before the first
// "--- FAIL": indented by four spaces (more for subtests), then
// file.go:line: text. A message of many lines continues on the lines
// below, indented four spaces more (the testing package's decorate): they
// are its Text's further lines, without that indentation.
func logs(out []byte) []Log {
	var ls []Log
	cont := "" // the indentation of the last log's further lines
	for line := range strings.Lines(string(out)) {
		if strings.HasPrefix(strings.TrimLeft(line, " "), "--- FAIL: ") {
			break
		}
		if rest, ok := strings.CutPrefix(line, cont); ok && cont != "" {
			l := &ls[len(ls)-1]
			l.Text += "\n" + strings.TrimRight(rest, "\r\n")
			continue
		}
		cont = ""
		l, ok := ParseLog(line)
		if !ok {
			continue
		}
		ls = append(ls, l)
		cont = line[:len(line)-len(strings.TrimLeft(line, " "))] + "    "
	}
	return ls
}

// ParseLog parses the first line of a message a test logged (t.Log,
// t.Error, ...): indented by four spaces or more, then "file.go:N: text",
// the file a base name as the testing package prints it. ok is false for
// any other line, among them a logged message's further lines (indented
// four spaces more than its first) even when they hold a position, as a
// stack trace logged through a test's logger does
// ("\t/path/x_test.go:1868").
func ParseLog(line string) (l Log, ok bool) {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) < 4 {
		return Log{}, false
	}
	file, rest, ok := strings.Cut(t, ":")
	if !ok || !strings.HasSuffix(file, ".go") || strings.ContainsAny(file, " /\t") {
		return Log{}, false
	}
	// "x_test.go:12: text", or "x_test.go:12:" when the text is empty
	// and the line's blank was trimmed.
	num, text, ok := strings.Cut(strings.TrimRight(rest, "\r\n"), ":")
	n, err := strconv.Atoi(num)
	if !ok || err != nil || text != "" && text[0] != ' ' {
		return Log{}, false
	}
	return Log{File: file, Line: n, Text: strings.TrimPrefix(text, " ")}, true
}

// fileLine parses "/path/file.go:61 +0x1d".
func fileLine(s string) (string, int) {
	if i := strings.LastIndex(s, " +0x"); i >= 0 {
		s = s[:i]
	}
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return "", 0
	}
	n, err := strconv.Atoi(s[i+1:])
	if err != nil {
		return "", 0
	}
	return s[:i], n
}

// funcName strips the arguments off a traceback's function line:
// "pkg.(*T).m(0x1, ...)" is "pkg.(*T).m"; "pkg.f(...)" is "pkg.f".
func funcName(line string) string {
	if strings.HasSuffix(line, ")") {
		if i := strings.LastIndexByte(line, '('); i > 0 {
			return line[:i]
		}
	}
	return line
}

// lastLine is the last non-empty line of out that is not go test's
// verdict, for a process that exited without saying why. Above a
// goroutine dump with no panic header, it is the last line before the
// dump but the registers' "PC=" line, from the signal's name on if it
// has one ("sleepingSIGQUIT: quit" is "SIGQUIT: quit"): not a stack
// position or a register of the dump.
func lastLine(out []byte) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	dump := slices.IndexFunc(lines, func(l string) bool { _, ok := goroutineHeader(l); return ok })
	if dump >= 0 {
		lines = lines[:dump]
	}
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if dump >= 0 && strings.HasPrefix(l, "PC=") {
			continue
		}
		if l == "PASS" {
			// air's TestShouldIncludeGoTestFile: the testing package
			// printed PASS, and the process still exited non-zero
			// (held-out rehearsal 44 read "process exited: PASS").
			return "its tests passed, then the process exited non-zero (TestMain after m.Run, an os.Exit, or a check the test binary makes at its end)"
		}
		if l != "" && l != "FAIL" && !strings.HasPrefix(l, "FAIL\t") && !strings.HasPrefix(l, "exit status") {
			return signalIn(l)
		}
	}
	return "the test process exited with no output"
}

// signalIn returns line from the runtime's "SIGNAME: " on, where it has
// one after what the program wrote without a newline; line otherwise.
func signalIn(line string) string {
	for i := 0; ; {
		j := strings.Index(line[i:], "SIG")
		if j < 0 {
			return line
		}
		i += j
		k := i + 3
		for k < len(line) && line[k] >= 'A' && line[k] <= 'Z' {
			k++
		}
		if k > i+3 && strings.HasPrefix(line[k:], ": ") {
			return line[i:]
		}
		i += 3
	}
}

// stripEscapes returns out without its ANSI escape sequences: a CSI
// sequence (ESC [, parameter and intermediate bytes, a final byte) or
// any other ESC and the byte after it. out itself is returned when it
// has none.
func stripEscapes(out []byte) []byte {
	i := bytes.IndexByte(out, 0x1b)
	if i < 0 {
		return out
	}
	b := make([]byte, 0, len(out))
	for i >= 0 {
		b = append(b, out[:i]...)
		out = out[i+1:]
		if len(out) > 0 && out[0] == '[' {
			k := 1
			for k < len(out) && out[k] >= 0x20 && out[k] <= 0x3f {
				k++
			}
			if k < len(out) && out[k] >= 0x40 && out[k] <= 0x7e {
				k++
			}
			out = out[k:]
		} else if len(out) > 0 {
			out = out[1:]
		}
		i = bytes.IndexByte(out, 0x1b)
	}
	return append(b, out...)
}
