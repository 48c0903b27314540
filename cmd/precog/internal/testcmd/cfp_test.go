package testcmd_test

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/precog-dev/precog/cmd/precog/internal/cli"
	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/internal/expect"
	"github.com/precog-dev/precog/internal/precogbin"
)

// cfpCorpus is the module of the CFP paper's figures and a multi-test
// package (testdata/cfp/README.md).
var cfpCorpus, _ = filepath.Abs(filepath.Join("..", "..", "..", "..", "testdata", "cfp"))

// guidedLine is the summary line of CFP-guided detection.
var guidedLine = regexp.MustCompile(`cfp: detected in (\d+) of (\d+) tests and (\d+) of (\d+) functions`)

// TestCFPGuided runs precog test over the CFP corpus guided (the default)
// and with -cfp=false: both must report what each package's expect file
// says, guided detection with fewer tests, fewer functions and no more
// reports, and each bug of the multi-test packages by one test only.
// Like TestKernels it runs precog built without -race (precogbin):
// the race detector's cost on two analyses of a whole corpus buys
// nothing that the in-process tests of this package do not check.
func TestCFPGuided(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the CFP corpus twice (about 40 s)")
	}
	cache := sharedCache
	entries, err := os.ReadDir(cfpCorpus)
	if err != nil {
		t.Fatal(err)
	}
	expects := make(map[string]*expect.File)
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(cfpCorpus, e.Name(), "expect"))
		if err != nil {
			continue
		}
		if expects[e.Name()], err = expect.Parse(data); err != nil {
			t.Fatalf("%s/expect: %v", e.Name(), err)
		}
	}
	reports := make(map[bool]int)
	for _, guided := range []bool{true, false} {
		args := []string{"test", "-json", "-cache", cache, "-timeout", "1m", "-record-budget", "0", "-cfp=" + strconv.FormatBool(guided), "./..."}
		if !guided {
			// Statuses are the guided run's to check: the full run is
			// here for what it detects, and validating its findings
			// again took about a third of this test's CPU.
			args = append(args, "-validate=false", "-fail-on=predicted")
		}
		// A package whose test failed by itself when recorded, or whose
		// findings are right but for a status, has timing to blame (the
		// corpus hides its bugs behind sleeps of 2-5 ms, which a loaded
		// machine outlasts: fft's test failed so in .ci/run): as in
		// TestKernels, the run is judged by a second one.
		var (
			stderr string
			fs     []finding.Finding
		)
		for try := 0; try < 2; try++ {
			var stdout string
			var code int
			stdout, stderr, code = precogbin.Run(t, cfpCorpus, args...)
			if code != 3 {
				t.Fatalf("precog %v exited %d, want 3:\n%s", args, code, stderr)
			}
			fs = decodeFindings(t, stdout)
			miss := timingMiss(expects, guided, fs)
			if miss == "" || try == 1 {
				break
			}
			t.Logf("-cfp=%v: %s; running the corpus again", guided, miss)
		}
		for pkg, e := range expects {
			r := expect.Compare(e, filepath.Join(cfpCorpus, pkg), "precog.example/cfp/"+pkg, fs)
			for _, x := range r.Missing {
				t.Errorf("-cfp=%v: %s/expect line %d: not reported: %s", guided, pkg, x.Line, x.Key())
			}
			for _, k := range r.Extra {
				t.Errorf("-cfp=%v: %s: reported but not expected: %s", guided, pkg, k)
			}
			for _, m := range r.WrongStatus {
				if !guided {
					break
				}
				why := ""
				if v := m.Got.Validation; v != nil {
					why = ": " + v.Reason
				}
				t.Errorf("-cfp=%v: %s/expect line %d: %s is %s, want %s%s", guided, pkg, m.Want.Line, m.Want.Key(), m.Got.Status, m.Want.Status, why)
			}
		}
		for _, f := range fs {
			reports[guided] += f.Reports
			if guided && f.Reports != 1 {
				t.Errorf("guided: %s reported by %d tests, want 1: %v", f.Kind, f.Reports, f.Tests)
			}
		}
		m := guidedLine.FindStringSubmatch(stderr)
		if !guided {
			if m != nil {
				t.Errorf("-cfp=false printed a guided summary: %s", m[0])
			}
			continue
		}
		if m == nil {
			t.Fatalf("no guided summary in:\n%s", stderr)
		}
		n := make([]int, 4)
		for i := range n {
			n[i], _ = strconv.Atoi(m[i+1])
		}
		if n[0] >= n[1] || n[2] >= n[3] {
			t.Errorf("guided detection selected %d of %d tests and %d of %d functions: want fewer of each", n[0], n[1], n[2], n[3])
		}
	}
	if reports[true] >= reports[false] {
		t.Errorf("guided detection made %d reports, full %d: want fewer", reports[true], reports[false])
	}
	t.Logf("reports: guided %d, full %d", reports[true], reports[false])
}

// timingMiss returns what, in the findings fs of a run over the CFP
// corpus, a loaded machine's timing can explain: a package's test that
// failed by itself when recorded where its expect file wants no such
// failure, or (guided: the run that validates) a status alone wrong; or
// "" if nothing.
func timingMiss(expects map[string]*expect.File, guided bool, fs []finding.Finding) string {
	for pkg, e := range expects {
		dir := filepath.Join(cfpCorpus, pkg)
		r := expect.Compare(e, dir, "precog.example/cfp/"+pkg, fs)
		if failed := failedByItself(dir, r.Extra, fs); failed != "" {
			return pkg + ": " + failed
		}
		if guided && len(r.WrongStatus) > 0 && len(r.Missing) == 0 && len(r.Extra) == 0 {
			m := r.WrongStatus[0]
			return fmt.Sprintf("%s/expect line %d: %s is %s, want %s", pkg, m.Want.Line, m.Want.Key(), m.Got.Status, m.Want.Status)
		}
	}
	return ""
}

// TestCheapRunFailures checks that a test failing in CFP's cheap run is
// not lost when CFP does not select it: one that fails in every run is
// recorded in full and its failure is a confirmed finding, and one that
// fails in its first run only (the cheap one) is a finding from that run's
// output, not confirmed since it passes without recording. The package's
// passing test, which CFP selects, stays silent.
func TestCheapRunFailures(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(t.TempDir(), "ran")
	write(t, filepath.Join(dir, "go.mod"), "module example.com/flaky\n\ngo 1.22\n")
	write(t, filepath.Join(dir, "counter.go"), `package flaky

import "sync"

type Counter struct {
	mu sync.Mutex
	n  int
}

func (c *Counter) Inc() { c.mu.Lock(); c.n++; c.mu.Unlock() }

func (c *Counter) Get() int { c.mu.Lock(); defer c.mu.Unlock(); return c.n }
`)
	write(t, filepath.Join(dir, "counter_test.go"), `package flaky

import (
	"os"
	"sync"
	"testing"
)

func TestPairs(t *testing.T) {
	var c Counter
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 10 {
				c.Inc()
				c.Get()
			}
		}()
	}
	wg.Wait()
}

func TestFailsFirstRun(t *testing.T) {
	if _, err := os.Stat(`+strconv.Quote(marker)+`); err != nil {
		os.WriteFile(`+strconv.Quote(marker)+`, nil, 0o666)
		t.Fatal("the first run fails")
	}
}

func TestAlwaysFails(t *testing.T) {
	t.Fatal("every run fails")
}
`)
	stdout, stderr, code := precog(t, dir, "test", "-json", "-cache", sharedCache, "-timeout", "1m", ".")
	if code != cli.ExitFindings {
		t.Fatalf("exit %d, want %d:\n%s", code, cli.ExitFindings, stderr)
	}
	reasons := make(map[string]string) // test -> its failure's reason
	statuses := make(map[string]finding.Status)
	for _, f := range decodeFindings(t, stdout) {
		if f.Kind != finding.TestFailed || f.Validation == nil || len(f.Tests) != 1 {
			t.Errorf("finding %s %s %s: want only test failures", f.ID, f.Kind, f.Status)
			continue
		}
		reasons[f.Tests[0]], statuses[f.Tests[0]] = f.Validation.Reason, f.Status
	}
	for test, want := range map[string]string{
		"example.com/flaky.TestAlwaysFails":   "happened in the recorded run: every run fails; the test failed again without recording (built as go test builds it)",
		"example.com/flaky.TestFailsFirstRun": "failed only when recorded: CFP's cheap run (the recorded run passed): the first run fails; passed in 2 runs without recording (built as go test builds it)",
	} {
		if got, ok := reasons[test]; !ok || !strings.Contains(got, want) {
			t.Errorf("%s: reason %q, want one with %q", test, got, want)
		}
	}
	if want := map[string]finding.Status{"example.com/flaky.TestAlwaysFails": finding.Confirmed, "example.com/flaky.TestFailsFirstRun": finding.NotConfirmed}; !maps.Equal(statuses, want) {
		t.Errorf("statuses %v, want %v", statuses, want)
	}
	if len(reasons) != 2 {
		t.Errorf("findings for %d tests, want 2: %v", len(reasons), reasons)
	}
	// One line for each failing test, saying in which runs it failed.
	for test, want := range map[string]string{
		"TestAlwaysFails":   "example.com/flaky.TestAlwaysFails: fail in CFP's cheap run and when recorded\n",
		"TestFailsFirstRun": "example.com/flaky.TestFailsFirstRun: fail in CFP's cheap run, pass when recorded again\n",
	} {
		if n := strings.Count(stderr, test+":"); n != 1 || !strings.Contains(stderr, want) {
			t.Errorf("stderr names %s in %d lines, want one: %q:\n%s", test, n, want, stderr)
		}
	}
	if m := guidedLine.FindStringSubmatch(stderr); m == nil {
		t.Errorf("no guided summary (CFP guided nothing: the test does not exercise it):\n%s", stderr)
	}
}
