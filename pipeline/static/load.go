// Package static is the static stage of precog's pipeline: it loads the
// packages precog works on, with go/packages, and runs go/analysis
// analyzers over them. precog vet (the checks) and precog test (the
// instrumenter: the shared-location analysis, then the rewriter) both
// load and analyse through it, so that one set of rules decides what is
// loaded from source, which packages failed and how that is said.
package static

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/packages"
)

// Config says what to load.
type Config struct {
	Dir        string   // directory go runs in ("" = current)
	Patterns   []string // go list patterns
	BuildFlags []string // -tags and the like
	Tests      bool     // load the packages' tests too (p [p.test] and the external test package)
	// AllSyntax loads every package of the import graph from source, with
	// types and syntax. Without it only the packages matching Patterns
	// are, and their dependencies come from export data, as go vet loads
	// them: enough for analyzers that use no facts (see NeedFacts). The
	// instrumenter, which may rewrite dependencies, needs every package.
	AllSyntax bool
	// Lazy loads only what go list says of each package of the import
	// graph (files, imports, module, sizes). Program.Analyze then parses
	// and type-checks every package itself, from source, in dependency
	// order, and drops each package's syntax and types as soon as no
	// package left needs them: the peak holds a few packages, not the
	// program (see ordered). Lazy implies AllSyntax.
	Lazy bool
}

// A Program is what Load found behind the patterns.
type Program struct {
	// Packages are the packages matching the patterns (with their test
	// variants), sorted by ID, without the main packages go test
	// generates. Some may have failed to load or type-check (IllTyped).
	Packages []*packages.Package
	// Root is the directory reports name files relative to: the root of
	// the main module that contains Dir, or Dir itself when it holds
	// several modules (a go.work workspace) or none.
	Root string
	// Errors has one line per package, among Packages and their
	// dependencies, that failed to load, parse or type-check (see
	// packageErrors); nil if none did. Loaded with Config.Lazy, the
	// packages are parsed and type-checked by Analyze, and Errors is
	// complete only after it.
	Errors []string
	// Progress, if set, is told whenever Analyze starts or finishes a
	// package (in a lazy program, where every package of the import
	// graph is analysed in turn) how many are done of how many, and the
	// import paths of those in progress: a large module's vet takes
	// minutes (miniredis: 7 minutes at load 19, most of it in its root
	// package), and a CI log should show where. It is called on the
	// goroutine that called Analyze.
	Progress func(done, total int, running []string)
	// Roots, if not nil, are the packages a lazy program's Analyze runs
	// the requested analyzers on, instead of Packages: any packages of
	// the import graph (the instrumenter analyses the main module's
	// packages that the tests import, not only those matching the
	// patterns).
	Roots []*packages.Package
	// Keep, if not nil, names the packages of a lazy program whose
	// syntax, types, types.Info and line tables Analyze keeps after it
	// has visited them, for use after Analyze returns (the instrumenter
	// rewrites their files once the whole program has been analysed).
	// What is kept is not released, so it adds to the peak: keep only
	// the packages needed.
	Keep func(*packages.Package) bool
	// FactCache, if not "", is precog's cache directory, where a lazy
	// program's Analyze keeps the types and facts of the packages it
	// analyses only for their importers (the dependencies of the roots,
	// standard library included), and reads them back the next time
	// instead of analysing those packages again (see factCache).
	FactCache string

	lazy bool
	dir  string
}

// Load loads the packages matching cfg.Patterns. Packages that fail are
// described in Program.Errors rather than returned as an error, so that a
// caller may go on with the others; the error result is for failures of
// the load itself, and for patterns that match nothing.
func Load(ctx context.Context, cfg Config) (*Program, error) {
	// The embedded files: the instrumenter leaves a source file that its
	// package embeds as it is (see instrument's selectFiles).
	mode := packages.LoadSyntax | packages.NeedModule | packages.NeedEmbedFiles
	switch {
	case cfg.Lazy:
		mode = packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedImports |
			packages.NeedDeps | packages.NeedTypesSizes | packages.NeedModule | packages.NeedEmbedFiles
	case cfg.AllSyntax:
		mode = packages.LoadAllSyntax | packages.NeedModule | packages.NeedEmbedFiles
	}
	pcfg := &packages.Config{Context: ctx, Dir: cfg.Dir, Mode: mode, Tests: cfg.Tests, BuildFlags: cfg.BuildFlags}
	pkgs, err := packages.Load(pcfg, cfg.Patterns...)
	if err != nil {
		return nil, fmt.Errorf("loading packages: %s", GoError(err))
	}
	dir := cfg.Dir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	if len(pkgs) == 0 {
		return nil, noMatch(ctx, dir, cfg.Patterns)
	}
	slices.SortFunc(pkgs, func(a, b *packages.Package) int { return strings.Compare(a.ID, b.ID) })
	p := &Program{Root: sourceRoot(dir, pkgs), Errors: packageErrors(dir, pkgs), lazy: cfg.Lazy, dir: dir}
	for _, pkg := range pkgs {
		if !IsTestMain(pkg) { // generated by go test; go vet skips it too
			p.Packages = append(p.Packages, pkg)
		}
	}
	return p, nil
}

// GoError returns what the go command said in a go/packages error, on one
// line, without go/packages' wrapping ("err: exit status 1: stderr: go:
// go.mod file not found ...").
func GoError(err error) string {
	msg := err.Error()
	if _, stderr, ok := strings.Cut(msg, "stderr: "); ok && strings.TrimSpace(stderr) != "" {
		msg = stderr
	}
	return strings.TrimPrefix(oneLine(msg), "go: ")
}

// IsTestMain reports whether p is the main package that go test generates
// to run a package's tests ("p.test").
func IsTestMain(p *packages.Package) bool {
	return p.Name == "main" && p.ID == p.PkgPath && strings.HasSuffix(p.ID, ".test")
}

// noMatch explains why patterns matched no package. The go command says
// nothing to go/packages when dir is outside any module, the likeliest
// cause, so ask it.
func noMatch(ctx context.Context, dir string, patterns []string) error {
	err := fmt.Errorf("no packages matched %s", strings.Join(patterns, " "))
	cmd := exec.CommandContext(ctx, "go", "env", "GOMOD", "GOWORK")
	cmd.Dir = dir
	out, cmdErr := cmd.Output()
	if cmdErr != nil {
		return err
	}
	gomod, gowork, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	if (gomod == "" || gomod == os.DevNull) && (gowork == "" || gowork == "off") {
		return fmt.Errorf("%w: no go.mod file in %s or any parent directory", err, dir)
	}
	return err
}

// sourceRoot returns the directory that SARIF paths are relative to: the
// root of the main module that contains dir, or dir itself when it holds
// several modules (a go.work workspace) or none.
func sourceRoot(dir string, pkgs []*packages.Package) string {
	for _, p := range pkgs {
		if m := p.Module; m != nil && m.Main && m.Dir != "" && within(dir, m.Dir) {
			return m.Dir
		}
	}
	return dir
}

// within reports whether path is dir or below it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// packageErrors returns one line per package, among pkgs and their
// dependencies, that failed to load, parse or type-check, sorted by package
// path. Each line names the package's first error, preferring syntax errors
// to the type errors they cause, and counts the rest. Test variants of a
// package (p and "p [p.test]") share one line.
func packageErrors(dir string, pkgs []*packages.Package) []string {
	byPath := make(map[string][]pkgError)
	byPkg := make(map[string]*packages.Package) // one of each path's packages, for tagHint
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			byPath[p.PkgPath] = append(byPath[p.PkgPath], newPkgError(dir, e)...)
			byPkg[p.PkgPath] = p
		}
	})
	for path, errs := range byPath {
		// A failed compilation reported by go list repeats the parse and
		// type errors that go/packages found itself; keep the latter.
		if slices.ContainsFunc(errs, func(e pkgError) bool { return !e.compiled }) {
			errs = slices.DeleteFunc(errs, func(e pkgError) bool { return e.compiled })
		}
		slices.SortFunc(errs, pkgError.compare)
		byPath[path] = slices.Compact(errs)
	}
	// first returns a package's first error, or, when that is go/types'
	// "could not import P" of a package P with errors of its own, P's
	// first error, named as P's: the importer's line would otherwise
	// hide the cause ("invalid package name" for a package whose files
	// build constraints exclude, which is the line that says to pass
	// -tags). (go vet prints P's error on each importer's line too.)
	memo := make(map[string]string)
	var first func(path string) string
	first = func(path string) string {
		if s, ok := memo[path]; ok {
			return s
		}
		e := byPath[path][0]
		memo[path] = e.String() // a cycle (none in Go) ends here
		if imp, ok := strings.CutPrefix(e.msg, "could not import "); ok && e.kind == packages.TypeError {
			imp, _, _ = strings.Cut(imp, " (")
			if len(byPath[imp]) > 0 && imp != path {
				memo[path] = e.where() + "imports package " + imp + ": " + first(imp)
			}
		}
		return memo[path]
	}
	var lines []string
	for path, errs := range byPath {
		label := "package " + path
		if strings.HasPrefix(path, ".") || filepath.IsAbs(path) {
			label = path // a pattern naming a directory that holds no package
		}
		line := label + ": " + first(path)
		if n := len(errs) - 1; n == 1 {
			line += " (and 1 more error)"
		} else if n > 1 {
			line += fmt.Sprintf(" (and %d more errors)", n)
		}
		if e := errs[0]; e.kind == packages.TypeError {
			line += tagHint(byPkg[path], e.msg)
		}
		lines = append(lines, line)
	}
	slices.Sort(lines)
	return lines
}

// A pkgError is one error in a package, with its position split out so
// that errors sort by it.
type pkgError struct {
	kind      packages.ErrorKind
	compiled  bool   // a line of the compiler's output relayed by go list
	file      string // relative to the working directory when under it
	line, col int
	msg       string
}

// newPkgError splits e into pkgErrors: one, or one per error line when e is
// the compiler output that go list relays for a dependency ("# path\n..."),
// or none when e continues the error before it.
func newPkgError(dir string, e packages.Error) []pkgError {
	if e.Kind == packages.ListError && strings.HasPrefix(e.Msg, "# ") {
		var errs []pkgError
		for _, l := range strings.Split(e.Msg, "\n")[1:] {
			if l == "" || l[0] == ' ' || l[0] == '\t' {
				continue // continuation of the previous error
			}
			pe := parsePosMsg(dir, l)
			pe.kind, pe.compiled = e.Kind, true
			errs = append(errs, pe)
		}
		return errs
	}
	if e.Kind == packages.TypeError && strings.HasPrefix(e.Msg, "\t") {
		// The continuation of the error before it, go/types' related
		// position ("\tother declaration of main" after "main
		// redeclared in this block"): sorted by position it could come
		// first and stand alone as the package's error (a module's
		// examples directory of several mains).
		return nil
	}
	pe := pkgError{kind: e.Kind, msg: oneLine(e.Msg)}
	if e.Pos != "" && e.Pos != "-" {
		pe.file, pe.line, pe.col = splitPos(dir, e.Pos)
	}
	if e.Kind == packages.ParseError {
		pe.msg = "syntax error: " + pe.msg
	}
	return []pkgError{pe}
}

// parsePosMsg parses a compiler error line, "file:line:col: message".
func parsePosMsg(dir, s string) pkgError {
	if pos, msg, ok := strings.Cut(s, ": "); ok {
		if file, line, col := splitPos(dir, pos); line > 0 {
			return pkgError{file: file, line: line, col: col, msg: oneLine(msg)}
		}
	}
	return pkgError{msg: oneLine(s)}
}

// splitPos splits "file:line:col" or "file:line" into its parts, making
// file relative to dir when under it. A string without a line number is
// returned whole as file.
func splitPos(dir, pos string) (file string, line, col int) {
	file = pos
	if i := strings.LastIndexByte(file, ':'); i > 0 {
		if n, err := strconv.Atoi(file[i+1:]); err == nil {
			file, line = file[:i], n
			if i := strings.LastIndexByte(file, ':'); i > 0 {
				if n, err := strconv.Atoi(file[i+1:]); err == nil {
					file, line, col = file[:i], n, line
				}
			}
		}
	}
	if line == 0 {
		return pos, 0, 0
	}
	if !filepath.IsAbs(file) {
		file = filepath.Join(dir, file)
	}
	return relPath(dir, file), line, col
}

// compare orders syntax errors first, as they cause type errors, then by
// position, then by message.
func (e pkgError) compare(f pkgError) int {
	rank := func(e pkgError) int {
		switch {
		case e.kind == packages.ParseError || strings.Contains(e.msg, "syntax error"):
			return 0
		case e.kind == packages.TypeError || e.compiled:
			return 1
		}
		return 2
	}
	return cmp.Or(
		cmp.Compare(rank(e), rank(f)),
		strings.Compare(e.file, f.file),
		cmp.Compare(e.line, f.line),
		cmp.Compare(e.col, f.col),
		strings.Compare(e.msg, f.msg),
	)
}

func (e pkgError) String() string { return e.where() + e.msg }

// where returns e's position as an error line's prefix, "file:line:col: ",
// or "" if it has none.
func (e pkgError) where() string {
	switch {
	case e.line == 0:
		return ""
	case e.col == 0:
		return fmt.Sprintf("%s:%d: ", e.file, e.line)
	}
	return fmt.Sprintf("%s:%d:%d: ", e.file, e.line, e.col)
}

// oneLine joins the lines of a multi-line message, such as a type error
// with its "have ... want ..." detail, into one.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// relPath returns file relative to dir if it is under dir, or file unchanged.
func relPath(dir, file string) string {
	if within(file, dir) {
		if rel, err := filepath.Rel(dir, file); err == nil {
			return rel
		}
	}
	return file
}
