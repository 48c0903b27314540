package shim

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/precog-dev/precog"
	"github.com/precog-dev/precog/shim/plan"
	"github.com/precog-dev/precog/shim/trace"
)

// The crash tests run the program in testdata/crash, built once per test
// binary as precog builds user code: the shim's Source written out as the
// module github.com/precog-dev/precog/shim and required through a replace.
// Each test kills the program in one of the ways a test process dies and
// checks that the trace holds every event recorded before, reads to a
// clean end, and ends with nothing the reader calls damage.

// Sites of testdata/crash.
const (
	crashSiteMain   = 1
	crashSiteFork   = 2
	crashSiteWorker = 3
	crashSiteBusy   = 100
	crashKnown      = 20000
	crashBusy       = 4
)

var crashBuild struct {
	once sync.Once
	bin  string
	err  error
}

// crashProgram returns the path of the built crash program.
func crashProgram(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build the crash program")
	}
	crashBuild.once.Do(func() {
		crashBuild.bin, crashBuild.err = buildCrashProgram(goTool, filepath.Join(filepath.Dir(tracePath), "crash"))
	})
	if crashBuild.err != nil {
		t.Fatal(crashBuild.err)
	}
	return crashBuild.bin
}

func buildCrashProgram(goTool, dir string) (string, error) {
	shimDir, progDir := filepath.Join(dir, "shim"), filepath.Join(dir, "prog")
	// The module as precog injects it: the files of precog.ShimSource.
	src, err := fs.Sub(precog.ShimSource, "shim")
	if err != nil {
		return "", err
	}
	err = fs.WalkDir(src, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(path, "_test.go") {
			return err
		}
		data, err := fs.ReadFile(src, path)
		if err != nil {
			return err
		}
		return writeFile(filepath.Join(shimDir, path), data)
	})
	if err != nil {
		return "", err
	}
	if err := writeFile(filepath.Join(shimDir, "go.mod"), []byte("module github.com/precog-dev/precog/shim\n\ngo 1.22\n")); err != nil {
		return "", err
	}
	prog, err := os.ReadFile(filepath.Join("testdata", "crash", "prog_test.go"))
	if err != nil {
		return "", err
	}
	gomod := "module precog.example/crash\n\ngo 1.22\n\n" +
		"require github.com/precog-dev/precog/shim v0.0.0-00010101000000-000000000000\n\n" +
		"replace github.com/precog-dev/precog/shim => ../shim\n"
	if err := writeFile(filepath.Join(progDir, "go.mod"), []byte(gomod)); err != nil {
		return "", err
	}
	if err := writeFile(filepath.Join(progDir, "prog_test.go"), prog); err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "crash.test")
	cmd := exec.Command(goTool, "test", "-c", "-o", bin, ".")
	cmd.Dir = progDir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "GOTOOLCHAIN=local", "PRECOG_TRACE=", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building the crash program: %v\n%s", err, out)
	}
	return bin, nil
}

func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// crashRun runs the crash program with a trace in a fresh directory and
// returns the trace's path, the command (not started) and its output.
func crashCommand(t *testing.T, env []string, args ...string) (*exec.Cmd, string) {
	bin := crashProgram(t)
	path := filepath.Join(t.TempDir(), "trace")
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), append(env, "PRECOG_TRACE="+path, "GOTRACEBACK=single")...)
	return cmd, path
}

// readCrashTrace reads every event of the trace at path and fails the test
// unless it reads to a clean end: the end of a process that died (state
// Recording) unless ended is set.
func readCrashTrace(t *testing.T, path string, ended ...bool) []trace.Event {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := trace.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if want := trace.Recording; r.State() != want && len(ended) == 0 || len(ended) > 0 && r.State() != trace.Ended {
		t.Errorf("the trace's state is %v", r.State())
	}
	var evs []trace.Event
	for {
		ev, err := r.Next()
		if err == io.EOF {
			return evs
		}
		if err != nil {
			t.Fatalf("the trace (%d bytes) is damaged after %d events: %v", len(data), len(evs), err)
		}
		evs = append(evs, ev)
	}
}

// sequenceAt returns how long the run of Write events at site is, checking
// that they have the values 0, 1, 2, ... in file order and come from one
// goroutine.
func sequenceAt(t *testing.T, evs []trace.Event, site uint32) int {
	t.Helper()
	n := 0
	var g uint64
	for _, ev := range evs {
		if ev.Site != site {
			continue
		}
		if ev.Kind != trace.EvWrite || ev.Value != uint64(n) || (n > 0 && ev.Goroutine != g) {
			t.Fatalf("site %d: event %d is %v, want Write value=%d of g=%d", site, n, ev, n, g)
		}
		g = ev.Goroutine
		n++
	}
	return n
}

// checkKnown checks that the main and worker goroutines' known sequences
// are whole.
func checkKnown(t *testing.T, evs []trace.Event) {
	t.Helper()
	for _, site := range []uint32{crashSiteMain, crashSiteWorker} {
		if n := sequenceAt(t, evs, site); n != crashKnown {
			t.Errorf("site %d: %d of the %d writes in the trace", site, n, crashKnown)
		}
	}
}

// runCrash runs the program in mode and checks how it died.
func runCrash(t *testing.T, mode string, wantCode int, wantStderr string) []trace.Event {
	t.Helper()
	cmd, path := crashCommand(t, []string{"CRASH_MODE=" + mode})
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != wantCode || !strings.Contains(stderr.String(), wantStderr) {
		t.Fatalf("%s: %v, want exit status %d and %q in stderr:\n%s", mode, err, wantCode, wantStderr, tail(stderr.String()))
	}
	return readCrashTrace(t, path)
}

func tail(s string) string {
	if lines := strings.Split(s, "\n"); len(lines) > 20 {
		return strings.Join(lines[:20], "\n") + "\n..."
	}
	return s
}

func TestCrashPanicInGoroutine(t *testing.T) {
	t.Parallel() // it waits for processes, not for the CPU
	evs := runCrash(t, "panic", 2, "panic: boom")
	checkKnown(t, evs)
	// The worker's deferred End ran while it panicked.
	var worker uint64
	for _, ev := range evs {
		if ev.Site == crashSiteWorker {
			worker = ev.Goroutine
		}
	}
	var kinds []trace.Kind
	for _, ev := range goroutineEvents(evs, worker) {
		if ev.Kind != trace.EvGCEpoch && (len(kinds) == 0 || kinds[len(kinds)-1] != ev.Kind) {
			kinds = append(kinds, ev.Kind)
		}
	}
	if want := []trace.Kind{trace.EvBegin, trace.EvWrite, trace.EvEnd}; !slices.Equal(kinds, want) {
		t.Errorf("the worker recorded runs of %v, want %v", kinds, want)
	}
}

func TestCrashConcurrentMapWrites(t *testing.T) {
	t.Parallel() // it waits for processes, not for the CPU
	evs := runCrash(t, "mapwrites", 2, "fatal error: concurrent map writes")
	if n := sequenceAt(t, evs, crashSiteMain); n != crashKnown {
		t.Errorf("main: %d of the %d writes in the trace", n, crashKnown)
	}
	// Both workers were recording when the runtime stopped the process:
	// what they committed is whole, whatever each was appending is not
	// damage.
	for k := uint32(0); k < 2; k++ {
		if n := sequenceAt(t, evs, crashSiteWorker+10*k); n == 0 {
			t.Errorf("worker %d: no writes in the trace", k)
		}
	}
}

func TestCrashDeadlock(t *testing.T) {
	t.Parallel() // it waits for processes, not for the CPU
	evs := runCrash(t, "deadlock", 2, "fatal error: all goroutines are asleep - deadlock!")
	checkKnown(t, evs)
}

func TestCrashExit(t *testing.T) {
	t.Parallel() // it waits for processes, not for the CPU
	evs := runCrash(t, "exit", 3, "")
	checkKnown(t, evs)
}

// TestEndedAndCut runs a test that passes: its trace says it ended. Cut
// at any page or at a few offsets inside the header, batches and padding,
// it says it was cut, after the events before the cut.
func TestEndedAndCut(t *testing.T) {
	t.Parallel() // it waits for processes, not for the CPU
	cmd, path := crashCommand(t, nil, "-test.run=^TestDone$")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, tail(string(out)))
	}
	evs := readCrashTrace(t, path, true)
	checkKnown(t, evs)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Past the last event the writer's chunks end in padding, then the
	// file in space it never handed out: cuts there lose nothing.
	last := bytes.LastIndexFunc(data, func(r rune) bool { return r != 0 })
	cuts := []int{100, last}
	for c := 4096; c+1000 < last; c += 4096 {
		cuts = append(cuts, c-1, c, c+1, c+1000)
	}
	for _, cut := range cuts {
		r, err := trace.NewReader(bytes.NewReader(data[:cut]))
		if err != nil {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		n := 0
		for ; ; n++ {
			ev, err := r.Next()
			if err != nil {
				if err == io.EOF || !strings.Contains(err.Error(), "broken trace: file cut, ") {
					t.Fatalf("cut at %d of %d, after %d events: %v, want a cut", cut, len(data), n, err)
				}
				break
			}
			if ev != evs[n] {
				t.Fatalf("cut at %d: event %d is %v, want %v", cut, n, ev, evs[n])
			}
		}
	}
}

// TestTraceLimit runs a test that passes under a trace size limit
// (plan.TraceLimitEnv) below what it records: the file stays within the
// limit, the trace ends in state Limited after a whole prefix of the
// events, and the test still passes. A limit that is not a number of
// bytes leaves the program unrecorded, saying why.
func TestTraceLimit(t *testing.T) {
	t.Parallel() // it waits for processes, not for the CPU
	const limit = 128 << 10
	cmd, path := crashCommand(t, []string{plan.TraceLimitEnv + "=" + strconv.Itoa(limit)}, "-test.run=^TestDone$")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, tail(string(out)))
	}
	if want := "precog shim: recording stopped: the trace reached its size limit (PRECOG_TRACE_LIMIT)\n"; !strings.Contains(string(out), want) {
		t.Errorf("the output does not say %q:\n%s", want, tail(string(out)))
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > limit {
		t.Errorf("the trace is %d bytes, over the limit of %d", len(data), limit)
	}
	r, err := trace.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if r.State() != trace.Limited {
		t.Errorf("the trace's state is %v, want limited", r.State())
	}
	var evs []trace.Event
	for {
		ev, err := r.Next()
		if err != nil {
			if !errors.Is(err, trace.ErrLimited) || !errors.Is(err, trace.ErrBroken) {
				t.Fatalf("the trace ends after %d events in %v, want its size limit", len(evs), err)
			}
			break
		}
		evs = append(evs, ev)
	}
	if n := sequenceAt(t, evs, crashSiteMain); n == 0 || n == crashKnown {
		t.Errorf("the main goroutine's sequence has %d of its %d writes, want a prefix", n, crashKnown)
	}

	cmd, path = crashCommand(t, []string{plan.TraceLimitEnv + "=64MiB"}, "-test.run=^TestDone$")
	out, err = cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, tail(string(out)))
	}
	if want := `precog shim: not recording: PRECOG_TRACE_LIMIT: want a positive number of bytes, got "64MiB"`; !strings.Contains(string(out), want) {
		t.Errorf("the output does not say %q:\n%s", want, tail(string(out)))
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a trace was written under a bad limit: %v", err)
	}
}

// TestTraceLimitCut runs workers that take seqs as fast as they can under
// a trace size limit: the goroutines that still hold room in the file when
// the recording stops go on writing there until they notice, while the one
// that hit the limit writes nothing more, so the file holds sync events
// past a gap. What ReadAll returns must still be a consistent prefix: the
// seqs of its sync events are 1 to n without a gap, as in the whole
// trace the same program records without a limit.
func TestTraceLimitCut(t *testing.T) {
	t.Parallel() // it waits for processes, not for the CPU
	for _, limit := range []int{0, 64 << 10, 256 << 10} {
		env := []string{}
		if limit > 0 {
			env = append(env, plan.TraceLimitEnv+"="+strconv.Itoa(limit))
		}
		cmd, path := crashCommand(t, env, "-test.run=^TestSyncing$")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("limit %d: %v\n%s", limit, err, tail(string(out)))
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := trace.ReadAll(f)
		f.Close()
		if limit > 0 && !errors.Is(err, trace.ErrLimited) || limit == 0 && err != nil {
			t.Fatalf("limit %d: the trace ends in %v", limit, err)
		}
		var seqs []uint64
		for _, ev := range tr.Events {
			if ev.Sub == 0 && ev.Kind != trace.EvAtomicLoad {
				seqs = append(seqs, ev.Seq)
			}
		}
		if len(seqs) < 100 {
			t.Fatalf("limit %d: only %d sync events", limit, len(seqs))
		}
		for i, s := range seqs {
			if s != uint64(i+1) {
				t.Fatalf("limit %d: sync event %d of %d has seq %d, want %d: a gap", limit, i, len(seqs), s, i+1)
			}
		}
		if want := busyWorkersSyncs; limit == 0 && len(seqs) < want {
			t.Errorf("the whole trace has %d sync events, want at least %d", len(seqs), want)
		}
		if limit > 0 && len(seqs) >= busyWorkersSyncs {
			t.Errorf("limit %d: %d sync events, the whole run's", limit, len(seqs))
		}
	}
}

// busyWorkersSyncs is how many atomic adds TestSyncing's workers make.
const busyWorkersSyncs = 4 * crashKnown

// TestCrashTestTimeout runs a test that hangs under -test.timeout: the
// testing package's alarm panics and the process exits.
func TestCrashTestTimeout(t *testing.T) {
	t.Parallel() // it waits for processes, not for the CPU
	cmd, path := crashCommand(t, nil, "-test.run=^TestHang$", "-test.timeout=1s")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Stdout = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || !strings.Contains(stderr.String(), "panic: test timed out after 1s") {
		t.Fatalf("%v, want the timeout panic in:\n%s", err, tail(stderr.String()))
	}
	evs := readCrashTrace(t, path)
	checkKnown(t, evs)
	if !slices.ContainsFunc(evs, func(ev trace.Event) bool { return ev.Kind == trace.EvTestStart && ev.Name == "TestHang" }) {
		t.Errorf("no TestStart of TestHang in the trace")
	}
}

// TestCrashKill kills, with SIGKILL, a test whose goroutines record as
// fast as they can, as go test does to a test binary that outlives its
// timeout. Every event a worker reported as recorded must be in the trace,
// and the trace must end cleanly whatever the workers were appending.
func TestCrashKill(t *testing.T) {
	t.Parallel() // it waits for processes, not for the CPU
	for round := 0; round < 3; round++ {
		cmd, path := crashCommand(t, nil, "-test.run=^TestBusy$")
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		reported := make([]int, crashBusy)
		s := bufio.NewScanner(stdout)
		for lines, deadline := 0, time.Now().Add(20*time.Second); s.Scan() && time.Now().Before(deadline); lines++ {
			f := strings.Fields(s.Text())
			if len(f) != 2 {
				continue
			}
			k, _ := strconv.Atoi(f[0])
			n, _ := strconv.Atoi(f[1])
			if k >= 0 && k < crashBusy {
				reported[k] = n
			}
			if lines >= 4*crashBusy+round*3 && min(reported[0], reported[1], reported[2], reported[3]) > 0 {
				break
			}
		}
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		go io.Copy(io.Discard, stdout)
		cmd.Wait()
		evs := readCrashTrace(t, path)
		for k := 0; k < crashBusy; k++ {
			n := sequenceAt(t, evs, crashSiteBusy+uint32(k))
			if reported[k] == 0 || n < reported[k] {
				t.Errorf("round %d, worker %d: %d writes in the trace, %d reported recorded\n%s", round, k, n, reported[k], tail(stderr.String()))
			}
		}
	}
}

// TestFullDisk records four goroutines at once into a file system too
// small for the trace: the shim stops recording with one line on stderr,
// the test runs on and passes, and the trace holds whole known sequences
// up to the stop (no goroutine wrote over its chunk after it), then says
// that recording stopped. It needs a tmpfs mount (root), and skips
// without one.
func TestFullDisk(t *testing.T) {
	t.Parallel() // it waits for processes, not for the CPU
	dir := t.TempDir()
	if err := exec.Command("mount", "-t", "tmpfs", "-o", "size=128k", "tmpfs", dir).Run(); err != nil {
		t.Skipf("no tmpfs mount: %v", err)
	}
	defer exec.Command("umount", dir).Run()
	cmd, _ := crashCommand(t, nil, "-test.run=^TestParallel$")
	path := filepath.Join(dir, "trace")
	cmd.Env = append(cmd.Env, "PRECOG_TRACE="+path)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "precog shim: recording stopped: ") {
		t.Fatalf("%v, want a pass with the stop on stderr:\n%s", err, tail(string(out)))
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := trace.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var evs []trace.Event
	for {
		ev, err := r.Next()
		if err != nil {
			if err == io.EOF || !strings.Contains(err.Error(), "broken trace: recording stopped early") {
				t.Fatalf("after %d events: %v, want the stop", len(evs), err)
			}
			break
		}
		evs = append(evs, ev)
	}
	n := 0
	for k := uint32(0); k < crashBusy; k++ {
		n += sequenceAt(t, evs, crashSiteBusy+k)
	}
	if n == 0 || n >= crashBusy*crashKnown {
		t.Errorf("%d of the %d known writes in the trace, want some, not all", n, crashBusy*crashKnown)
	}
}
