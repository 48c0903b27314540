package expect_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/precog-dev/precog/internal/corpus"
	"github.com/precog-dev/precog/internal/expect"
)

// TestCorpusExplainFiles reads every explain file of the kernel corpus and
// checks it against its package: the test exists, and each site is a line
// of a Go file of the package that holds a statement, so that an edit of a
// kernel that moves its lines cannot leave its explain file behind
// unnoticed. (Whether precog explain gives these root causes is its own
// end-to-end test's business.)
func TestCorpusExplainFiles(t *testing.T) {
	dir := corpus.Dir()
	pkgs, err := corpus.Packages(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, pkg := range pkgs {
		path := filepath.Join(dir, filepath.FromSlash(pkg), "explain")
		if _, err := os.Stat(path); os.IsNotExist(err) {
			continue
		}
		n++
		x, err := expect.ReadExplain(path)
		if err != nil {
			t.Error(err)
			continue
		}
		tests, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*_test.go"))
		found := false
		decl := regexp.MustCompile(`(?m)^func ` + regexp.QuoteMeta(x.Test) + `\(t \*testing\.T\)`)
		for _, f := range tests {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			found = found || decl.Match(data)
		}
		if !found {
			t.Errorf("%s/explain: no func %s(t *testing.T) in the package's tests", pkg, x.Test)
		}
		for _, s := range x.Sites {
			file, line, _ := strings.Cut(s, ":")
			data, err := os.ReadFile(filepath.Join(filepath.Dir(path), filepath.FromSlash(file)))
			if err != nil || !strings.HasSuffix(file, ".go") {
				t.Errorf("%s/explain: site %s is not in a Go file of the package", pkg, s)
				continue
			}
			lines := strings.Split(string(data), "\n")
			var ln int
			for _, c := range line {
				ln = 10*ln + int(c-'0')
			}
			if ln > len(lines) {
				t.Errorf("%s/explain: site %s is past the end of %s", pkg, s, file)
				continue
			}
			code, _, _ := strings.Cut(strings.TrimSpace(lines[ln-1]), "//")
			if code == "" || code == "{" || code == "}" {
				t.Errorf("%s/explain: site %s is not a statement: %q", pkg, s, lines[ln-1])
			}
		}
	}
	if n == 0 {
		t.Error("no kernel has an explain file")
	}
}
