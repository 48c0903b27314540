package testcmd_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/precog-dev/precog/detect/finding"
)

// TestStaticAndRuntimeIDs runs precog vet and precog test on the same
// kernels and checks that a static diagnostic and the runtime finding of
// the same bug (same kind, same sites in the same roles) have the same ID,
// which is what lets a user, or confirmation, tie the two together.
func TestStaticAndRuntimeIDs(t *testing.T) {
	pkgs := []string{"./mysql", "./apache1", "./pbzip2queue", "./doneadd", "./fft", "./mapwrites"}
	// The static findings that must have a runtime twin, by kind and
	// reported position.
	twins := []string{
		"con-null mysql/mysql.go:72",
		"con-closed apache1/apache1.go:93",
		"con-closed pbzip2queue/pbzip2queue.go:59",
		"con-uninit doneadd/doneadd.go:47",
		"con-uninit fft/fft.go:90",
		"con-map mapwrites/mapwrites.go:55",
	}

	static := vetKernels(t, pkgs)

	// Validation changes a finding's status, not its ID: TestKernels'
	// findings of these kernels serve when it ran them (go test runs it
	// first), predictions of a run of their own otherwise.
	var runtime []finding.Finding
	for _, p := range pkgs {
		fs, ok := corpusFindings[strings.TrimPrefix(p, "./")]
		if !ok {
			runtime = nil
			break
		}
		runtime = append(runtime, fs...)
	}
	if runtime == nil {
		stdout, stderr, code := precog(t, kernels, append([]string{"test", "-json", "-validate=false", "-fail-on=predicted", "-cache", sharedCache, "-timeout", "1m"}, pkgs...)...)
		if code != 3 {
			t.Fatalf("precog test exited %d, want 3 (findings):\n%s", code, stderr)
		}
		runtime = decodeFindings(t, stdout)
		for _, f := range runtime {
			if f.Status != finding.Predicted {
				t.Errorf("runtime finding %s has status %q, want predicted", f.ID, f.Status)
			}
		}
	} else {
		t.Log("the runtime findings are TestKernels'")
	}

	byBug := make(map[string]finding.Finding)
	for _, f := range runtime {
		byBug[bugKey(f)] = f
	}
	var got []string
	for _, s := range static {
		if s.Status != finding.Static {
			t.Errorf("static finding %s has status %q, want static", s.ID, s.Status)
		}
		r, ok := byBug[bugKey(s)]
		if !ok {
			continue
		}
		rel, _ := filepath.Rel(kernels, s.Sites[0].File)
		name := fmt.Sprintf("%s %s:%d", s.Kind, filepath.ToSlash(rel), s.Sites[0].Line)
		if r.ID != s.ID {
			t.Errorf("%s: static ID %s, runtime ID %s for the same kind and sites", name, s.ID, r.ID)
		}
		got = append(got, name)
	}
	for _, w := range twins {
		if !slices.Contains(got, w) {
			t.Errorf("static finding %s has no runtime finding with the same sites; twins found: %s", w, strings.Join(got, ", "))
		}
	}
}

// bugKey is a finding's kind and its sites that have a role, as
// role@dir/file:line:col, sorted: what makes two findings the same bug.
func bugKey(f finding.Finding) string {
	var sites []string
	for _, s := range f.Sites {
		if s.Role != "" {
			sites = append(sites, fmt.Sprintf("%s@%s/%s:%d:%d", s.Role, filepath.Base(filepath.Dir(s.File)), filepath.Base(s.File), s.Line, s.Col))
		}
	}
	slices.Sort(sites)
	return f.Kind + " " + strings.Join(sites, " ")
}
