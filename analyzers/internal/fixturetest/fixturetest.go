// Package fixturetest checks analyzers on fixture packages as analysistest
// does (the same testdata layout and the same // want comments for
// diagnostics and facts), but loads a test binary's fixtures once and
// analyses them once with all the analyzers that check them.
//
// analysistest.Run loads every package a fixture imports from source and
// runs the analyzer's fact-bearing requirements on each of them; the
// standard library behind a fixture is almost all of an analyzer test's
// processor time (about 500 s of CI's under -race). A binary with four
// Run calls paid that four times; Run here pays it once for all its cases.
package fixturetest

import (
	"flag"
	"fmt"
	"go/types"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"
)

// A Case is one check of an analyzer on some fixture packages, a subtest
// of Run.
type Case struct {
	Name     string             // the subtest's name
	Analyzer *analysis.Analyzer // whose diagnostics and facts are checked
	Patterns []string           // the fixture packages, import paths under dir/src (no "..." or "./")

	// Flags are set for this case's analysis and reset after it. A case
	// with flags is analysed on its own (on the packages loaded for all):
	// an analyzer reads its flags while it runs, on every package.
	Flags []Flag

	// Apart asks for an analysis of the case's own, as a case with flags
	// gets: for a check of results that other cases' analyzers on the same
	// packages would share (a requirement's result that keeps state).
	Apart bool

	// PassFlags are values of flags of the case's analyzer that it reads
	// from its pass (pass.Analyzer.Flags, as suppress reads the all flag)
	// rather than from a variable: the case's analyzer gets a flag set of
	// its own, with them, and the case shares the one analysis of the
	// cases without flags. Only bool flags are supported.
	PassFlags map[string]string

	// TestsOnly checks the want comments of the packages built with their
	// tests only (withTests), not of the packages on their own: a
	// fixture whose concurrency comes only from its tests (parallel
	// subtests) has diagnostics in its package's files that the package
	// alone cannot show.
	TestsOnly bool

	// Check, if not nil, runs after the want comments are checked, on the
	// results of the case's packages (as analysistest.Run returns them,
	// without Pass).
	Check func(t *testing.T, results []*analysistest.Result)
}

// A Flag is the value of a flag of an analyzer.
type Flag struct {
	Analyzer    *analysis.Analyzer
	Name, Value string
}

// Run loads the packages of every case from dir (a GOPATH tree, as
// analysistest.TestData), analyses them in one pass with the analyzers of
// all cases that set no flag, and one more pass for each case that does
// or is apart,
// then checks each case in a subtest of its name. Each analyzer runs only
// on the packages of its own cases, except one with facts, which runs on
// every package (its facts are its importers' input).
func Run(t *testing.T, dir string, cases ...Case) {
	t.Helper()
	var patterns []string
	for _, c := range cases {
		patterns = append(patterns, c.Patterns...)
	}
	slices.Sort(patterns)
	pkgs, err := load(dir, slices.Compact(patterns))
	if err != nil {
		t.Fatal(err)
	}

	// The shared analysis runs one analyzer per analyzer of the cases
	// without flags, and one per case with flags of its pass.
	type group struct {
		a        *analysis.Analyzer
		pass     map[string]string
		patterns []string
	}
	var groups []*group
	in := make([]int, len(cases)) // the group of a case
	for i, c := range cases {
		if c.alone() {
			continue
		}
		g := -1
		if c.PassFlags == nil {
			g = slices.IndexFunc(groups, func(g *group) bool { return g.a == c.Analyzer && g.pass == nil })
		}
		if g < 0 {
			g = len(groups)
			groups = append(groups, &group{a: c.Analyzer, pass: c.PassFlags})
		}
		groups[g].patterns = append(groups[g].patterns, c.Patterns...)
		in[i] = g
	}
	roots := make([][]*checker.Action, len(cases))
	if len(groups) > 0 {
		var as []*analysis.Analyzer
		var ps []string
		for _, g := range groups {
			a, err := only(g.a, g.patterns, g.pass)
			if err != nil {
				t.Fatal(err)
			}
			as = append(as, a)
			ps = append(ps, g.patterns...)
		}
		g, err := checker.Analyze(as, of(pkgs, ps), &checker.Options{SanityCheck: true})
		if err != nil {
			t.Fatalf("analysing %v: %v", ps, err)
		}
		for i, c := range cases {
			if !c.alone() {
				roots[i] = pick(g.Roots, as[in[i]], c.Patterns)
			}
		}
	}
	for i, c := range cases {
		if c.alone() {
			roots[i] = alone(t, pkgs, c)
		}
	}

	for i, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			// A pattern is a fixture's import path, matched exactly: one
			// that matches no analysed package ("b/...", "./b") would
			// leave that fixture's want comments unchecked.
			for _, p := range c.Patterns {
				if !slices.ContainsFunc(roots[i], func(act *checker.Action) bool { return fixture(act.Package.PkgPath) == p }) {
					t.Errorf("pattern %q names no package analysed by %s: a case's patterns are fixtures' import paths", p, c.Analyzer.Name)
				}
			}
			if len(roots[i]) == 0 {
				t.FailNow()
			}
			var results []*analysistest.Result
			checked := 0
			for _, act := range roots[i] {
				if c.TestsOnly && !withTests(act.Package) {
					continue
				}
				checked++
				if !c.Analyzer.RunDespiteErrors {
					for _, err := range act.Package.Errors {
						t.Log(err)
					}
				}
				if act.Err != nil {
					t.Errorf("error analyzing %s: %v", act, act.Err)
				} else {
					check(t, dir, act)
				}
				results = append(results, result(act))
			}
			if checked == 0 {
				t.Errorf("no package of %v was checked", c.Patterns)
			}
			if c.Check != nil {
				c.Check(t, results)
			}
		})
	}
}

func (c Case) alone() bool { return c.Apart || len(c.Flags) > 0 }

// alone analyses the packages of a case with flags or apart, with its
// flags set.
func alone(t *testing.T, pkgs []*packages.Package, c Case) []*checker.Action {
	for _, f := range c.Flags {
		fl := f.Analyzer.Flags.Lookup(f.Name)
		if fl == nil {
			t.Fatalf("%s: analyzer %s has no flag %s", c.Name, f.Analyzer.Name, f.Name)
		}
		old := fl.Value.String()
		if err := fl.Value.Set(f.Value); err != nil {
			t.Fatalf("%s: -%s.%s=%s: %v", c.Name, f.Analyzer.Name, f.Name, f.Value, err)
		}
		defer fl.Value.Set(old)
	}
	a, err := only(c.Analyzer, c.Patterns, c.PassFlags)
	if err != nil {
		t.Fatal(err)
	}
	g, err := checker.Analyze([]*analysis.Analyzer{a}, of(pkgs, c.Patterns), &checker.Options{SanityCheck: true})
	if err != nil {
		t.Fatalf("%s: analysing %v: %v", c.Name, c.Patterns, err)
	}
	return pick(g.Roots, a, c.Patterns)
}

// load loads the packages named by patterns, and their tests, from the
// GOPATH tree dir, as analysistest.Run does.
func load(dir string, patterns []string) ([]*packages.Package, error) {
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedImports |
			packages.NeedTypes | packages.NeedTypesSizes | packages.NeedSyntax | packages.NeedTypesInfo |
			packages.NeedDeps | packages.NeedModule,
		Dir:   dir,
		Tests: true,
		Env:   append(os.Environ(), "GOPATH="+dir, "GO111MODULE=off", "GOWORK=off"),
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, fmt.Errorf("loading %v: %v", patterns, err)
	}
	for _, p := range pkgs {
		if p.Name == "" {
			return nil, fmt.Errorf("loading %v: failed to load %q: %v", patterns, p.PkgPath, p.Errors)
		}
	}
	return pkgs, nil
}

// withTests reports whether p is a package built with its tests: its ID
// is the test variant's, "p [p.test]" (the loader is not asked for
// ForTest).
func withTests(p *packages.Package) bool {
	return strings.HasSuffix(p.ID, ".test]")
}

// named reports whether the root package p is one of patterns, or the test
// package or the test main of one.
func named(p *packages.Package, patterns []string) bool {
	return slices.Contains(patterns, fixture(p.PkgPath))
}

// fixture returns the fixture package of the package path: itself, or the
// package that path is the external test package or the test main of.
func fixture(path string) string {
	return strings.TrimSuffix(strings.TrimSuffix(path, ".test"), "_test")
}

// of returns the root packages named by patterns.
func of(pkgs []*packages.Package, patterns []string) []*packages.Package {
	var out []*packages.Package
	for _, p := range pkgs {
		if named(p, patterns) {
			out = append(out, p)
		}
	}
	return out
}

// pick returns the root actions of a on the packages named by patterns.
func pick(roots []*checker.Action, a *analysis.Analyzer, patterns []string) []*checker.Action {
	var out []*checker.Action
	for _, act := range roots {
		if act.Analyzer == a && named(act.Package, patterns) {
			out = append(out, act)
		}
	}
	return out
}

// only returns an analyzer that runs a on the packages named by patterns
// and does nothing on the others (whose roots other cases check), or a
// itself if it has facts: its facts on every package are its importers'
// input, and it must run as itself to export them. Its flags are a's but
// for those named in pass, which have their values there.
func only(a *analysis.Analyzer, patterns []string, pass map[string]string) (*analysis.Analyzer, error) {
	if len(a.FactTypes) > 0 {
		if pass != nil {
			return nil, fmt.Errorf("analyzer %s has facts: it cannot have flags of its own in a case", a.Name)
		}
		return a, nil
	}
	w := *a
	if pass != nil {
		fs, err := own(&a.Flags, pass)
		if err != nil {
			return nil, fmt.Errorf("analyzer %s: %v", a.Name, err)
		}
		w.Flags = *fs
	}
	w.Run = func(pass *analysis.Pass) (any, error) {
		if !slices.Contains(patterns, fixture(pass.Pkg.Path())) {
			if a.ResultType == nil {
				return nil, nil
			}
			return reflect.Zero(a.ResultType).Interface(), nil
		}
		return a.Run(pass)
	}
	return &w, nil
}

// own returns a flag set with the flags of fs, whose values are those of
// fs but for the bool flags named in values, which have a value of their
// own.
func own(fs *flag.FlagSet, values map[string]string) (*flag.FlagSet, error) {
	out := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
	fs.VisitAll(func(f *flag.Flag) { out.Var(f.Value, f.Name, f.Usage) })
	for name, s := range values {
		f := fs.Lookup(name)
		if f == nil {
			return nil, fmt.Errorf("no flag %s", name)
		}
		if g, ok := f.Value.(flag.Getter); !ok {
			return nil, fmt.Errorf("flag %s is not a bool", name)
		} else if _, ok := g.Get().(bool); !ok {
			return nil, fmt.Errorf("flag %s is not a bool", name)
		}
		v := new(boolValue)
		if err := v.Set(s); err != nil {
			return nil, fmt.Errorf("-%s=%s: %v", name, s, err)
		}
		out.Lookup(name).Value = v
	}
	return out, nil
}

// boolValue is a bool flag's value of a case's own.
type boolValue bool

func (b *boolValue) Set(s string) error {
	v, err := strconv.ParseBool(s)
	*b = boolValue(v)
	return err
}
func (b *boolValue) String() string   { return strconv.FormatBool(bool(*b)) }
func (b *boolValue) Get() any         { return bool(*b) }
func (b *boolValue) IsBoolFlag() bool { return true }

// result is act as analysistest.Run returns it, for a case's Check.
func result(act *checker.Action) *analysistest.Result {
	facts := map[types.Object][]analysis.Fact{}
	for _, f := range act.AllObjectFacts() {
		if f.Object.Pkg() == act.Package.Types {
			facts[f.Object] = append(facts[f.Object], f.Fact)
		}
	}
	for _, f := range act.AllPackageFacts() {
		if f.Package == act.Package.Types {
			facts[nil] = append(facts[nil], f.Fact)
		}
	}
	return &analysistest.Result{Action: act, Diagnostics: act.Diagnostics, Facts: facts, Result: act.Result, Err: act.Err}
}
