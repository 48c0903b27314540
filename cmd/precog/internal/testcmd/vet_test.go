package testcmd_test

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	// precog vet runs as precogbin's binary: its code is imported so
	// that a change to it invalidates go test's cached result.
	_ "github.com/precog-dev/precog/cmd/precog/internal/vetcmd"
	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/internal/precogbin"
)

// TestVet runs precog test -vet on kernels and checks the status of each
// diagnostic precog vet gives for them: the seeded bugs confirmed, the
// static checks' known false positives (spinflag's and prodcons's spin
// loops, conmem.txt Fig. 10 and 12(b)) reached and forced but not
// confirmed, and a dereference no test runs not reached.
func TestVet(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the kernels' tests")
	}
	pkgs := []string{"./mysql", "./pbzip2mutex", "./spinflag", "./prodcons"}
	want := map[string]finding.Status{
		"con-null mysql/mysql.go:72":             finding.Confirmed,
		"con-null pbzip2mutex/pbzip2mutex.go:67": finding.Confirmed,
		"con-null pbzip2mutex/pbzip2mutex.go:72": finding.NotReached,
	}
	// Negative controls: reached and forced, never confirmed.
	forcedOnly := []string{
		"con-null spinflag/spinflag.go:49", "con-null spinflag/spinflag.go:50",
		"con-null spinflag/spinflag.go:71", "con-null spinflag/spinflag.go:72",
		"con-null prodcons/prodcons.go:75",
	}

	static := vetKernels(t, pkgs)

	// -cfp=false: the package's tests are long enough without the cheap
	// runs; the steering of CFP's filter is not what is tested here.
	stdout, stderr, code := precog(t, kernels, append([]string{"test", "-vet", "-cfp=false", "-json", "-cache", sharedCache, "-timeout", "1m"}, pkgs...)...)
	if code != 3 {
		t.Fatalf("precog test -vet exited %d, want 3 (confirmed findings):\n%s", code, stderr)
	}
	byID := make(map[string]finding.Finding)
	for _, f := range decodeFindings(t, stdout) {
		byID[f.ID] = f
	}
	seen := make(map[string]bool)
	for _, s := range static {
		rel, _ := filepath.Rel(kernels, s.Sites[0].File)
		name := fmt.Sprintf("%s %s:%d", s.Kind, filepath.ToSlash(rel), s.Sites[0].Line)
		seen[name] = true
		f, ok := byID[s.ID]
		if !ok {
			t.Errorf("%s: precog test -vet has no finding with its ID %s", name, s.ID)
			continue
		}
		reason := ""
		if f.Validation != nil {
			reason = f.Validation.Reason
		}
		if w, ok := want[name]; ok {
			if f.Status != w {
				t.Errorf("%s: status %s (%s), want %s", name, f.Status, reason, w)
			}
			if w == finding.NotReached && !strings.Contains(reason, "not reached by any test: no recorded run ran the deref") {
				t.Errorf("%s: reason %q, want it to name the dereference no run reached", name, reason)
			}
			if w == finding.Confirmed && f.Repro == "" {
				t.Errorf("%s: confirmed without a reproducer", name)
			}
		}
		if name == "con-null prodcons/prodcons.go:75" && !strings.Contains(reason, "the value read was not nil: trx.query at prodcons.go:70 stored a non-nil value") {
			// The recorded forced run shows why (validate.Explain).
			t.Errorf("%s: reason %q, want it to say the value read was not nil", name, reason)
		}
		for _, n := range forcedOnly {
			if n == name && (f.Status == finding.Confirmed || f.Status == finding.NotReached || f.Validation == nil || f.Validation.Runs == 0) {
				t.Errorf("%s: a false positive of the static check is %s (%s), want forced and not confirmed", name, f.Status, reason)
			}
		}
	}
	for _, n := range append(forcedOnly, slices.Collect(maps.Keys(want))...) {
		if !seen[n] {
			t.Errorf("precog vet gave no diagnostic %s", n)
		}
	}
	if !strings.Contains(stderr, "vet: 9 diagnostics of precog vet: 3 confirmed,") {
		t.Errorf("summary lacks the vet line with 9 diagnostics, 3 confirmed:\n%s", stderr)
	}
}

// vetPackages are the kernels of TestVet and TestStaticAndRuntimeIDs.
var vetPackages = []string{"./mysql", "./pbzip2mutex", "./spinflag", "./prodcons", "./apache1", "./pbzip2queue", "./doneadd", "./fft", "./mapwrites"}

var vetted struct {
	once sync.Once
	out  string
	err  error
}

// vetKernels returns precog vet's diagnostics in the packages pkgs, of
// one precog vet over vetPackages that the tests share, run by the
// binary without the race detector (precogbin): under it, the vet's load
// of the standard library from source took 10.5 s of CPU instead of 3.3
// (bench/RESULTS.md, "Lead, 2026-11-30 (tenth stop)"); vetcmd's own
// tests keep precog vet's code under the race detector.
func vetKernels(t *testing.T, pkgs []string) []finding.Finding {
	t.Helper()
	vetted.once.Do(func() {
		var errs string
		var code int
		vetted.out, errs, code = precogbin.Run(t, kernels, append([]string{"vet", "-json", "-cache", sharedCache}, vetPackages...)...)
		if code != 3 {
			vetted.err = fmt.Errorf("precog vet exited %d, want 3 (findings):\n%s", code, errs)
		}
	})
	if vetted.err != nil {
		t.Fatal(vetted.err)
	}
	var fs []finding.Finding
	for _, f := range decodeFindings(t, vetted.out) {
		rel, err := filepath.Rel(kernels, filepath.Dir(f.Sites[0].File))
		if err == nil && slices.Contains(pkgs, "./"+filepath.ToSlash(rel)) {
			fs = append(fs, f)
		}
	}
	for _, p := range pkgs {
		if !slices.Contains(vetPackages, p) {
			t.Fatalf("%s is not in vetPackages", p)
		}
	}
	return fs
}
