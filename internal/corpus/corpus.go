// Package corpus locates precog's kernel corpus, testdata/kernels, for the
// tests that judge precog by it: a module (precog.example/kernels) with one
// package per kernel, each carrying both of its expectations. What precog
// vet must report is written as analysistest's backquoted `// want`
// comments on the reported lines (the analyzers' tests and
// analyzers/suite check them); what precog test must report is the
// package's expect file (package internal/expect; the kernel end-to-end
// test of precog test checks them).
package corpus

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
)

// Dir returns the corpus's directory.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata", "kernels")
}

// Packages returns the directories under dir that hold Go files, relative
// to dir and slash-separated ("mysql", "negative/mutex"), sorted: the
// corpus's packages.
func Packages(dir string) ([]string, error) {
	var pkgs []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if gofiles, _ := filepath.Glob(filepath.Join(path, "*.go")); len(gofiles) > 0 {
			rel, err := filepath.Rel(dir, path)
			if err != nil {
				return err
			}
			pkgs = append(pkgs, filepath.ToSlash(rel))
		}
		return nil
	})
	slices.Sort(pkgs)
	return pkgs, err
}

// Apart reports whether the corpus package pkg (as Packages names it) is a
// module of its own, with a go.mod in its directory: a kernel that needs an
// older language version, such as loopvar121. Such a package cannot be
// loaded as part of the corpus's module.
func Apart(dir, pkg string) bool {
	_, err := os.Stat(filepath.Join(dir, filepath.FromSlash(pkg), "go.mod"))
	return err == nil
}

// A Want is one expectation of a `// want` comment: a diagnostic whose
// message matches Pattern at File:Line.
type Want struct {
	File    string // slash-separated, relative to the corpus
	Line    int
	Pattern *regexp.Regexp
}

func (w Want) String() string { return fmt.Sprintf("%s:%d: want `%s`", w.File, w.Line, w.Pattern) }

// patternRx matches the Go string literals of a want comment.
var patternRx = regexp.MustCompile("`[^`]*`|\"(?:[^\"\\\\]|\\\\.)*\"")

// Wants returns the `// want` expectations of the Go files of the packages
// under dir, sorted by file and line.
func Wants(dir string) ([]Want, error) {
	pkgs, err := Packages(dir)
	if err != nil {
		return nil, err
	}
	var wants []Want
	for _, p := range pkgs {
		files, _ := filepath.Glob(filepath.Join(dir, filepath.FromSlash(p), "*.go"))
		for _, f := range files {
			ws, err := fileWants(dir, f)
			if err != nil {
				return nil, err
			}
			wants = append(wants, ws...)
		}
	}
	return wants, nil
}

func fileWants(dir, path string) ([]Want, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rel, _ := filepath.Rel(dir, path)
	rel = filepath.ToSlash(rel)
	var wants []Want
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		// As analysistest reads them: "// want" ends the line's code or
		// follows another comment, then come Go string literals.
		_, rest, ok := strings.Cut(sc.Text(), "// want ")
		if !ok {
			continue
		}
		lits := patternRx.FindAllString(rest, -1)
		if len(lits) == 0 {
			return nil, fmt.Errorf("%s:%d: a want comment without a pattern", rel, n)
		}
		for _, lit := range lits {
			s, err := strconv.Unquote(lit)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %v", rel, n, err)
			}
			rx, err := regexp.Compile(s)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %v", rel, n, err)
			}
			wants = append(wants, Want{File: rel, Line: n, Pattern: rx})
		}
	}
	return wants, sc.Err()
}

// Negative returns the corpus's static negative controls, the packages
// under negative/: no check of precog vet may report anything there.
func Negative(dir string) ([]string, error) {
	pkgs, err := Packages(dir)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(pkgs, func(p string) bool { return !strings.HasPrefix(p, "negative/") }), nil
}
