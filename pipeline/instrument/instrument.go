// Package instrument rewrites the packages under test so that their
// goroutines, synchronization and shared memory accesses call the shim, and
// hands the go command an overlay that builds the rewritten files in place of
// the originals.
//
// Nothing is written into the user's tree. Instrument loads the packages with
// go/packages (tests included), decides which accesses touch shared memory
// (analyzers/sharedloc, unless Config.All), rewrites each file once with
// package rewrite, and writes into a content-addressed cache directory:
//
//	shim/<hash>/            the shim's source as module github.com/precog-dev/precog/shim
//	deps/<module>@<version> copies of dependency modules that are instrumented (the module
//	                        cache is read-only and overlays may not name its files)
//	files/<hh>/<hash>/<name> the rewritten files
//	mod/<hash>/go.mod       the user's go.mod plus a require and replace of the shim
//	                        (and replaces of the copied dependencies)
//	overlay/<hash>.json     the overlay for go build -overlay
//	sites/<hash>.json       the site table (trace.SiteTable)
//	results/<key>.json      the Result of a run, by a hash of all its inputs
//	facts/<hh>/<key>        the types and facts of a dependency analysed for its
//	                        importers (static.Program.FactCache), by a hash of its inputs
//
// The same inputs give the same paths and bytes, so a second run finds the
// go build cache warm; with the stored Result it does not even load the
// packages. Files are written to a temporary name and renamed, so two precog
// processes sharing the cache never see half a file. Entries unused for five
// days are removed.
//
// A build whose module is precog's own uses its shim/ directory instead of
// an injected module. Dependencies are instrumented only through copies:
// overlays may not name files in the module cache.
package instrument

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/packages"

	"github.com/precog-dev/precog/detect/cfp"
	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/pipeline/rewrite"
	"github.com/precog-dev/precog/pipeline/static"
	"github.com/precog-dev/precog/shim/trace"
)

// Config says what to instrument and how.
type Config struct {
	Dir        string   // directory go runs in ("" = current)
	Patterns   []string // packages whose tests will run
	BuildFlags []string // -tags and the like, passed to go list and go build
	All        bool     // instrument every heap/global access, not only shared ones
	// Locals is precog explain's full tracing (rewrite.Options.Locals):
	// every load and store of the instrumented packages, local variables
	// included, and definitions recorded so that they can be suppressed.
	// It implies All; the cache keys it apart.
	Locals bool `json:",omitempty"`
	Funcs  bool // Enter/Exit events (off by default for now)
	// CFP, when not nil, plans the function logging of CFP's cheap run
	// with analyzers/cfpplan (implying Funcs), skips the functions the
	// plan prunes and writes the plan (detect/cfp.Plan) beside the site
	// table.
	CFP      *CFPOptions
	Deps     string // -instrument-deps pattern: dependencies to instrument via replace copies
	CacheDir string // "" = filepath.Join(os.UserCacheDir(), "precog")
	// Checks are check analyzers (precog vet's) to run on the packages
	// matching Patterns, in the same analysis as the shared-location one:
	// their diagnostics come back in Result.Static, and the accesses on
	// the lines of their sites are always instrumented (precog test -vet).
	Checks []*analysis.Analyzer `json:"-"`
	// SkipBroken leaves out the matching packages whose tests do not
	// build (Result.Broken) instead of failing, when some others do
	// (precog test, as go test).
	SkipBroken bool `json:",omitempty"`
	// Progress, if not nil, is told each step as it starts (loading the
	// packages, analysing them, rewriting the files, ...): on a large
	// module the steps before the first test runs take minutes.
	Progress func(step string) `json:"-"`
}

// step reports a step to cfg.Progress.
func (cfg *Config) step(format string, args ...any) {
	if cfg.Progress != nil {
		cfg.Progress(fmt.Sprintf(format, args...))
	}
}

// Result is what a build of the instrumented tests needs.
type Result struct {
	BuildFlags []string // flags to add to go test / go test -c: -overlay=FILE and buildFlags
	Sites      string   // path of the site table JSON (trace.SiteTable)
	Plan       string   // path of the CFP plan JSON (detect/cfp.Plan); "" without Config.CFP
	Packages   []string // import paths of the packages instrumented
	// Broken has a line for each package matching Config.Patterns whose
	// tests cannot be built (it, or a package its tests import, fails to
	// load or type-check: "package PATH: file:line:col: error"), left out
	// as go test leaves out a package whose build failed; Tested are
	// then the import paths of the matching packages kept, which the
	// builds and runs must be given instead of the patterns. Both are
	// nil when every package loads.
	Broken []string `json:"broken,omitempty"`
	Tested []string `json:"tested,omitempty"`
	// Static are the findings of Config.Checks, sorted (static.Checks);
	// CheckErrors has one line per check that failed on a package.
	Static      []finding.Finding `json:"static,omitempty"`
	CheckErrors []string          `json:"checkErrors,omitempty"`
	// Marks are the import paths, sorted, of the packages under test
	// whose test binaries hold a marked call (rewrite's precog_shim.MarkV
	// or MarkF, a "mark" site: a file of theirs, or of a package their
	// tests import, was rewritten with one) that one of their tests may
	// reach (markTests). Only those tests run under
	// GODEBUG=tracebackancestors (plan.Godebug), which the shim's marks
	// need and which costs every go statement.
	Marks []string `json:"marks,omitempty"`
	// MarkTests lists, for a package of Marks, the only top-level tests
	// (Test, Example, Fuzz and Benchmark functions) that may reach a
	// marked call (markTests); a package of Marks without an entry runs
	// every test under the setting (its initialization or TestMain may
	// reach one). A package none of whose tests may reach one is not in
	// Marks.
	MarkTests map[string][]string `json:"markTests,omitempty"`
}

// Marked reports whether test (a top-level test's name) of the package
// under test path runs under GODEBUG=tracebackancestors.
func (r *Result) Marked(path, test string) bool {
	if !slices.Contains(r.Marks, path) {
		return false
	}
	names, ok := r.MarkTests[path]
	return !ok || slices.Contains(names, test)
}

// load loads the packages matching cfg.Patterns with their tests, and
// what go list says of every package of their import graph (Config.Lazy):
// analyzeShared parses, type-checks and analyses each from source (the
// shared-location analysis needs facts (spawnfacts) of the dependencies,
// and dependencies instrumented through -instrument-deps need syntax) in
// dependency order, keeping the syntax and types of the packages whose
// files may be rewritten only. Loading the whole import graph with
// syntax at once held gubernator's instrumenter at 5 GB where precog vet,
// lazy, peaked at 0.9 GB (bench/RESULTS.md, "Held-out rehearsal 12").
// (With cfg.All only the packages to instrument would need syntax, but
// loading the others from export data needs each listed as a pattern,
// which the go command refuses for a test-only dependency of a dependency
// that the main module's go.mod does not list.)
func load(ctx context.Context, cfg Config) (*static.Program, error) {
	return static.Load(ctx, static.Config{Dir: cfg.Dir, Patterns: cfg.Patterns, BuildFlags: cfg.BuildFlags, Tests: true, Lazy: true})
}

// split returns the packages of prog whose tests are to run, with the set
// of home modules (see selectFiles). A package that failed to load fails
// the whole, its files could not be rewritten; with skipBroken only when
// every matched package fails: one that fails, or whose tests import one
// that does, is left out, as go test leaves out a package whose build
// failed and tests the others (see splitBroken). Before Analyze, prog's
// errors are go list's; after it, the type checker's too.
func split(prog *static.Program, skipBroken bool) (*loaded, error) {
	l := &loaded{pkgs: prog.Packages}
	if len(prog.Errors) > 0 {
		if skipBroken {
			l.pkgs, l.tested, l.broken = splitBroken(prog.Packages, prog.Errors)
		} else {
			l.pkgs = nil
		}
		if len(l.pkgs) == 0 {
			if n := len(prog.Errors); n > 1 {
				return nil, fmt.Errorf("%s (and %d more packages with errors)", prog.Errors[0], n-1)
			}
			return nil, errors.New(prog.Errors[0])
		}
	}
	l.home = homeModules(l.pkgs)
	return l, nil
}

// loaded is what split returns.
type loaded struct {
	pkgs []*packages.Package
	home map[string]bool
	// tested and broken are splitBroken's, when a package failed to load.
	tested, broken []string
}

// splitBroken splits the matched packages roots (each package, its test
// variant and its external test package) into those whose tests can be
// built and the others: a package is broken when it, its test variant, its
// external test package or any package they import has an error (errs has
// static.Program.Errors's lines, "package PATH: first error"). It returns
// the packages kept, the import paths of the packages kept, sorted, and
// one line per broken package: the package's own first error, or the
// first error of a package it imports.
func splitBroken(roots []*packages.Package, errs []string) (keep []*packages.Package, tested, broken []string) {
	lineOf := func(path string) string {
		for _, e := range errs {
			if strings.HasPrefix(e, "package "+path+": ") {
				return e
			}
		}
		return ""
	}
	// bad returns the path of a package with an error in p's import
	// graph, an import's first: "" if none. A package that imports a
	// broken one fails to type-check with "could not import X (invalid
	// package name: "")", which hides X's own error (build constraints
	// that exclude all its files, for a package only a build tag brings
	// in), so p's own errors come last.
	memo := make(map[*packages.Package]string)
	var bad func(p *packages.Package) string
	bad = func(p *packages.Package) string {
		if b, ok := memo[p]; ok {
			return b
		}
		memo[p] = "" // a cycle (none in Go) ends here
		b := ""
		for _, path := range slices.Sorted(maps.Keys(p.Imports)) {
			if b = bad(p.Imports[path]); b != "" {
				break
			}
		}
		if b == "" && len(p.Errors) > 0 {
			b = p.PkgPath
		}
		memo[p] = b
		return b
	}
	under := underTest
	why := make(map[string]string) // broken package -> the package with the error
	for _, p := range roots {
		if b := bad(p); b != "" {
			if _, ok := why[under(p)]; !ok || b == under(p) || b == p.PkgPath {
				why[under(p)] = b
			}
		}
	}
	seen := make(map[string]bool)
	for _, p := range roots {
		path := under(p)
		if _, ok := why[path]; ok {
			continue
		}
		keep = append(keep, p)
		if !seen[path] {
			seen[path] = true
			tested = append(tested, path)
		}
	}
	for _, path := range slices.Sorted(maps.Keys(why)) {
		b := why[path]
		line := lineOf(b)
		if line == "" {
			line = "package " + b + ": does not build"
		}
		if b != path && b != path+"_test" {
			line = "package " + path + ": imports " + line
		}
		broken = append(broken, line)
	}
	slices.Sort(tested)
	return keep, tested, broken
}

// homeModules returns the modules of the packages: the main module, or the
// module cache ones whose tests run (bench/corpus runs its workloads' tests
// from the module cache).
func homeModules(pkgs []*packages.Package) map[string]bool {
	home := make(map[string]bool)
	for _, p := range pkgs {
		if p.Module != nil {
			home[p.Module.Path] = true
		}
	}
	return home
}

// Instrument instruments the packages matching cfg.Patterns, their tests, and
// the packages of the main module (and those matching cfg.Deps) that the tests
// import, and returns the flags that make go test build them.
func Instrument(ctx context.Context, cfg Config) (*Result, error) {
	if err := checkConfig(&cfg); err != nil {
		return nil, err
	}
	deps, err := parseDepsPattern(cfg.Deps)
	if err != nil {
		return nil, err
	}
	mod, err := findModule(ctx, cfg.Dir, cfg.BuildFlags)
	if err != nil {
		return nil, err
	}
	c, err := openCache(cfg.CacheDir)
	if err != nil {
		return nil, err
	}
	defer c.trim(time.Now())
	key := resultKey(ctx, cfg, mod)
	if r := c.loadResult(key); r != nil {
		return r, nil
	}
	cfg.step("loading the packages")
	prog, err := load(ctx, cfg)
	if err != nil {
		return nil, err
	}
	ld, err := split(prog, cfg.SkipBroken)
	if err != nil {
		return nil, err
	}
	pkgs := ld.pkgs
	if err := deps.unmatched(pkgs); err != nil {
		return nil, err
	}
	sel := selectFiles(pkgs, ld.home, mod, deps)
	if len(sel.files) == 0 {
		if slices.ContainsFunc(pkgs, func(p *packages.Package) bool { return p.Module == nil }) {
			return nil, fmt.Errorf("nothing to instrument in %s: standard library packages are never instrumented", strings.Join(cfg.Patterns, " "))
		}
		return nil, fmt.Errorf("no packages matched %s", strings.Join(cfg.Patterns, " "))
	}
	var shared *sharedSet
	var plans *planSet
	if cfg.CFP != nil {
		cfg.Funcs = true
		plans = newPlanSet(*cfg.CFP)
	}
	var checks *static.Checks
	if len(cfg.Checks) > 0 {
		// The checks' diagnostics on the packages under test, not on
		// the other packages of the module their tests import.
		roots := make(map[string]bool)
		for _, p := range pkgs {
			roots[p.PkgPath] = true
		}
		checks = static.NewChecks(cfg.Checks, func(p *packages.Package) bool { return roots[p.PkgPath] })
	}
	prog.Progress = func(done, total int, running []string) {
		line := fmt.Sprintf("analysed %d of %d packages (with their dependencies)", done, total)
		if len(running) > 0 {
			line += "; analysing " + strings.Join(running, ", ")
		}
		cfg.step("%s", line)
	}
	prog.FactCache = c.dir
	// The analysis also finds the two-steps (trace.Site.After), so it
	// runs with -all too. The packages whose files may be rewritten
	// keep their syntax and types for the rewriter.
	home := ld.home
	analyzed, err := analyzeShared(ctx, prog, sel.roots, func(p *packages.Package) bool { return wanted(p, home, mod, deps) },
		plans, checks, cfg.All && plans == nil && checks == nil)
	if err != nil {
		return nil, err
	}
	// The type checker may have left out more packages.
	if ld, err = split(prog, cfg.SkipBroken); err != nil {
		return nil, err
	}
	if len(ld.broken) > 0 {
		sel = reselect(sel, selectFiles(ld.pkgs, ld.home, mod, deps), analyzed)
	} else {
		sel.attach()
	}
	if !cfg.All {
		shared = analyzed
	}
	var skip map[string]bool
	var plan *cfp.Plan
	if plans != nil {
		plan = plans.plan()
		skip = skipKeys(plan)
	}
	ov := newOverlay()
	copies := make(map[string]*depCopy) // by module path
	if len(sel.modules) > 0 {
		cfg.step("copying the dependency modules to instrument (%d)", len(sel.modules))
	}
	for _, m := range sel.modules {
		dc, err := c.copyModule(m.path, m.files, mod.ModCache, copyFloor(mod.goVersion))
		if err != nil {
			return nil, err
		}
		copies[m.path] = dc
	}
	var sites []trace.Site
	first, firstFunc := uint32(1), uint32(funcSiteBase)
	instrumented := make(map[string]bool)
	for _, f := range sel.files {
		instrumented[f.pkg.PkgPath] = true
	}
	passLocal := make(map[*packages.Package]map[*types.Func]bool)
	helpers := make(map[*packages.Package]map[*types.Func]*rewrite.LockHelper)
	for _, f := range sel.files {
		if _, done := passLocal[f.pkg]; !done {
			passLocal[f.pkg], helpers[f.pkg] = localCallees(f.pkg, sel.embedded)
		}
	}
	marked := make(map[string]map[int]bool) // files rewritten with a mark: the lines of the declarations holding one
	cfg.step("rewriting the files (%d)", len(sel.files))
	for _, f := range sel.files {
		opts := rewrite.Options{Funcs: cfg.Funcs, Locals: cfg.Locals, FirstSite: first, FirstFuncSite: firstFunc, Instrumented: func(path string) bool { return instrumented[path] }}
		opts.PassLocal, opts.LockHelpers = passLocal[f.pkg], helpers[f.pkg]
		if skip != nil {
			opts.SkipFunc = skipFunc(f.pkg.Fset, skip)
		}
		if shared != nil {
			opts.Shared = shared.predicate(f.pkg.Fset, f.syntax)
			opts.Uses = shared.usesOf(f.pkg.Fset)
			opts.Starts = shared.startsOf(f.pkg.Fset)
			opts.WriteUses = shared.writeUsesOf(f.pkg.Fset)
			opts.Guards = shared.guardsOf(f.pkg.Fset)
		}
		src, err := os.ReadFile(f.path)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", f.path, err)
		}
		out, fsites, changed, err := rewrite.File(f.pkg.Fset, f.syntax, src, f.pkg.Types, f.pkg.TypesInfo, opts)
		if err != nil {
			return nil, fmt.Errorf("instrumenting %s: %w", f.path, err)
		}
		n, nf, err := checkSites(f.path, first, firstFunc, fsites)
		if err != nil {
			return nil, err
		}
		first, firstFunc = first+n, firstFunc+nf
		if first >= funcSiteBase {
			return nil, fmt.Errorf("instrumenting %s: more than %d sites", f.path, funcSiteBase-1)
		}
		sites = append(sites, fsites...)
		for _, s := range fsites {
			if s.Kind == "mark" {
				if marked[f.path] == nil {
					marked[f.path] = make(map[int]bool)
				}
				marked[f.path][s.DeclLine] = true
			}
		}
		target := f.path
		if dc := copies[f.module]; dc != nil {
			target = dc.path(f.path)
		}
		if changed { // an unchanged file of a copied module is in the copy already
			p, err := c.putFile(filepath.Base(f.path), out)
			if err != nil {
				return nil, err
			}
			ov.add(target, p)
		}
	}
	shimDir, err := c.putShim(mod.goVersion)
	if err != nil {
		return nil, err
	}
	copied := slices.ContainsFunc(sel.modules, func(m depModule) bool { return copies[m.path].dir != "" })
	if !mod.selfHosted || copied {
		gomod, err := overlaidGoMod(mod, shimDir, copies)
		if err != nil {
			return nil, err
		}
		modPath, err := c.putNamed("mod", "go.mod", gomod)
		if err != nil {
			return nil, err
		}
		ov.add(mod.GoMod, modPath)
	}
	if copied {
		cfg.step("completing go.sum for the copied modules")
		if err := completeGoSum(ctx, c, cfg, mod, ov); err != nil {
			return nil, err
		}
	}
	ovPath, err := c.putJSON("overlay", ov.json())
	if err != nil {
		return nil, err
	}
	addSteps(sites, analyzed.steps)
	sitesPath, err := c.putJSON("sites", siteTableJSON(sites))
	if err != nil {
		return nil, err
	}
	flags := append([]string{"-overlay=" + ovPath}, buildFlags...)
	if mod.modulesOnly {
		flags = append(flags, "-mod=readonly")
	}
	res := &Result{
		BuildFlags: flags,
		Sites:      sitesPath,
		Packages:   sel.paths(),
		Tested:     ld.tested,
		Broken:     ld.broken,
	}
	res.Marks, res.MarkTests = withMarks(ld.pkgs, marked)
	if checks != nil {
		res.Static, res.CheckErrors = checks.Findings()
	}
	if plan != nil {
		data, err := json.Marshal(plan)
		if err != nil {
			return nil, err
		}
		if res.Plan, err = c.putJSON("plans", data); err != nil {
			return nil, err
		}
	}
	dirs := []string{shimDir}
	for _, dc := range copies {
		if dc.dir != "" {
			dirs = append(dirs, dc.dir)
		}
	}
	slices.Sort(dirs)
	if err := c.storeResult(key, res, dirs); err != nil {
		return nil, err
	}
	return res, nil
}

// withMarks returns Result.Marks and Result.MarkTests: the packages under
// test (the roots: a package, its test variant, its external test
// package) whose import graph holds a package compiling one of the marked
// files and one of whose tests may reach a mark (markTests). A file is
// rewritten once, for one variant of its package, but the overlay puts
// the rewritten file in every build of it, so the files decide. marked
// holds, per file, the lines of its declarations holding a mark.
func withMarks(roots []*packages.Package, marked map[string]map[int]bool) ([]string, map[string][]string) {
	if len(marked) == 0 {
		return nil, nil
	}
	memo := make(map[*packages.Package]bool)
	var has func(p *packages.Package) bool
	has = func(p *packages.Package) bool {
		if m, ok := memo[p]; ok {
			return m
		}
		memo[p] = false // a cycle (none in Go) ends here
		m := slices.ContainsFunc(p.CompiledGoFiles, func(f string) bool { return marked[f] != nil })
		for _, q := range p.Imports {
			if m {
				break
			}
			m = has(q)
		}
		memo[p] = m
		return m
	}
	var out []string
	for _, p := range roots {
		if has(p) {
			out = append(out, underTest(p))
		}
	}
	slices.Sort(out)
	out = slices.Compact(out)
	tests := markTests(roots, marked)
	var marks []string
	var some map[string][]string
	for _, path := range out {
		names, ok := tests[path]
		switch {
		case !ok:
			// No test of the package may reach a mark.
		case names == nil:
			marks = append(marks, path) // every test
		default:
			marks = append(marks, path)
			if some == nil {
				some = make(map[string][]string)
			}
			some[path] = names
		}
	}
	return marks, some
}

// underTest returns the import path of the package whose tests root p
// runs: p's for p, "p [p.test]" and "p_test [p.test]".
func underTest(p *packages.Package) string {
	if id, ok := strings.CutSuffix(p.ID, ".test]"); ok {
		if _, forTest, ok := strings.Cut(id, " ["); ok {
			return forTest
		}
	}
	return p.PkgPath
}

// buildFlags are the go test flags every instrumented build takes besides
// its overlay. Instrumented test binaries are precog's, not the user's, and
// a cold precog test is two thirds build (bench/RESULTS.md, "CI time,
// 2026-11-29 (citime)"):
//   - -vet=off: go test's vet would check the instrumented files, so what
//     it said would be about precog's rewrite, not the user's code (go vet
//     is the user's own step); it was 6% of a cold precog test's CPU.
//   - -ldflags=-w: nothing reads an instrumented binary's DWARF (stacks
//     come from the runtime's own tables), and writing it was a fifth of
//     each link. A user's -ldflags, which comes after these flags,
//     replaces it.
var buildFlags = []string{"-vet=off", "-ldflags=-w"}

// checkConfig rejects configurations that cannot work, each with one line.
func checkConfig(cfg *Config) error {
	if cfg.Locals {
		cfg.All = true
	}
	if len(cfg.Patterns) == 0 {
		return errors.New("no packages to instrument: the package pattern list is empty")
	}
	for _, p := range cfg.Patterns {
		if strings.TrimSpace(p) == "" {
			return errors.New("no packages to instrument: empty package pattern")
		}
	}
	if cfg.Dir != "" {
		fi, err := os.Stat(cfg.Dir)
		if err != nil {
			return fmt.Errorf("directory %s: %w", cfg.Dir, errors.Unwrap(err))
		}
		if !fi.IsDir() {
			return fmt.Errorf("directory %s: not a directory", cfg.Dir)
		}
		abs, err := filepath.Abs(cfg.Dir)
		if err != nil {
			return err
		}
		cfg.Dir = abs
	}
	for _, f := range cfg.BuildFlags {
		name, _, _ := strings.Cut(strings.TrimLeft(f, "-"), "=")
		switch name {
		case "cover", "covermode", "coverpkg", "coverprofile":
			return fmt.Errorf("flag -%s is not supported: go test -cover ignores the overlay that holds the instrumented files", name)
		case "overlay":
			return errors.New("flag -overlay is not supported: precog builds its own overlay")
		case "modfile":
			return errors.New("flag -modfile is not supported: precog overlays the module's go.mod")
		}
	}
	return nil
}

// checkSites checks the seam: the sites of a file are numbered from first
// upwards without gaps.
// funcSiteBase is the first id of the "func" sites, which are numbered
// apart from the others (rewrite.Options.FirstFuncSite), so that adding a
// function moves no id a reproducer names. It keeps a func site's id at
// four bytes in the trace's varints.
const funcSiteBase = 1 << 21

// checkSites checks that a file's sites are numbered from first, and its
// func sites from firstFunc, without gaps, and returns how many of each
// it used.
func checkSites(path string, first, firstFunc uint32, sites []trace.Site) (n, nf uint32, err error) {
	for i, s := range sites {
		want := &n
		base := first
		if s.Kind == "func" {
			want, base = &nf, firstFunc
		}
		if s.ID != base+*want {
			return 0, 0, fmt.Errorf("instrumenting %s: site %d has id %d, want %d", path, i, s.ID, base+*want)
		}
		*want++
	}
	return n, nf, nil
}

// A file to instrument, with the package whose syntax and types describe it.
type file struct {
	path   string // absolute path of the original file
	pkg    *packages.Package
	syntax *ast.File // set by selection.attach, once the package is analysed
	module string    // path of the module the file belongs to
}

// A selection is the files to instrument, in site-numbering order, and the
// packages whose analysis decides what is shared.
type selection struct {
	files   []file
	roots   []*packages.Package // the packages the files come from, sorted by ID
	modules []depModule         // dependency modules to copy, sorted by path
	// embedded are the source files that a package embeds, left as
	// they are (see selectFiles).
	embedded map[string]bool
}

// attach gives each file the syntax its package's analysis kept
// (static.Program.Keep), leaving out a file that did not parse.
func (s *selection) attach() {
	files := s.files[:0]
	for _, f := range s.files {
		if i := slices.Index(f.pkg.CompiledGoFiles, f.path); i >= 0 && i < len(f.pkg.Syntax) {
			f.syntax = f.pkg.Syntax[i]
			files = append(files, f)
		}
	}
	s.files = files
}

// reselect returns sel, the selection made after the analysis left out
// packages that do not type-check, with its files attached. A package
// variant of sel that was not among the analysed ones (first's roots; its
// files' preferred variant was left out) has not been analysed: every
// access in its files is recorded, as in a package whose analysis failed.
func reselect(first, sel *selection, analyzed *sharedSet) *selection {
	for _, f := range sel.files {
		if !slices.Contains(first.roots, f.pkg) {
			analyzed.failed[f.path] = true
		}
	}
	sel.attach()
	return sel
}

func (s *selection) paths() []string {
	var out []string
	for _, p := range s.roots {
		if !strings.HasSuffix(p.Name, "_test") { // an external test package has no import path
			out = append(out, p.PkgPath)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// localCallees returns the functions of p that take their caller's
// shim.Local (rewrite.LocalCallees), and its lock helpers
// (rewrite.LockHelpers), except those whose name the package's
// assembly mentions (asmNames): assembly may call a Go function by name,
// with the signature it was written for. Every file of p is rewritten from
// this variant of p (selectFiles), or left as it is when it imports "C"
// or a package embeds it; cgo's generated files are not the user's and
// are never rewritten.
func localCallees(p *packages.Package, embedded map[string]bool) (map[*types.Func]bool, map[*types.Func]*rewrite.LockHelper) {
	asm, ok := asmNames(p.OtherFiles)
	if !ok {
		return nil, nil
	}
	goFiles := make(map[string]bool)
	for _, f := range p.GoFiles {
		goFiles[f] = true
	}
	rewritten := make(map[*ast.File]bool)
	for i, f := range p.Syntax {
		if i >= len(p.CompiledGoFiles) || !goFiles[p.CompiledGoFiles[i]] || embedded[p.CompiledGoFiles[i]] {
			continue
		}
		rewritten[f] = !importsC(f)
	}
	callees := rewrite.LocalCallees(p.Types, p.TypesInfo, p.Syntax, func(f *ast.File) bool { return rewritten[f] })
	for fn := range callees {
		// Leaving a function out is always sound: it then owns its
		// Local, and its callers pass it none.
		if asm[fn.Name()] {
			delete(callees, fn)
		}
	}
	return callees, lockHelpers(p.Types, p.TypesInfo, p.Syntax, asm, func(f *ast.File) bool { return rewritten[f] })
}

// lockHelpers returns the lock helpers of a package (rewrite.LockHelpers),
// none if the package's assembly names one (asm): leaving a helper out is
// sound (its lock operation is then recorded at its own site), but a
// helper whose callee was left out would pass it a site it does not
// take, so they are all left out. The two-steps (lockStepAnalyzer) and
// the sealed sections take the same helpers' calls for lock calls.
func lockHelpers(pkg *types.Package, info *types.Info, files []*ast.File, asm map[string]bool, rewritten func(*ast.File) bool) map[*types.Func]*rewrite.LockHelper {
	helpers := rewrite.LockHelpers(pkg, info, files, rewritten)
	for fn := range helpers {
		if asm[fn.Name()] {
			return nil
		}
	}
	return helpers
}

// importsC reports whether f is a cgo file.
func importsC(f *ast.File) bool {
	for _, im := range f.Imports {
		if im.Path.Value == `"C"` {
			return true
		}
	}
	return false
}

// asmNames returns the names that a package's assembly files (and the
// headers they may include) give after a middle dot: every symbol of the
// package that assembly defines or references is written ·name, a method
// ·T·m (cmd/asm replaces the dot of pkg.name with ·). ok is false when
// a file cannot be read or names something another way (·(*T)·m, say),
// and then no function of the package may change its signature. Many
// packages carry an empty .s file only so that the compiler accepts a
// body-less //go:linkname declaration (ristretto/z's rtutil.s): such a
// file names nothing.
func asmNames(files []string) (names map[string]bool, ok bool) {
	names = make(map[string]bool)
	for _, f := range files {
		switch filepath.Ext(f) {
		case ".s", ".S", ".h":
		default:
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, false
		}
		for rest := string(data); ; {
			_, after, found := strings.Cut(rest, "·")
			if !found {
				break
			}
			n := strings.IndexFunc(after, func(r rune) bool {
				return r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r)
			})
			if n < 0 {
				n = len(after)
			}
			if n == 0 {
				return nil, false
			}
			names[after[:n]] = true
			rest = after[n:]
		}
	}
	return names, true
}

// selectFiles picks the files to instrument: those of the packages matching
// the patterns (the roots go/packages returned) and of every other package
// in their import graph that belongs to the main module, to the module of a
// root (when the tests run from the module cache, as bench/corpus does), or
// matches deps.
// Standard library packages and the generated test mains are never
// instrumented, and a file that belongs to several package variants (p and
// "p [p.test]") is rewritten once, from the variant that the rank prefers.
func selectFiles(pkgs []*packages.Package, home map[string]bool, mod *moduleInfo, deps depsPattern) *selection {
	best := make(map[string]*packages.Package) // file -> package variant
	mods := make(map[string]depModule)
	// A source file that a package embeds (//go:embed fs.go in a file
	// server's test, serving its own source) stays as it is: the build's
	// overlay would embed the instrumented copy, and a test comparing
	// what it serves with the file on disk would fail only when recorded
	// (fasthttp's FS tests). A test variant may embed what the package
	// compiles, so the files are gathered from every variant first.
	embedded := make(map[string]bool)
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, f := range p.EmbedFiles {
			embedded[f] = true
		}
	})
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		if len(p.CompiledGoFiles) == 0 || !wanted(p, home, mod, deps) {
			return
		}
		if main := p.Module.Main && p.Module.GoMod == mod.GoMod; !main {
			mods[p.Module.Path] = depModule{path: p.Module.Path, files: moduleOf(p.Module)}
		}
		goFiles := make(map[string]bool)
		for _, f := range p.GoFiles {
			goFiles[f] = true
		}
		for _, f := range p.CompiledGoFiles {
			if !goFiles[f] || embedded[f] {
				continue // generated by cgo, or embedded: as in the user's tree
			}
			if q := best[f]; q == nil || variantRank(p) < variantRank(q) ||
				variantRank(p) == variantRank(q) && p.ID < q.ID {
				best[f] = p
			}
		}
	})
	sel := &selection{embedded: embedded}
	used := make(map[*packages.Package]bool)
	for path, p := range best {
		sel.files = append(sel.files, file{path: path, pkg: p, module: p.Module.Path})
		used[p] = true
	}
	slices.SortFunc(sel.files, func(a, b file) int {
		return cmp.Or(strings.Compare(a.pkg.PkgPath, b.pkg.PkgPath), strings.Compare(a.path, b.path))
	})
	for p := range used {
		sel.roots = append(sel.roots, p)
	}
	slices.SortFunc(sel.roots, func(a, b *packages.Package) int { return strings.Compare(a.ID, b.ID) })
	for _, m := range mods {
		sel.modules = append(sel.modules, m)
	}
	slices.SortFunc(sel.modules, func(a, b depModule) int { return strings.Compare(a.path, b.path) })
	return sel
}

// wanted reports whether the package p is to be instrumented: it is in the
// main module, in a home module, matches deps or is a test runner's
// (runners), and it is neither in the standard library, nor generated, nor
// the shim.
func wanted(p *packages.Package, home map[string]bool, mod *moduleInfo, deps depsPattern) bool {
	if p.Module == nil || isShim(p.PkgPath) {
		return false
	}
	main := p.Module.Main && p.Module.GoMod == mod.GoMod
	return main || home[p.Module.Path] || deps.match(p.PkgPath) || runners.match(p.PkgPath)
}

// runners are the dependencies that run a test's code on goroutines of
// their own and wait for them, instrumented whenever the tests build them
// as if -instrument-deps named them: without their go statements and
// receives, the steps of a test they run one after another are unordered
// in the trace, and every access two steps share is predicted a race.
// Ginkgo v2 runs each spec node (a BeforeEach, an It) on a new goroutine
// and waits for it to end: gomega's suite got 101 such false findings
// (held-out rehearsal 50), none with its runner instrumented (and
// validation, with fewer findings to force, ended in 7 minutes, not 12).
var runners = depsPattern{"github.com/onsi/ginkgo/v2/internal/..."}

// A depModule is a dependency module with instrumented packages: the path
// the build requires it by, and the module its files come from (the
// replacement, when go.mod replaces it).
type depModule struct {
	path  string
	files *packages.Module
}

// isShim reports whether path is a package of the shim.
func isShim(path string) bool {
	return path == shimModule || strings.HasPrefix(path, shimModule+"/")
}

// moduleOf returns the module a package's files come from.
func moduleOf(m *packages.Module) *packages.Module {
	if m.Replace == nil {
		return m
	}
	r := *m.Replace
	if r.Dir == "" {
		r.Dir = m.Dir
	}
	return &r
}

// variantRank orders the variants of a package: its test variant "p [p.test]"
// (which sees the package's own _test files), then the plain package, then
// variants recompiled for another package's tests.
func variantRank(p *packages.Package) int {
	switch p.ID {
	case p.PkgPath + " [" + p.PkgPath + ".test]":
		return 0
	case p.PkgPath:
		return 1
	}
	return 2
}

// fileOffset identifies a position independently of the FileSet base that
// go/packages gave one parse of the file: the same file parsed for p and
// for "p [p.test]" has different token.Pos values.
type fileOffset struct {
	file   string
	offset int
}

func offsetOf(fset *token.FileSet, pos token.Pos) fileOffset {
	p := fset.PositionFor(pos, false)
	return fileOffset{p.Filename, p.Offset}
}
