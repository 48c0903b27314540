package static

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"

	"github.com/precog-dev/precog/internal/corpus"
)

// TestFactCache checks that a package analysed only for its importers is
// read back from the fact cache by the next analysis, which then reports
// the same on the root, and that a change to a dependency's file is
// analysed again, with its importers, and seen by the root.
func TestFactCache(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	dir := writeModule(t, maps.Clone(factsModule))
	cache := t.TempDir()
	// analyse returns the rendering of every action and the packages
	// that were analysed from source (their syntax is there when they
	// are visited; a package read from the cache has none).
	analyse := func() (map[string]string, []string) {
		t.Helper()
		prog, err := Load(t.Context(), Config{Dir: dir, Patterns: []string{"./c"}, Lazy: true})
		if err != nil {
			t.Fatal(err)
		}
		prog.FactCache = cache
		got := make(map[string]string)
		var fromSource []string
		err = prog.Analyze(t.Context(), []*analysis.Analyzer{factsAnalyzer}, func(act *checker.Action) {
			got[act.String()] = corpus.RenderAction(act)
			if act.Package.Syntax != nil {
				fromSource = append(fromSource, act.Package.PkgPath)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(fromSource)
		return got, fromSource
	}
	root := "facts@example.com/m/c"

	cold, analysed := analyse()
	if want := []string{"example.com/m/a", "example.com/m/b", "example.com/m/c"}; !slices.Equal(analysed, want) {
		t.Fatalf("cold: analysed %q, want %q", analysed, want)
	}
	warm, analysed := analyse()
	if want := []string{"example.com/m/c"}; !slices.Equal(analysed, want) {
		t.Errorf("warm: analysed %q, want only the root %q", analysed, want)
	}
	if warm[root] != cold[root] {
		t.Errorf("warm run's root:\n%s\ncold run's:\n%s", warm[root], cold[root])
	}
	if !strings.Contains(cold[root], "a.T.M") {
		t.Fatalf("the root saw no fact of a's method:\n%s", cold[root])
	}

	// A constant added to a: a and b (whose key follows a's) are
	// analysed again, and the root sees the new constant's fact.
	f := filepath.Join(dir, "a", "a.go")
	src, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f, append(src, "\nconst D = 2\n"...), 0o666); err != nil {
		t.Fatal(err)
	}
	changed, analysed := analyse()
	if want := []string{"example.com/m/a", "example.com/m/b", "example.com/m/c"}; !slices.Equal(analysed, want) {
		t.Errorf("after a change to a: analysed %q, want %q", analysed, want)
	}
	if !strings.Contains(changed[root], "a.C, a.D, a.T") {
		t.Errorf("after a change to a, the root did not see a.D:\n%s", changed[root])
	}
}
