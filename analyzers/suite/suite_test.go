package suite_test

import (
	"path"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"

	"github.com/precog-dev/precog/analyzers/suite"
	"github.com/precog-dev/precog/internal/corpus"
)

// TestKernels runs every check over every package of the kernel corpus:
// together they must report exactly what the want comments say (each
// check's own test runs it alone over its kernels), and in each kernel
// only one check may report, so that one bug gives one diagnostic.
func TestKernels(t *testing.T) {
	all, err := corpus.Packages(corpus.Dir())
	if err != nil {
		t.Fatal(err)
	}
	// A kernel that is a module of its own is vetted from its own
	// directory, not as a package of the corpus's module.
	var pkgs []string
	for _, p := range all {
		if !corpus.Apart(corpus.Dir(), p) {
			pkgs = append(pkgs, p)
		}
	}
	if len(pkgs) == 0 {
		t.Fatal("no kernels found")
	}
	owner := make(map[string]string) // package -> the category reported there
	for _, d := range corpus.CheckVet(t, suite.Checks(), pkgs) {
		pkg := path.Dir(d.File)
		if c, ok := owner[pkg]; ok && c != d.Category {
			t.Errorf("%s: %s reported in a kernel where %s reports too: %s", d.File, d.Category, c, d.Message)
		}
		owner[pkg] = d.Category
	}
}

// TestSelect checks go vet's rule for choosing checks from flags.
func TestSelect(t *testing.T) {
	names := func(as []*analysis.Analyzer) string {
		var s []string
		for _, a := range as {
			s = append(s, a.Name)
		}
		return strings.Join(s, " ")
	}
	checks := []*analysis.Analyzer{{Name: "a"}, {Name: "b"}, {Name: "c"}}
	for _, tc := range []struct {
		set  map[string]bool
		want string
	}{
		{nil, "a b c"},
		{map[string]bool{"b": false}, "a c"},
		{map[string]bool{"b": true}, "b"},
		{map[string]bool{"a": true, "b": false, "c": true}, "a c"},
		{map[string]bool{"a": false, "b": false, "c": false}, ""},
	} {
		if got := names(suite.Select(checks, tc.set)); got != tc.want {
			t.Errorf("Select(%v) = %q, want %q", tc.set, got, tc.want)
		}
	}
}
