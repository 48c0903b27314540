package instrument

import (
	"go/token"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis/checker"

	"github.com/precog-dev/precog/analyzers/cfpplan"
	"github.com/precog-dev/precog/detect/cfp"
)

// CFPOptions chooses the static pruning of CFP's cheap run (see
// analyzers/cfpplan): which optimizations may skip a function's entry and
// exit. The zero value logs every function.
type CFPOptions struct {
	Opt1  bool // skip functions that touch no shared memory
	Opt2  bool // skip callees that inherit their callers' pairs
	Pre   bool // skip functions that run only before any goroutine starts
	Loops bool // Opt2's at-least-one-iteration heuristic
}

// AllCFP turns every optimization on, as precog test and precog cover do.
var AllCFP = CFPOptions{Opt1: true, Opt2: true, Pre: true, Loops: true}

// A planSet is the CFP plan of the instrumented functions, keyed by the
// file offset of their body's opening brace so that the package variants
// of one file (p and "p [p.test]"), which share one rewritten file, agree.
type planSet struct {
	opts  CFPOptions
	funcs map[fileOffset]*planEntry
	order []fileOffset // first-seen order, for a deterministic plan file
}

type planEntry struct {
	cfp.PlanFunc
	skips    int // variants that skip it
	variants int // variants that planned it
	inherits []fileOffset
}

func newPlanSet(opts CFPOptions) *planSet {
	return &planSet{opts: opts, funcs: make(map[fileOffset]*planEntry)}
}

// add records the plan of one package variant.
func (s *planSet) add(act *checker.Action) {
	res, _ := act.Result.(*cfpplan.Result)
	if act.Err != nil || res == nil {
		return
	}
	fset := act.Package.Fset
	for _, f := range res.Funcs {
		if !f.Body.IsValid() {
			continue
		}
		at := offsetOf(fset, f.Body)
		e := s.funcs[at]
		if e == nil {
			p := fset.Position(f.Body)
			e = &planEntry{PlanFunc: cfp.PlanFunc{Key: cfp.FuncKey(p.Filename, p.Line, p.Column), Name: f.Fn.String(), End: fset.Position(f.End).Line}}
			s.funcs[at] = e
			s.order = append(s.order, at)
		}
		e.variants++
		e.Spawned = e.Spawned || f.Spawned
		skip := ""
		switch {
		case f.Skip == cfpplan.Opt1 && s.opts.Opt1:
			skip = "opt1"
		case f.Skip == cfpplan.Opt2 && s.opts.Opt2:
			skip = "opt2"
			for _, c := range f.Callers {
				if cf := res.Of(c); cf != nil && cf.Body.IsValid() {
					e.inherits = append(e.inherits, offsetOf(fset, cf.Body))
				}
			}
		case f.Skip == cfpplan.Pre && s.opts.Pre:
			skip = "pre"
		case f.Skip == cfpplan.Test:
			skip = "test"
		}
		if skip == "" {
			continue
		}
		if e.Skip == "" || e.Skip == skip {
			e.Skip = skip
			e.skips++
		}
	}
}

// plan returns the plan: a function is skipped only if every variant that
// planned it skips it for the same reason, and an opt2 function only if
// every caller it inherits from is logged or skipped by opt2 in turn.
func (s *planSet) plan() *cfp.Plan {
	skipped := func(e *planEntry) bool { return e.Skip != "" && e.skips == e.variants }
	// Drop opt2 functions whose callers are not in the plan any more, to a
	// fixed point.
	for changed := true; changed; {
		changed = false
		for _, at := range s.order {
			e := s.funcs[at]
			if !skipped(e) || e.Skip != "opt2" {
				continue
			}
			for _, c := range e.inherits {
				ce := s.funcs[c]
				if ce == nil || (skipped(ce) && ce.Skip != "opt2") {
					e.skips = 0
					changed = true
					break
				}
			}
		}
	}
	p := &cfp.Plan{}
	for _, at := range s.order {
		e := s.funcs[at]
		f := e.PlanFunc
		if !skipped(e) {
			f.Skip = ""
		} else if f.Skip == "opt2" {
			for _, c := range e.inherits {
				if k := s.funcs[c].Key; !slices.Contains(f.Inherits, k) {
					f.Inherits = append(f.Inherits, k)
				}
			}
			slices.Sort(f.Inherits)
		}
		p.Funcs = append(p.Funcs, f)
	}
	// s.order is the order the analysis visited the packages in, which
	// its workers decide: sort, so that one program always gives the same
	// plan (and the same file in the cache).
	slices.SortFunc(p.Funcs, func(a, b cfp.PlanFunc) int { return strings.Compare(a.Key, b.Key) })
	return p
}

// skipKeys returns the keys of the functions p skips.
func skipKeys(p *cfp.Plan) map[string]bool {
	skip := make(map[string]bool)
	for _, f := range p.Funcs {
		if f.Skip != "" {
			skip[f.Key] = true
		}
	}
	return skip
}

// skipFunc returns the rewrite.Options.SkipFunc for files of fset.
func skipFunc(fset *token.FileSet, skip map[string]bool) func(token.Pos) bool {
	return func(pos token.Pos) bool {
		q := fset.Position(pos)
		return skip[cfp.FuncKey(q.Filename, q.Line, q.Column)]
	}
}
