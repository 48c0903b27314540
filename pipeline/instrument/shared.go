package instrument

import (
	"context"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/cfpplan"
	"github.com/precog-dev/precog/analyzers/goroutines"
	"github.com/precog-dev/precog/analyzers/sharedloc"
	"github.com/precog-dev/precog/analyzers/spawnfacts"
	"github.com/precog-dev/precog/pipeline/rewrite"
	"github.com/precog-dev/precog/pipeline/static"
	"github.com/precog-dev/precog/shim/trace"
)

// A sharedSet holds the positions of the memory accesses worth recording:
// those to a location that goroutines which may run at the same time both
// access, one of them writing. It is built from analyzers/sharedloc, run on
// every instrumented package variant, and keyed by file offset so that the
// variants of one file (p and "p [p.test]") agree.
//
// The filter errs toward recording: the analyzers' answers are built for
// checks that must not report false positives, while a recorded access
// that turns out unshared costs only a few nanoseconds. So two accesses
// that the package's exported API reaches on its callers' goroutine count
// as concurrent (callers in other packages, such as an external test, may
// run that API on several goroutines at once, which the package's own
// analysis cannot see), and only accesses to objects not yet visible to
// another goroutine (sharedloc's Local) are dropped before pairing.
type sharedSet struct {
	at map[fileOffset]bool // positions of shared accesses (go/ssa's instruction positions)
	// named are the lines of the sites of the checks' findings (precog
	// test -vet): every access on them is recorded, whatever the
	// analysis says, so that a run that reaches a static candidate's
	// sites shows it.
	named map[fileLine]bool
	uses  map[fileOffset]string // trace.Site.Uses of the loads at a position
	// writeUses holds trace.Site.Uses of the stores at a position.
	writeUses map[fileOffset]string
	// guards holds, for the stores and loads at a position, the loads
	// that guard them (guards.go), for trace.Site.Guards and Switches.
	guards map[fileOffset][]guardAt
	failed map[string]bool // files whose package could not be analyzed: record everything
	// steps are the program's two-steps (twostep.go), for
	// trace.Site.After.
	steps []lockPair
	// starts are the Lparens of the calls into other packages that may
	// start goroutines (spawnfacts.StartsFact), which the rewriter marks
	// when the package called is not instrumented (shim.MarkF).
	starts map[fileOffset]bool
}

// locKey identifies a sharedloc.Loc across package variants, which have
// distinct types.Objects and SSA values for the same declaration.
type locKey struct {
	kind sharedloc.LocKind
	at   fileOffset
	name string
	elem bool
}

func keyOf(fset *token.FileSet, l sharedloc.Loc) locKey {
	k := locKey{kind: l.Kind, elem: l.Elem}
	var pos token.Pos
	switch {
	case l.Obj != nil:
		pos, k.name = l.Obj.Pos(), l.Obj.Name()
		if l.Obj.Pkg() != nil {
			k.name = l.Obj.Pkg().Path() + "." + k.name
		}
	case l.Cell != nil:
		pos, k.name = l.Cell.Pos(), l.Cell.Name()
	}
	if pos.IsValid() {
		k.at = offsetOf(fset, pos)
	} else {
		// No position (an implicit allocation): the value itself, which
		// is only ever seen by its own package's analysis.
		k.name = fmt.Sprintf("%s@%p", k.name, l.Cell)
	}
	return k
}

// A fileLine is a line of a file.
type fileLine struct {
	file string
	line int
}

// analyzeShared runs sharedloc on the packages roots of prog, a lazy
// program, and collects the shared accesses. The packages keep selects
// keep their syntax and types afterwards, for the rewriter
// (static.Program.Keep).
//
// With plan not nil it also runs analyzers/cfpplan and adds its results to
// plan. With checks not nil, it runs their analyzers in the same pass,
// collects their findings into checks, and records every access on the
// lines of their sites.
//
// With stepsOnly (-all, whose build records every access, without a plan
// or checks) it only finds the two-steps.
func analyzeShared(ctx context.Context, prog *static.Program, roots []*packages.Package, keep func(*packages.Package) bool, plan *planSet, checks *static.Checks, stepsOnly bool) (*sharedSet, error) {
	s := &sharedSet{starts: make(map[fileOffset]bool), at: make(map[fileOffset]bool), named: make(map[fileLine]bool), uses: make(map[fileOffset]string), writeUses: make(map[fileOffset]string), guards: make(map[fileOffset][]guardAt), failed: make(map[string]bool)}
	prog.Roots, prog.Keep = roots, keep
	analyzers := []*analysis.Analyzer{lockStepAnalyzer}
	if !stepsOnly {
		analyzers = append(analyzers, sharedloc.Analyzer, spawnfacts.Analyzer)
	}
	if checks != nil {
		analyzers = append(analyzers, checks.Analyzers()...)
	}
	if plan != nil {
		analyzers = append(analyzers, cfpplan.Analyzer)
		defer cfpplan.Analyzer.Flags.Set("loops", cfpplan.Analyzer.Flags.Lookup("loops").DefValue)
		if err := cfpplan.Analyzer.Flags.Set("loops", strconv.FormatBool(plan.opts.Loops)); err != nil {
			return nil, err
		}
	}
	type access struct {
		a        *sharedloc.Access
		contexts []*goroutines.Context
		api      bool // reached from the package's API, on a caller's goroutine
		at       fileOffset
		noSite   bool // an append's stores of the elements it adds (appendStores): no site of its own
	}
	uf := newUsesFinder()
	pure := newPurity()
	byLoc := make(map[locKey][]access)
	var keys []locKey // in first-seen order, for determinism
	err := prog.Analyze(ctx, analyzers, func(act *checker.Action) {
		if checks != nil {
			checks.Visit(act)
		}
		if act.Analyzer == lockStepAnalyzer {
			if pairs, ok := act.Result.([]lockPair); ok && act.Err == nil {
				s.steps = append(s.steps, pairs...)
			}
			return
		}
		if act.IsRoot && act.Analyzer == spawnfacts.Analyzer {
			if res, ok := act.Result.(*spawnfacts.Result); ok && act.Err == nil {
				for pos := range res.StartCalls() {
					s.starts[offsetOf(act.Package.Fset, pos)] = true
				}
			}
			return
		}
		if plan != nil && act.IsRoot && act.Analyzer == cfpplan.Analyzer {
			plan.add(act)
			return
		}
		if !act.IsRoot || act.Analyzer != sharedloc.Analyzer {
			return
		}
		fset := act.Package.Fset
		res, _ := act.Result.(*sharedloc.Result)
		if act.Err != nil || res == nil {
			for _, f := range act.Package.CompiledGoFiles {
				s.failed[f] = true
			}
			return
		}
		reach := apiReach(act.Package, res)
		var helpers lockHelperSet
		if asm, ok := asmNames(act.Package.OtherFiles); ok {
			p := act.Package
			helpers = lockHelpers(p.Types, p.TypesInfo, p.Syntax, asm, func(f *ast.File) bool { return !importsC(f) })
		}
		for _, fn := range res.Goroutines.Funcs() {
			for pos, u := range loadCallUses(fn) {
				s.uses[offsetOf(fset, pos)] = u
			}
			for _, pos := range sealedUnlocks(fn, pure, helpers) {
				s.uses[offsetOf(fset, pos)] = trace.UseSealed
			}
		}
		for _, a := range res.Accesses {
			if load, ok := a.Instr.(*ssa.UnOp); ok && a.Op == sharedloc.Load {
				if u := uf.of(load); u != "" {
					s.uses[offsetOf(fset, a.Pos())] = u
				}
			}
			if st, ok := a.Instr.(*ssa.Store); ok && a.Op == sharedloc.Store {
				var uses []string
				if copies(st) {
					uses = append(uses, trace.UseCopy)
				}
				if heapOp(a.Fn()) {
					uses = append(uses, trace.UseHeap)
				}
				if len(uses) > 0 {
					s.writeUses[offsetOf(fset, a.Pos())] = strings.Join(uses, " ")
				}
			}
			if _, ok := a.Instr.(*ssa.Store); ok || a.Op == sharedloc.Load {
				if gs := guardLoads(a.Instr); len(gs) > 0 {
					at := make([]guardAt, len(gs))
					for i, g := range gs {
						at[i] = guardAt{offsetOf(fset, g.pos), g.switches}
					}
					s.guards[offsetOf(fset, a.Pos())] = at
				}
			}
			if res.Local(a) {
				continue
			}
			cs := res.Goroutines.Of(a.Fn())
			k := keyOf(fset, a.Loc)
			if _, ok := byLoc[k]; !ok {
				keys = append(keys, k)
			}
			byLoc[k] = append(byLoc[k], access{
				a:        a,
				contexts: cs,
				api:      reach[a.Fn()] || slices.ContainsFunc(cs, func(c *goroutines.Context) bool { return c.Kind == goroutines.Caller && c.Test == nil }),
				at:       offsetOf(fset, accessAt(a)),
			})
		}
		for _, a := range appendStores(res) {
			if res.Local(a) {
				continue
			}
			cs := res.Goroutines.Of(a.Fn())
			k := keyOf(fset, a.Loc)
			if _, ok := byLoc[k]; !ok {
				keys = append(keys, k)
			}
			byLoc[k] = append(byLoc[k], access{
				a:        a,
				contexts: cs,
				api:      reach[a.Fn()] || slices.ContainsFunc(cs, func(c *goroutines.Context) bool { return c.Kind == goroutines.Caller && c.Test == nil }),
				noSite:   true,
			})
		}
	})
	if err != nil {
		return nil, fmt.Errorf("analyzing shared locations: %w", err)
	}
	if checks != nil {
		fs, _ := checks.Findings()
		for _, f := range fs {
			for _, site := range f.Sites {
				if site.File != "" {
					s.named[fileLine{site.File, site.Line}] = true
				}
			}
		}
	}
	for _, k := range keys {
		accs := byLoc[k]
		if !slices.ContainsFunc(accs, func(x access) bool { return x.a.Op.IsWrite() }) {
			continue // never written, or only while local
		}
		shared := false
	pairs:
		for i, x := range accs {
			for _, y := range accs[i:] {
				if !x.a.Op.IsWrite() && !y.a.Op.IsWrite() {
					continue
				}
				if x.api && y.api {
					shared = true
					break pairs
				}
				for _, cx := range x.contexts {
					for _, cy := range y.contexts {
						if goroutines.MayOverlap(cx, cy) {
							shared = true
							break pairs
						}
					}
				}
			}
		}
		if !shared {
			continue
		}
		for _, x := range accs {
			if !x.noSite {
				s.at[x.at] = true
			}
		}
	}
	return s, nil
}

// appendStores returns, for each append(s, vs...) of pointer-shaped
// elements in the functions of res that run on some goroutine, a store
// to the contents of each location that holds s: the writes of the
// elements it adds, which the rewriter records (shim.Append) when s is a
// shared location. sharedloc does not count an append as a store, so
// without them a slice filled only by append and read by index
// elsewhere (a request published under a mutex, read back under it:
// detect/hb's Hand-offs) had its element reads dropped as never written,
// and the trace held the push but not the read that got its value.
// The stores are the rewriter's too, at the append's own site: they
// mark no position of their own.
func appendStores(res *sharedloc.Result) []*sharedloc.Access {
	var out []*sharedloc.Access
	for _, fn := range res.Goroutines.Funcs() {
		if len(res.Goroutines.Of(fn)) == 0 {
			continue
		}
		live := sharedloc.Live(fn)
		for _, b := range fn.Blocks {
			if !live[b.Index] {
				continue
			}
			for _, instr := range b.Instrs {
				call, ok := instr.(*ssa.Call)
				if !ok || len(call.Call.Args) < 2 {
					continue
				}
				if bi, ok := call.Call.Value.(*ssa.Builtin); !ok || bi.Name() != "append" {
					continue
				}
				s := call.Call.Args[0]
				sl, ok := s.Type().Underlying().(*types.Slice)
				if !ok || !rewrite.PointerShaped(sl.Elem()) {
					continue
				}
				for _, loc := range res.Objects(s) {
					out = append(out, &sharedloc.Access{Instr: call, Loc: loc.Contents(), Op: sharedloc.Store, Val: call.Call.Args[1], Base: sharedloc.Root(s), Ptr: s})
				}
			}
		}
	}
	return out
}

// apiReach returns the functions of the analyzed package that its exported
// API reaches on the caller's goroutine: the exported functions and methods
// declared outside _test.go files, and what they call (not through `go`
// statements) or define as closures that are not goroutine entries.
//
// The goroutines analyzer gives the Caller context (c.Test == nil) only to
// functions that nothing in the package calls. In a test variant ("p
// [p.test]"), which selectFiles prefers, the package's own tests call its
// API, so the API is in their contexts only: a package whose tests use it
// on one goroutine (pond's internal/linkedbuffer, whose ring buffer's
// slots pond's workers share) had its accesses dropped as unshared, while
// the same package analyzed without its tests kept them.
func apiReach(pkg *packages.Package, res *sharedloc.Result) map[*ssa.Function]bool {
	reach := make(map[*ssa.Function]bool)
	g := res.Goroutines
	if g == nil || g.CallGraph == nil || g.CallGraph.Graph == nil || pkg.Types == nil {
		return reach
	}
	entries := make(map[*ssa.Function]bool)
	for _, c := range g.Contexts {
		if c.Kind != goroutines.Caller && c.Entry != nil {
			entries[c.Entry] = true
		}
	}
	var work []*ssa.Function
	add := func(fn *ssa.Function) {
		if fn == nil || reach[fn] {
			return
		}
		reach[fn] = true
		work = append(work, fn)
	}
	fset := pkg.Fset
	for fn := range g.CallGraph.Graph.Nodes {
		if fn == nil || fn.Pkg == nil || fn.Pkg.Pkg != pkg.Types || fn.Parent() != nil || fn.Synthetic != "" {
			continue
		}
		if obj := fn.Object(); obj == nil || !obj.Exported() || !fn.Pos().IsValid() ||
			strings.HasSuffix(fset.PositionFor(fn.Pos(), false).Filename, "_test.go") {
			continue
		}
		add(fn)
	}
	for len(work) > 0 {
		fn := work[len(work)-1]
		work = work[:len(work)-1]
		add(fn.Origin())
		for _, e := range g.CallGraph.Out(fn) {
			if _, isGo := e.Site.(*ssa.Go); !isGo && e.Callee != nil {
				add(e.Callee.Func)
			}
		}
		for _, anon := range fn.AnonFuncs {
			if !entries[anon] {
				add(anon)
			}
		}
	}
	return reach
}

// accessAt is the position the rewriter asks about for access a: its own,
// or, for the element load of a range over a slice (which go/ssa leaves
// without one), that of its index address, the range operand's.
func accessAt(a *sharedloc.Access) token.Pos {
	if load, ok := a.Instr.(*ssa.UnOp); ok && !a.Pos().IsValid() {
		if ia, ok := load.X.(*ssa.IndexAddr); ok {
			return ia.Pos()
		}
	}
	return a.Pos()
}

// predicate returns the rewrite.Options.Shared function for one file, or nil
// (record every access) when the file's package could not be analyzed.
// The position it is asked about is go/ssa's for the access, which
// rewrite.File passes: the Sel of a selector, the Lbrack of an index
// expression, the Star of a dereference, an identifier's own position, a
// range statement's For (a map's) or operand (a slice's, see accessAt)
// and a delete or clear call's Lparen.
func (s *sharedSet) predicate(fset *token.FileSet, f *ast.File) func(token.Pos) bool {
	name := fset.File(f.Pos()).Name()
	if s.failed[name] {
		return nil
	}
	return func(pos token.Pos) bool {
		if !pos.IsValid() {
			return false
		}
		if s.at[offsetOf(fset, pos)] {
			return true
		}
		p := fset.PositionFor(pos, false)
		return s.named[fileLine{p.Filename, p.Line}]
	}
}

// writeUsesOf returns the rewrite.Options.WriteUses function for one file.
func (s *sharedSet) writeUsesOf(fset *token.FileSet) func(token.Pos) string {
	return func(pos token.Pos) string {
		if !pos.IsValid() {
			return ""
		}
		return s.writeUses[offsetOf(fset, pos)]
	}
}

// A guardAt is a guard (guards.go) by file and offset, which every
// variant of a package shares.
type guardAt struct {
	at       fileOffset
	switches bool
}

// guardsOf returns the rewrite.Options.Guards function for one file.
func (s *sharedSet) guardsOf(fset *token.FileSet) func(token.Pos) []rewrite.Guard {
	return func(pos token.Pos) []rewrite.Guard {
		if !pos.IsValid() {
			return nil
		}
		gs := s.guards[offsetOf(fset, pos)]
		if len(gs) == 0 {
			return nil
		}
		f := fset.File(pos)
		out := make([]rewrite.Guard, 0, len(gs))
		for _, g := range gs {
			if g.at.file == f.Name() && g.at.offset <= f.Size() {
				out = append(out, rewrite.Guard{Pos: f.Pos(g.at.offset), Switches: g.switches})
			}
		}
		return out
	}
}

// usesOf returns the rewrite.Options.Uses function for one file.
// startsOf returns Options.Starts for the files of fset.
func (s *sharedSet) startsOf(fset *token.FileSet) func(token.Pos) bool {
	return func(lparen token.Pos) bool {
		return lparen.IsValid() && s.starts[offsetOf(fset, lparen)]
	}
}

func (s *sharedSet) usesOf(fset *token.FileSet) func(token.Pos) string {
	return func(pos token.Pos) string {
		if !pos.IsValid() {
			return ""
		}
		return s.uses[offsetOf(fset, pos)]
	}
}
