package main_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/precog-dev/precog/internal/testcache"
)

// hangModule's test takes a lock, starts a child process (a grandchild
// of precog, in the test's process group) and hangs, after writing both
// process ids to $HANG_PIDS.
var hangModule = map[string]string{
	"h/h.go": `package h

import "sync"

var (
	mu sync.Mutex
	n  int
)

// Inc counts under the lock.
func Inc() {
	mu.Lock()
	n++
	mu.Unlock()
}
`,
	"h/h_test.go": `package h

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"
)

func TestHang(t *testing.T) {
	done := make(chan bool)
	go func() { Inc(); done <- true }()
	Inc()
	<-done
	child := exec.Command("sleep", "300")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(os.Getenv("HANG_PIDS"), []byte(fmt.Sprintf("%d %d\n", os.Getpid(), child.Process.Pid)), 0o666)
	time.Sleep(time.Hour)
}
`,
}

// TestSignals interrupts precog test, with SIGINT, SIGTERM and SIGQUIT,
// while a test hangs: precog must stop the test process and its child,
// remove its temporary directories, keep the -o directory with an index
// that marks the test interrupted, write a -ci directory whose summary
// says it was interrupted, print one line (after its goroutines'
// stacks for SIGQUIT) and exit 130, 143 or 131.
func TestSignals(t *testing.T) {
	if _, err := exec.LookPath("sleep"); err != nil {
		t.Skip("no sleep command")
	}
	exe := precog(t)
	mod := writeModule(t, hangModule)
	// The shared precog cache (internal/testcache): a fresh one costs
	// about 11 s of CPU for the shim's build; the cache is outside the
	// TMPDIR whose emptiness is checked either way.
	cache := testcache.Dir()
	for _, tc := range []struct {
		name string
		sig  syscall.Signal
		code int
	}{{"SIGINT", syscall.SIGINT, 130}, {"SIGTERM", syscall.SIGTERM, 143}, {"SIGQUIT", syscall.SIGQUIT, 131}} {
		t.Run(tc.name, func(t *testing.T) {
			tmp, out := t.TempDir(), filepath.Join(t.TempDir(), "out")
			pids := filepath.Join(t.TempDir(), "pids")
			ci := filepath.Join(t.TempDir(), "ci")
			cmd := exec.Command(exe, "test", "-o", out, "-ci", ci, "-cache", cache, "./...")
			cmd.Dir = mod
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "HANG_PIDS="+pids)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var test, child int
			for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(50 * time.Millisecond) {
				if data, err := os.ReadFile(pids); err == nil && strings.HasSuffix(string(data), "\n") {
					f := strings.Fields(string(data))
					test, _ = strconv.Atoi(f[0])
					child, _ = strconv.Atoi(f[1])
					break
				}
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					cmd.Wait()
					t.Fatalf("the test never started:\n%s", stderr.String())
				}
			}
			defer syscall.Kill(child, syscall.SIGKILL)
			defer syscall.Kill(test, syscall.SIGKILL)
			cmd.Process.Signal(tc.sig)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			var err error
			select {
			case err = <-done:
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Fatalf("precog still ran 30s after %v", tc.sig)
			}
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != tc.code {
				t.Errorf("exit %v, want status %d", err, tc.code)
			}
			want := "precog: interrupted by " + tc.name + "; the tests recorded before it are kept in " + out + ", whose index.json marks the interrupted ones; no test was analysed yet; with -deadline D a run ends by itself within D and writes its results\n"
			if got := stderr.String(); !strings.HasSuffix(got, want) || strings.Count("\n"+got, "\nprecog: ") != 1 {
				t.Errorf("stderr %q, want it to end in the one line %q", got, want)
			}
			// SIGQUIT's goroutine dump, as Go's own handling writes it.
			if got := stderr.String(); (tc.sig == syscall.SIGQUIT) != strings.Contains(got, "SIGQUIT: quit\n\ngoroutine ") {
				t.Errorf("stderr %q: want the goroutines' stacks after SIGQUIT only", got)
			}
			for _, pid := range []int{test, child} {
				if alive(pid) {
					t.Errorf("process %d outlived precog", pid)
				}
			}
			if left, _ := os.ReadDir(tmp); len(left) != 0 {
				t.Errorf("left in the temporary directory: %v", left)
			}
			var ix struct {
				Interrupted bool
				Packages    []struct {
					Tests []struct{ Name, Outcome, Trace string }
				}
			}
			data, err := os.ReadFile(filepath.Join(out, "index.json"))
			if err == nil {
				err = json.Unmarshal(data, &ix)
			}
			if err != nil || !ix.Interrupted || len(ix.Packages) != 1 || len(ix.Packages[0].Tests) != 1 ||
				ix.Packages[0].Tests[0].Outcome != "interrupted" || ix.Packages[0].Tests[0].Trace == "" {
				t.Fatalf("index %s, %v: want TestHang interrupted, with its trace", data, err)
			}
			// The nightly job's directory says why it has no results.
			var sum struct{ Error string }
			if data, err := os.ReadFile(filepath.Join(ci, "summary.json")); err != nil || json.Unmarshal(data, &sum) != nil || sum.Error != "interrupted by "+tc.name {
				t.Errorf("-ci summary.json %s (%v): want the error %q", data, err, "interrupted by "+tc.name)
			}
			dump := exec.Command(exe, "trace", "dump", filepath.Join(out, ix.Packages[0].Tests[0].Trace))
			if dout, err := dump.CombinedOutput(); err != nil || !bytes.Contains(dout, []byte("TestStart name=\"TestHang\"")) {
				t.Errorf("the kept trace: %v\n%s", err, dout)
			}
		})
	}
}

// alive reports whether process pid runs: it exists and is not a zombie
// (a container's init may not reap the orphans it adopts).
func alive(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return syscall.Kill(pid, 0) == nil // no /proc: a zombie counts as alive
	}
	f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
	return len(f) > 0 && f[0] != "Z"
}
