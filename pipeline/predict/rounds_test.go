package predict

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/pipeline/record"
)

// TestRounds checks the rounds after the first: when the build's share of
// -deadline ends with packages not linked and time is left, they are
// built, recorded and analysed in another round, into the same output
// directory, and the result is every round's. A stand-in go command (first
// in PATH) makes the first test build link a alone ("a first") or nothing
// ("none first": it compiles both into another directory, as a build cut
// before its links leaves the build cache) and then never end, so that the
// build's share, capped at 10s (Options.buildCap), stops it; every other go
// command, the later rounds' builds among them, is the real one. Both
// tests fail: b's finding is a later round's, whose progress counts add
// to the first round's (a's). On a machine too loaded to build
// a within the cap, the first round links none and the next builds both:
// the notes name what happened, and what the test holds to is that every
// package is recorded in the end, after the first build was cut. Without CFP guidance: its instrumenting analyses every
// package and its dependencies, which under -race on a loaded machine took
// the whole minute (CFP's guided recording appends as this one does).
func TestRounds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and records a module twice, and waits out a share of a deadline")
	}
	if runtime.GOOS == "windows" {
		t.Skip("the go command's stand-in is a shell script")
	}
	realGo, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	mod := t.TempDir()
	for name, content := range map[string]string{
		"go.mod":      "module example.com/m\n\ngo 1.22\n",
		"a/a_test.go": "package a\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) { t.Fatal(\"a fails\") }\n",
		"b/b_test.go": "package b\n\nimport \"testing\"\n\nfunc TestB(t *testing.T) { t.Fatal(\"b fails\") }\n",
	} {
		path := filepath.Join(mod, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name string
		// first is what the stand-in runs for the first test build,
		// before it sleeps: go test -c -o DIR/ FLAGS... PKGS... is
		// "$@" with DIR/ as $4.
		first string
		note  string
	}{
		{"a first", `for arg do shift; [ "$arg" = example.com/m/b ] || set -- "$@" "$arg"; done; ` + realGo + ` "$@"`,
			"the build's share of -deadline (10s) ended with "},
		{"none first", `elsewhere=$(mktemp -d); shift 4; ` + realGo + ` test -c -o "$elsewhere/" "$@"`,
			"the build's share of -deadline (10s) ended with 0 of 2 test binaries linked; "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := t.TempDir()
			state := filepath.Join(fake, "cut")
			script := "#!/bin/sh\n" +
				"if [ \"$1 $2\" = \"test -c\" ] && [ ! -e " + state + " ]; then\n" +
				"\ttouch " + state + "\n" +
				"\t" + tc.first + " || exit\n" +
				"\texec sleep 120\n" +
				"fi\n" +
				"exec " + realGo + " \"$@\"\n"
			if err := os.WriteFile(filepath.Join(fake, "go"), []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			t.Setenv("PATH", fake+string(os.PathListSeparator)+os.Getenv("PATH"))
			out := filepath.Join(t.TempDir(), "out")
			start := time.Now()
			var last Progress // the tracker calls Progress under its lock
			res, err := Run(t.Context(), Options{Dir: mod, Patterns: []string{"./..."}, Out: out, CacheDir: t.TempDir(),
				Flags: &record.GoTestFlags{Timeout: time.Minute}, Deadline: 5 * time.Minute, buildCap: 10 * time.Second,
				Progress: func(p Progress) { last = p }})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(state); err != nil {
				t.Fatal("the stand-in's first build did not run")
			}
			var pkgs []string
			for _, p := range res.Index.Packages {
				pkgs = append(pkgs, p.ImportPath)
			}
			slices.Sort(pkgs)
			if !slices.Equal(pkgs, []string{"example.com/m/a", "example.com/m/b"}) || len(res.NotBuilt) > 0 {
				t.Fatalf("recorded %q, not built %q; want a and b (notes %q)", pkgs, res.NotBuilt, res.Notes)
			}
			if !slices.ContainsFunc(res.Notes, func(n string) bool {
				return strings.Contains(n, tc.note) && strings.Contains(n, "round 2")
			}) {
				t.Errorf("notes %q: none says %q and what round 2 did", res.Notes, tc.note)
			}
			if !slices.ContainsFunc(res.Findings, func(f finding.Finding) bool { return slices.Contains(f.Tests, "example.com/m/b.TestB") }) {
				t.Errorf("findings %v: none of b's failure", res.Findings)
			}
			if last.Findings != len(res.Findings) {
				// A later round's counts add to the earlier rounds'.
				t.Errorf("the last progress counts %d findings; the job has %d", last.Findings, len(res.Findings))
			}
			if res.Stats.Packages != 2 || res.Stats.Tests != 2 {
				t.Errorf("stats: %d packages, %d tests analysed; want 2, 2", res.Stats.Packages, res.Stats.Tests)
			}
			// The output directory's index lists every round's
			// packages, and their files are there.
			ix, err := record.ReadIndex(out)
			if err != nil {
				t.Fatal(err)
			}
			if len(ix.Packages) != 2 || len(ix.NotBuilt) > 0 {
				t.Errorf("%s lists %d packages, not built %q; want both", record.IndexFile, len(ix.Packages), ix.NotBuilt)
			}
			for _, p := range ix.Packages {
				for _, tt := range p.Tests {
					if _, err := os.Stat(filepath.Join(out, filepath.FromSlash(tt.Log))); err != nil {
						t.Errorf("%s's log: %v", tt.Name, err)
					}
				}
			}
			t.Logf("the job took %v; notes %q", time.Since(start).Round(time.Second), res.Notes)
		})
	}
}

// TestMergeRounds checks how the findings of two rounds merge: a static
// candidate one round made a runtime finding is that finding, not the
// other round's candidate; a candidate both rounds report alone is one,
// with the tests of both; two runtime findings of one ID are one
// (finding.Merge), the stronger status kept.
func TestMergeRounds(t *testing.T) {
	static := func(id string, tests ...string) finding.Finding {
		return finding.Finding{ID: id, Analyzer: "conmem", Status: finding.NotReached, Tests: tests, Reports: max(len(tests), 1)}
	}
	run := func(id string, st finding.Status, tests ...string) finding.Finding {
		return finding.Finding{ID: id, Status: st, Tests: tests, Reports: len(tests)}
	}
	a := []finding.Finding{static("s1"), run("s2", finding.Predicted, "p.TestA"), static("s3", "p.TestA"), run("r", finding.Predicted, "p.TestA")}
	b := []finding.Finding{run("s1", finding.Predicted, "q.TestB"), static("s2"), static("s3", "q.TestB"), run("r", finding.Confirmed, "q.TestB")}
	got := make(map[string]finding.Finding)
	for _, f := range mergeRounds(a, b) {
		if _, dup := got[f.ID]; dup {
			t.Errorf("%s twice", f.ID)
		}
		got[f.ID] = f
	}
	for id, want := range map[string]struct {
		analyzer string
		status   finding.Status
		reports  int
		tests    []string
	}{
		"s1": {"", finding.Predicted, 1, []string{"q.TestB"}},
		"s2": {"", finding.Predicted, 1, []string{"p.TestA"}},
		"s3": {"conmem", finding.NotReached, 2, []string{"p.TestA", "q.TestB"}},
		"r":  {"", finding.Confirmed, 2, []string{"p.TestA", "q.TestB"}},
	} {
		f := got[id]
		if f.Analyzer != want.analyzer || f.Status != want.status || f.Reports != want.reports || !slices.Equal(f.Tests, want.tests) {
			t.Errorf("%s: analyzer %q, %s, %d reports, tests %q; want %q, %s, %d, %q", id, f.Analyzer, f.Status, f.Reports, f.Tests, want.analyzer, want.status, want.reports, want.tests)
		}
	}
}
