package covercmd

import (
	"cmp"
	"path/filepath"
	"slices"
	"strings"

	"github.com/precog-dev/precog/detect/cfp"
	"github.com/precog-dev/precog/pipeline/coverage"
)

// The report as the writers show it: per package, its tests in selection
// order, its functions with the pairs and tests that cover them, and the
// functions that run on goroutines but that no test ran concurrently with
// anything.
type view struct {
	Packages []*pkgView
}

type pkgView struct {
	ImportPath string
	Pairs      int
	Tests      []*testView // selected ones first, in selection order, then the others in listing order
	Selected   int
	Funcs      []*funcView // functions in some pair, by name
	SelFuncs   int         // functions the selection watches, summed over its tests
	Uncovered  []*funcView // spawned functions in no pair, by name
	pairTests  map[cfp.Pair][]string
	byKey      map[string]*funcView
}

type testView struct {
	Name        string
	Pairs, New  int
	Selected    bool
	Order       int      // 1 for the first selected test; 0 if not selected
	Funcs       []string // the selected functions' names
	Fluctuation float64
	Outcome     string
}

type funcView struct {
	Key, Name, Short string
	File             string
	Line, End        int
	Pairs            int
	Tests            []string // tests that run it concurrently with something
	Spawned          bool
}

func newView(rep *coverage.Report) *view {
	plan := make(map[string]cfp.PlanFunc)
	for _, f := range rep.Plan.Funcs {
		plan[f.Key] = f
	}
	v := &view{}
	for _, p := range rep.Packages {
		pv := &pkgView{ImportPath: p.ImportPath, Pairs: len(p.Union), pairTests: make(map[cfp.Pair][]string), byKey: make(map[string]*funcView)}
		fn := func(key string) *funcView {
			if f := pv.byKey[key]; f != nil {
				return f
			}
			f := &funcView{Key: key, Name: p.Names[key]}
			if pf, ok := plan[key]; ok {
				f.Name, f.End, f.Spawned = pf.Name, pf.End, pf.Spawned
			}
			if f.Name == "" {
				f.Name = key
			}
			f.Short = shortName(f.Name, p.ImportPath)
			f.File, f.Line = splitKey(key)
			pv.byKey[key] = f
			return f
		}
		order := make(map[string]int)
		for i, s := range p.Steps {
			order[s.Test] = i + 1
		}
		for _, t := range p.Tests {
			tv := &testView{Name: t.Name, Pairs: len(t.Pairs), Fluctuation: t.Fluctuation, Outcome: string(t.Outcome)}
			if s, ok := p.Selected(t.Name); ok {
				tv.Selected, tv.Order, tv.New = true, order[t.Name], len(s.New)
				for _, k := range s.Funcs {
					tv.Funcs = append(tv.Funcs, fn(k).Short)
				}
				pv.Selected++
				pv.SelFuncs += len(s.Funcs)
			}
			pv.Tests = append(pv.Tests, tv)
			for _, pr := range t.Pairs {
				pv.pairTests[pr] = append(pv.pairTests[pr], t.Name)
				for _, k := range []string{pr.A, pr.B} {
					f := fn(k)
					if !slices.Contains(f.Tests, t.Name) {
						f.Tests = append(f.Tests, t.Name)
					}
				}
			}
		}
		slices.SortStableFunc(pv.Tests, func(a, b *testView) int {
			if a.Selected != b.Selected {
				if a.Selected {
					return -1
				}
				return 1
			}
			return cmp.Compare(a.Order, b.Order)
		})
		for _, pr := range p.Union {
			fn(pr.A).Pairs++
			if pr.B != pr.A {
				fn(pr.B).Pairs++
			}
		}
		for _, f := range pv.byKey {
			if f.Pairs > 0 {
				pv.Funcs = append(pv.Funcs, f)
			}
		}
		dir := p.Dir
		for _, pf := range rep.Plan.Funcs {
			if !pf.Spawned || pf.Skip == "opt1" || pf.Skip == "pre" || pf.Skip == "test" {
				continue
			}
			file, _ := splitKey(pf.Key)
			if dir == "" || filepath.Dir(file) != dir {
				continue
			}
			if f := fn(pf.Key); f.Pairs == 0 {
				pv.Uncovered = append(pv.Uncovered, f)
			}
		}
		byName := func(a, b *funcView) int {
			return cmp.Or(strings.Compare(a.Short, b.Short), strings.Compare(a.Key, b.Key))
		}
		slices.SortFunc(pv.Funcs, byName)
		slices.SortFunc(pv.Uncovered, byName)
		v.Packages = append(v.Packages, pv)
	}
	return v
}

// splitKey splits a function key, file:line:col, into its file and line.
func splitKey(key string) (string, int) {
	rest, _, ok := cutLast(key)
	if !ok {
		return key, 0
	}
	file, line, ok := cutLast(rest)
	if !ok {
		return key, 0
	}
	n := 0
	for _, c := range line {
		if c < '0' || c > '9' {
			return key, 0
		}
		n = n*10 + int(c-'0')
	}
	return file, n
}

func cutLast(s string) (before, after string, ok bool) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+1:], true
}

// shortName drops the package's own path from a function's name:
// "(*example.com/p.T).run" in package example.com/p is "(*T).run".
func shortName(name, pkg string) string {
	s := strings.ReplaceAll(name, pkg+".", "")
	return strings.ReplaceAll(s, pkg+"_test.", "")
}
