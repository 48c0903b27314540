package locksets

import (
	"cmp"
	_ "embed"
	"go/constant"
	"go/token"
	"go/types"
	"reflect"
	"slices"
	"sync"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/buildssa"
	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/budget"
	"github.com/precog-dev/precog/analyzers/goroutines"
	"github.com/precog-dev/precog/analyzers/internal/exposed"
	"github.com/precog-dev/precog/analyzers/internal/model"
	"github.com/precog-dev/precog/analyzers/internal/source"
	"github.com/precog-dev/precog/analyzers/internal/srcfuncs"
	"github.com/precog-dev/precog/analyzers/internal/ssabuild"
	"github.com/precog-dev/precog/analyzers/internal/ssaflow"
	"github.com/precog-dev/precog/analyzers/internal/ssavalue"
	"github.com/precog-dev/precog/analyzers/sharedloc"
	"github.com/precog-dev/precog/analyzers/spawnfacts"
	"github.com/precog-dev/precog/internal/analyzerutil"
)

//go:embed doc.go
var doc string

// Analyzer computes lock sets.
var Analyzer = &analysis.Analyzer{
	Name:       "locksets",
	Doc:        analyzerutil.MustExtractDoc(doc, "locksets"),
	URL:        "https://pkg.go.dev/github.com/precog-dev/precog/analyzers/locksets",
	Requires:   []*analysis.Analyzer{ssabuild.Analyzer, goroutines.Analyzer, sharedloc.Analyzer, spawnfacts.Analyzer},
	ResultType: reflect.TypeFor[*Result](),
	Run:        analyzerutil.Guard(run, func() any { return &Result{} }),
}

// MaxIterations bounds the interprocedural fixed-point iterations; past
// it, the remaining functions keep the empty entry set (fewer locks held,
// never more).
const MaxIterations = 20

// Mode is the mode a lock is held in.
type Mode int8

const (
	Read  Mode = 1 // RLock
	Write Mode = 2 // Lock
)

// Held is a mutex held in some mode.
type Held struct {
	Mutex sharedloc.Loc
	Mode  Mode
	// Pos is where the lock was acquired, on one of the paths.
	Pos token.Pos
	id  int
}

// A Set is a set of held mutexes, sorted.
type Set []Held

// Lookup returns the entry for mutex m.
func (s Set) Lookup(m sharedloc.Loc) (Held, bool) {
	for _, h := range s {
		if h.Mutex == m {
			return h, true
		}
	}
	return Held{}, false
}

// Excludes returns a mutex that makes code holding s and code holding t
// mutually exclusive: held by both, in write mode by at least one.
func (s Set) Excludes(t Set) (Held, bool) {
	for _, h := range s {
		if g, ok := t.Lookup(h.Mutex); ok && (h.Mode == Write || g.Mode == Write) {
			return h, true
		}
	}
	return Held{}, false
}

// Intersect returns the mutexes held in both s and t, in the weaker mode.
func (s Set) Intersect(t Set) Set { return meet(s, t) }

// Union returns the mutexes held in s or t, in the stronger mode.
func (s Set) Union(t Set) Set {
	out := slices.Clone(s)
	for _, h := range t {
		if g, ok := out.Lookup(h.Mutex); ok {
			if h.Mode > g.Mode {
				out = slices.DeleteFunc(out, func(x Held) bool { return x.Mutex == h.Mutex })
				out = append(out, h)
			}
			continue
		}
		out = append(out, h)
	}
	slices.SortFunc(out, func(x, y Held) int { return cmp.Compare(x.id, y.id) })
	return out
}

// Minus returns the mutexes of s that t does not hold.
func (s Set) Minus(t Set) Set {
	var out Set
	for _, h := range s {
		if _, ok := t.Lookup(h.Mutex); !ok {
			out = append(out, h)
		}
	}
	return out
}

// Result holds the lock sets of the package.
type Result struct {
	at    map[ssa.Instruction]Set
	entry map[*ssa.Function]Set
	// libAt and libEntry are the sets of a second solution that leaves
	// out the call sites in test-only functions (see AtOutsideTests).
	libAt    map[ssa.Instruction]Set
	libEntry map[*ssa.Function]Set

	// The solutions for goroutines of one test (see InTest), computed
	// when first asked for, from the package's solver.
	solver   *solver
	testOnly map[*ssa.Function]bool
	mu       sync.Mutex
	inTest   map[*ssa.Function]*Solution
	inCtx    map[*goroutines.Context]*Solution

	// reentrant holds the locks taken as held at re-entrant calls (see
	// reentrantCalls), and reentrantSol the solutions that take them so
	// (see Reentrant), over every call site and outside tests, computed
	// when first asked for.
	reentrant    map[ssa.Instruction]Set
	reentrantSol [2]*Solution
}

// A Solution is the lock sets of one solution: locks held at each
// instruction and on entry to each function.
type Solution struct {
	at    map[ssa.Instruction]Set
	entry map[*ssa.Function]Set
	// skip tells the call sites the solution leaves out of entry sets
	// (nil: none).
	skip func(site ssa.Instruction) bool
}

// Skips reports whether the solution leaves the call site out of the
// entry sets of its callees: it is in a function that never runs on the
// goroutines the solution is for.
func (s *Solution) Skips(site ssa.Instruction) bool { return s.skip != nil && s.skip(site) }

// At returns the locks held on every path just before instr executes.
func (s *Solution) At(instr ssa.Instruction) Set { return s.at[instr] }

// Entry returns the locks held on entry to fn.
func (s *Solution) Entry(fn *ssa.Function) Set { return s.entry[fn] }

// All returns the solution of Entry and At, over every call site.
func (r *Result) All() *Solution { return &Solution{at: r.at, entry: r.entry} }

// OutsideTests returns the solution of EntryOutsideTests and
// AtOutsideTests.
func (r *Result) OutsideTests() *Solution {
	s := &Solution{at: r.libAt, entry: r.libEntry}
	if len(r.testOnly) > 0 {
		s.skip = func(site ssa.Instruction) bool { return r.testOnly[site.Parent()] }
	}
	return s
}

// InTest returns the lock sets on goroutines of the given test's
// contexts: the meet over the call sites that such a goroutine can
// execute, leaving out those in test-only functions that run only for
// other tests (a test that calls a helper without the lock the package
// always takes does not make the helper unlocked on another test's
// goroutines, since tests' goroutines run only their own test's code).
// It lies between All (every call site) and OutsideTests (no test-only
// call site). The solution is computed the first time a test asks,
// which costs one pass of the lock-set solver over the package, charged
// to b (nil: unlimited); callers ask only for pairs that All would report
// and OutsideTests would not. Once b is spent it is All.
func (r *Result) InTest(test *ssa.Function, b *budget.Budget) *Solution {
	if r.solver == nil || test == nil {
		return r.All()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if s, ok := r.inTest[test]; ok {
		return s
	}
	other := make(map[*ssa.Function]bool)
	for fn := range r.testOnly {
		if !slices.ContainsFunc(r.solver.gr.Of(fn), func(c *goroutines.Context) bool { return c.Test == test }) {
			other[fn] = true
		}
	}
	s := r.All()
	if len(other) > 0 {
		sol := r.solver.again(func(site ssa.Instruction) bool { return other[site.Parent()] })
		sol.spend = b.Spend
		if s = sol.solve(); sol.spent {
			s = r.All()
		}
	}
	if r.inTest == nil {
		r.inTest = make(map[*ssa.Function]*Solution)
	}
	r.inTest[test] = s
	return s
}

// InContext returns the lock sets on the goroutines of context c: the
// entry set of a function is the meet over the call sites in functions
// that run in c, several calls up, as the call graph (VTA seeded by CHA,
// see the callgraph analyzer) resolves them, interface and function-value
// calls included. An exported function is entered on c's goroutines only
// through those call sites: code outside the package runs there only
// where the goroutine calls out to it (an interface method an importer
// implements, a function value it passed), and the call graph, from which
// the goroutines analysis takes the functions that run in c, does not
// follow such code calling back into the package either. c's own entry
// holds what it holds in the solution over every context (OutsideTests'
// for a context without a test), and a function whose value is stored or
// handed to code that may call it later gets the empty set, as there.
//
// On the Caller context, the goroutine of code importing the package, an
// exported function holds nothing on entry (that code may call it), but an
// unexported one still takes only the call sites there: a method that
// the package calls under a lock on that goroutine, and without it only on
// goroutines it starts, holds the lock there. It returns nil when c is
// nil.
// The solution is computed the first time c is asked for, which costs one
// pass of the lock-set solver over the functions that run in c, charged
// to b (nil: unlimited); callers ask only for pairs that the other
// solutions would report. Once b is spent it is nil.
func (r *Result) InContext(c *goroutines.Context, b *budget.Budget) *Solution {
	if r.solver == nil || c == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if s, ok := r.inCtx[c]; ok {
		return s
	}
	in := make(map[*ssa.Function]bool)
	var funcs []*ssa.Function
	for _, fn := range r.solver.funcs {
		if slices.Contains(r.solver.gr.Of(fn), c) {
			in[fn] = true
			funcs = append(funcs, fn)
		}
	}
	sol := r.solver.again(func(site ssa.Instruction) bool {
		w := site.Parent()
		return !in[w] && ssavalue.BoundMethod(w) == nil && ssavalue.ThunkMethod(w) == nil && ssavalue.WrappedMethod(w) == nil
	})
	sol.funcs = funcs
	sol.ctx = c
	sol.ctxExposed = c.Kind == goroutines.Caller && c.Test == nil
	sol.ctxEntry = r.entry[c.Entry]
	if c.Test == nil {
		sol.ctxEntry = r.libEntry[c.Entry]
	}
	sol.spend = b.Spend
	s := sol.solve()
	if sol.spent {
		s = nil
	}
	if r.inCtx == nil {
		r.inCtx = make(map[*goroutines.Context]*Solution)
	}
	r.inCtx[c] = s
	return s
}

// AtCall returns set, the locks a function takes itself at an access,
// as held at one call of it: each mutex named by a parameter of the
// call's static callee (several mutexes reach the parameter, so its Lock
// names it by the parameter: kine's save(mu *sync.RWMutex, ...), which a
// test calls with a mutex of its own) is named by what the call passes
// there, when that is one mutex, and stays the parameter's otherwise.
// Viewed from Run's call save(&mu, ...), save's write holds Run's mu.
func (r *Result) AtCall(set Set, site ssa.CallInstruction) Set {
	fn := site.Common().StaticCallee()
	if r.solver == nil || fn == nil || !slices.ContainsFunc(set, func(h Held) bool { return h.Mutex.Kind == sharedloc.Param }) {
		return set
	}
	args := site.Common().Args
	r.mu.Lock()
	defer r.mu.Unlock()
	var out Set
	for _, h := range set {
		m := h.Mutex
		if p, ok := m.Cell.(*ssa.Parameter); ok && m.Kind == sharedloc.Param && p.Parent() == fn {
			if i := slices.Index(fn.Params, p); i >= 0 && i < len(args) {
				if key, ok := r.solver.lockerKey(args[i]); ok {
					m = key
				}
			}
		}
		out = r.solver.add(out, m, h.Mode, h.Pos)
	}
	return out
}

// Entry returns the locks held on entry to fn: those held at every call
// site of fn in the package.
func (r *Result) Entry(fn *ssa.Function) Set {
	return r.entry[fn]
}

// At returns the locks held on every path just before instr executes.
func (r *Result) At(instr ssa.Instruction) Set {
	return r.at[instr]
}

// EntryOutsideTests is Entry on goroutines that run no test code: the
// meet over the call sites of fn that such a goroutine can execute,
// leaving out those in functions that only tests run.
func (r *Result) EntryOutsideTests(fn *ssa.Function) Set {
	return r.libEntry[fn]
}

// AtOutsideTests is At on goroutines that run no test code (those of a
// goroutine context whose Test is nil): a helper that the package always
// calls with a lock held holds it there, even if a test also calls it
// without the lock. Such a goroutine never executes a function that runs
// only in tests' contexts, so those call sites are not on its stack.
func (r *Result) AtOutsideTests(instr ssa.Instruction) Set {
	return r.libAt[instr]
}

type lockCall struct {
	op    model.LockOp
	mutex sharedloc.Loc
}

// effect is the net change a function makes to the locks held by its
// caller.
type effect struct {
	acquire Set
	release []sharedloc.Loc
	// releaseFail lists the mutexes of release that a function whose
	// last result is an error releases only where it returns an error
	// that is not nil (a read loop that unlocks its caller's lock where
	// it meets a close, and fails): a caller that tests the error right
	// after the call still holds them where it found it nil.
	releaseFail []sharedloc.Loc
	// acquireOK is what a function whose last result is an error
	// acquires at the returns that may return a nil error, when it
	// acquires more there than at all returns (a Begin that locks and,
	// where it fails, unlocks and returns an error); nil otherwise. A
	// caller holds it where it has tested that error and found nil
	// (see errCheck).
	acquireOK Set
}

// solver holds the state of one package's lock-set dataflow: the lock
// calls found, each function's net effect on its caller's locks, and the
// lock sets at function entries, instructions and exits as they converge.
type solver struct {
	gr     *goroutines.Result
	spawns *spawnfacts.Result
	shared *sharedloc.Result
	funcs  []*ssa.Function
	ids    map[sharedloc.Loc]int
	calls  map[ssa.Instruction]lockCall
	// deferred lists the mutexes a function unlocks in deferred calls,
	// which are released when it returns; defers lists its other
	// deferred calls, whose effects apply then too.
	deferred map[*ssa.Function][]sharedloc.Loc
	defers   map[*ssa.Function][]*ssa.Defer
	// deferredUnlocks maps deferred Unlock calls to their mutex.
	deferredUnlocks map[*ssa.Defer]sharedloc.Loc
	// relocks lists the mutexes a function locks again in deferred
	// calls when it returns (see findRelocks).
	relocks map[*ssa.Function][]Held
	// lockAll lists, for the head of a range loop, the locks that every
	// iteration takes and none releases, held on its exit edge (see
	// findLockAlls).
	lockAll map[*ssa.BasicBlock][]lockAt
	effects map[*ssa.Function]effect
	entry   map[*ssa.Function]Set // nil: not yet known (top)
	known   map[*ssa.Function]bool
	at      map[ssa.Instruction]Set
	exit    map[*ssa.Function]Set
	// atSplit holds, for a call through a function parameter in a
	// function that keeps valuations of its conditions apart, the set
	// before it under each valuation (see throughParam).
	atSplit map[ssa.Instruction]*entrySplit
	// skip leaves call sites out of the entry sets (nil: none).
	skip func(site ssa.Instruction) bool
	// ctx, when not nil, is the goroutine context the solution is for
	// (see InContext): only the functions that run in it are solved, an
	// exported function is entered only through their call sites unless
	// ctxExposed (the Caller context of code importing the package), and
	// ctx's entry function holds ctxEntry on entry.
	ctx        *goroutines.Context
	ctxEntry   Set
	ctxExposed bool
	// spend, when not nil, charges the package's budget for each
	// function the flow goes through (an extra solution: InTest,
	// InContext); spent is set once it refused, and the solution is
	// then not used, since a pass stopped before its fixed point may
	// hold locks that some call path does not.
	spend func(n int) bool
	spent bool
	// assume holds locks taken as held at calls, beyond those the flow
	// finds (see reentrantCalls; nil: none).
	assume map[ssa.Instruction]Set
	// exposed tells the functions code outside the package may call.
	exposed *exposed.Set
	// condsOf holds each function's correlated conditions.
	condsOf map[*ssa.Function]*condSet
	// split holds, for a function some of whose conditions are
	// parameters its callers pass as constants, the entry set of each
	// valuation (see splitEntry); entryOf is the one the next flow
	// starts from, which it takes and clears (nil: entry for all).
	split   map[*ssa.Function]*entrySplit
	entryOf *entrySplit
	// pkg is the package analyzed; chanLocks, the locations of the
	// channels it uses as mutexes (see chanLockCandidates), and
	// tokenLocks those of them that a receive acquires, tokenPuts the
	// sends that put their tokens in (see madeOne); trySends, for a
	// select, the channel locks its cases acquire (send cases, or a
	// token lock's receive cases), by case.
	pkg        *types.Package
	chanLocks  map[sharedloc.Loc]bool
	tokenLocks map[sharedloc.Loc]bool
	tokenPuts  map[*ssa.Send]bool
	trySends   map[*ssa.Select]map[int]sharedloc.Loc
	// flagLocks are the locations of the flags it uses as try-locks
	// (see flagLockCandidates); flagOps, the operations on them.
	flagLocks map[sharedloc.Loc]bool
	flagOps   map[ssa.Instruction]lockCall
	// sharedMutexes maps a pointer field or variable that holds another
	// location's mutex to that location (see sharedMutexes).
	sharedMutexes map[sharedloc.Loc]sharedloc.Loc
	// biasedRLocks maps the RLock methods of reader-biased mutexes to
	// the inner RWMutex whose read lock each stands for (see
	// readerBiased).
	biasedRLocks map[*ssa.Function]sharedloc.Loc
}

func run(pass *analysis.Pass) (any, error) {
	ssainput := pass.ResultOf[ssabuild.Analyzer].(*buildssa.SSA)
	funcs := srcfuncs.Of(ssainput)
	chanLocks, tokenLocks, tokenPuts := chanLockCandidates(pass.Pkg, funcs)
	flagLocks, flagOps := flagLockCandidates(pass.Pkg, funcs)
	shared := pass.ResultOf[sharedloc.Analyzer].(*sharedloc.Result)
	aliases := sharedMutexes(pass.Pkg, funcs, ssainput.Pkg.Func("init"), shared)
	fields := newFieldWrites(ssainput.Pkg, funcs)
	for {
		a := &solver{
			gr:              pass.ResultOf[goroutines.Analyzer].(*goroutines.Result),
			spawns:          pass.ResultOf[spawnfacts.Analyzer].(*spawnfacts.Result),
			shared:          shared,
			funcs:           funcs,
			ids:             make(map[sharedloc.Loc]int),
			calls:           make(map[ssa.Instruction]lockCall),
			deferred:        make(map[*ssa.Function][]sharedloc.Loc),
			defers:          make(map[*ssa.Function][]*ssa.Defer),
			deferredUnlocks: make(map[*ssa.Defer]sharedloc.Loc),
			relocks:         make(map[*ssa.Function][]Held),
			lockAll:         make(map[*ssa.BasicBlock][]lockAt),
			effects:         make(map[*ssa.Function]effect),
			entry:           make(map[*ssa.Function]Set),
			split:           make(map[*ssa.Function]*entrySplit),
			known:           make(map[*ssa.Function]bool),
			at:              make(map[ssa.Instruction]Set),
			atSplit:         make(map[ssa.Instruction]*entrySplit),
			exit:            make(map[*ssa.Function]Set),
			pkg:             pass.Pkg,
			chanLocks:       chanLocks,
			tokenLocks:      tokenLocks,
			tokenPuts:       tokenPuts,
			trySends:        make(map[*ssa.Select]map[int]sharedloc.Loc),
			flagLocks:       flagLocks,
			flagOps:         flagOps,
			sharedMutexes:   aliases,
		}
		a.exposed = exposed.Of(pass.Pkg, pass.TypesInfo, append(slices.Clip(a.funcs), ssainput.Pkg.Func("init")))
		a.findLockCalls()
		a.biasedRLocks = a.readerBiased()
		a.findChanLockOps()
		a.findFlagLockOps()
		a.condsOf = make(map[*ssa.Function]*condSet)
		for _, fn := range a.funcs {
			if cs := correlated(fn, a.calls, fields); cs != nil {
				a.condsOf[fn] = cs
			}
		}
		a.computeEffects()
		a.computeLockSets()
		// A channel some goroutine releases without holding it is no
		// mutex: solve again without it (each round drops at least one,
		// and most packages have none).
		if broken := a.chanLockBroken(); len(broken) > 0 {
			for l := range broken {
				delete(chanLocks, l)
				delete(tokenLocks, l)
			}
			continue
		}
		// So is a flag that some goroutine stores 0 to without holding.
		if broken := a.flagLockBroken(); len(broken) > 0 {
			for l := range broken {
				delete(flagLocks, l)
			}
			continue
		}
		return a.result(), nil
	}
}

// again returns a copy of a that solves afresh, into result maps of its
// own, leaving out the call sites skip says (InTest, InContext, the
// solution outside tests, the re-entrant ones).
func (a *solver) again(skip func(site ssa.Instruction) bool) *solver {
	sol := *a
	sol.at = make(map[ssa.Instruction]Set)
	sol.atSplit = make(map[ssa.Instruction]*entrySplit)
	sol.entry = make(map[*ssa.Function]Set)
	sol.split = make(map[*ssa.Function]*entrySplit)
	sol.known = make(map[*ssa.Function]bool)
	sol.exit = make(map[*ssa.Function]Set)
	sol.skip = skip
	return &sol
}

// solve computes a's lock sets and returns them as a Solution.
func (a *solver) solve() *Solution {
	a.computeLockSets()
	return &Solution{at: a.at, entry: a.entry, skip: a.skip}
}

// result returns the solved lock sets, with the second solution for
// goroutines that run no test code.
func (a *solver) result() *Result {
	res := &Result{at: a.at, entry: a.entry, libAt: a.at, libEntry: a.entry, solver: a}
	if testOnly := a.testOnly(); len(testOnly) > 0 {
		lib := a.again(func(site ssa.Instruction) bool { return testOnly[site.Parent()] })
		lib.computeLockSets()
		res.libAt, res.libEntry = lib.at, lib.entry
		res.solver, res.testOnly = a, testOnly
	}
	if re := a.reentrantCalls(); len(re) > 0 {
		res.solver, res.reentrant = a, re
	}
	return res
}

// testOnly returns the functions of the package that run only on
// goroutines of tests: written in a _test.go file (so that no user of the
// package calls them), and every context they run in belongs to a test.
// One that runs in none (a helper no test calls any more) never runs.
func (a *solver) testOnly() map[*ssa.Function]bool {
	out := make(map[*ssa.Function]bool)
	for _, fn := range a.funcs {
		if !source.InTestFile(fn.Prog.Fset, fn.Pos()) {
			continue
		}
		cs := a.gr.Of(fn)
		if !slices.ContainsFunc(cs, func(c *goroutines.Context) bool { return c.Test == nil }) {
			out[fn] = true
		}
	}
	return out
}

func (a *solver) id(m sharedloc.Loc) int {
	if id, ok := a.ids[m]; ok {
		return id
	}
	id := len(a.ids)
	a.ids[m] = id
	return id
}

// findLockCalls finds the calls of mutex methods and names their mutex.
func (a *solver) findLockCalls() {
	for _, fn := range a.funcs {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				site, ok := instr.(ssa.CallInstruction)
				if !ok {
					continue
				}
				call := site.Common()
				op, ok := model.LockOpOf(model.CalleeName(call))
				if !ok {
					if d, isDefer := instr.(*ssa.Defer); isDefer {
						a.defers[fn] = append(a.defers[fn], d)
					}
					continue
				}
				recv := call.Value
				if !call.IsInvoke() {
					if len(call.Args) == 0 {
						continue
					}
					recv = call.Args[0]
				}
				// Several possible mutexes: none can be said to be held,
				// unless they come through a parameter, and each call
				// site says which (see lockedParam).
				ms := a.mutexObjects(recv)
				if len(ms) != 1 {
					p := paramOf(recv)
					if p == nil {
						continue
					}
					ms = []sharedloc.Loc{{Kind: sharedloc.Param, Cell: p}}
				}
				a.id(ms[0])
				switch instr.(type) {
				case *ssa.Call:
					a.calls[instr] = lockCall{op, ms[0]}
				case *ssa.Defer:
					if op == model.Unlock || op == model.RUnlock {
						a.deferred[fn] = append(a.deferred[fn], ms[0])
						a.deferredUnlocks[instr.(*ssa.Defer)] = ms[0]
					}
				}
			}
		}
	}
	for _, fn := range a.funcs {
		a.findRelocks(fn)
		a.findLockAlls(fn)
	}
}

// findRelocks records the deferred Lock and RLock calls of fn that run
// at every return, after every deferred unlock of the same mutex: a
// function that lets its caller's lock go for its duration (mu.Unlock();
// defer mu.Lock()), or upgrades its caller's read lock and gives it
// back as it was (uber-go/tally's removeWithRLock: mu.RUnlock(); defer
// mu.RLock(); mu.Lock(); defer mu.Unlock()), holds the mutex again when
// it returns. Such a defer must dominate every return (a defer on one
// path only is left out: no lock is assumed held where it may not be),
// and be made in no loop (each iteration would defer one more lock);
// an unlock of the same mutex deferred before it, which runs after it,
// leaves it out too.
func (a *solver) findRelocks(fn *ssa.Function) {
	var rets []*ssa.BasicBlock
	for _, b := range fn.Blocks {
		// The recover block returns after a panic: no caller goes on.
		if _, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return); ok && b != fn.Recover {
			rets = append(rets, b)
		}
	}
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			d, ok := instr.(*ssa.Defer)
			if !ok {
				continue
			}
			op, ok := model.LockOpOf(model.CalleeName(d.Common()))
			if !ok || op != model.Lock && op != model.RLock || ssaflow.OnCycle(b) {
				continue
			}
			recv := d.Call.Value
			if !d.Call.IsInvoke() {
				if len(d.Call.Args) == 0 {
					continue
				}
				recv = d.Call.Args[0]
			}
			ms := a.mutexObjects(recv)
			if len(ms) != 1 {
				continue
			}
			if !all(rets, b.Dominates) {
				continue
			}
			later := false
			for u, m := range a.deferredUnlocks {
				if m == ms[0] && u.Parent() == fn && u.Pos() < d.Pos() {
					later = true
				}
			}
			if later {
				continue
			}
			mode := Write
			if op == model.RLock {
				mode = Read
			}
			a.relocks[fn] = append(a.relocks[fn], Held{Mutex: ms[0], Mode: mode, Pos: d.Pos(), id: a.id(ms[0])})
		}
	}
}

func all[T any](xs []T, f func(T) bool) bool {
	for _, x := range xs {
		if !f(x) {
			return false
		}
	}
	return true
}

func (a *solver) add(s Set, m sharedloc.Loc, mode Mode, pos token.Pos) Set {
	out := make(Set, 0, len(s)+1)
	for _, h := range s {
		if h.Mutex != m {
			out = append(out, h)
		}
	}
	out = append(out, Held{Mutex: m, Mode: mode, Pos: pos, id: a.id(m)})
	slices.SortFunc(out, func(x, y Held) int { return cmp.Compare(x.id, y.id) })
	return out
}

func remove(s Set, m sharedloc.Loc) Set {
	if _, ok := s.Lookup(m); !ok {
		return s
	}
	out := make(Set, 0, len(s))
	for _, h := range s {
		if h.Mutex != m {
			out = append(out, h)
		}
	}
	return out
}

// meet intersects two sets; a mutex held for writing on one path and for
// reading on the other is held for reading.
func meet(s, t Set) Set {
	var out Set
	for _, h := range s {
		if g, ok := t.Lookup(h.Mutex); ok {
			h.Mode = min(h.Mode, g.Mode)
			out = append(out, h)
		}
	}
	return out
}

func equal(s, t Set) bool {
	return slices.EqualFunc(s, t, func(x, y Held) bool { return x.Mutex == y.Mutex && x.Mode == y.Mode })
}

// transfer applies instr to the set held before it.
func (a *solver) transfer(instr ssa.Instruction, s Set) Set {
	if lc, ok := a.calls[instr]; ok {
		switch lc.op {
		case model.Lock:
			return a.add(s, lc.mutex, Write, instr.Pos())
		case model.RLock:
			return a.add(s, lc.mutex, Read, instr.Pos())
		case model.Unlock, model.RUnlock:
			return remove(s, lc.mutex)
		}
		return s
	}
	// A goroutine that releases a mutex takes it from its starter (see
	// handedMutexes): the starter no longer holds it, whether or not the
	// hand-off is one the analysis can follow.
	if g, ok := instr.(*ssa.Go); ok {
		for _, callee := range a.gr.CallGraph.Callees(g) {
			for _, m := range a.effects[callee].release {
				s = remove(s, m)
			}
		}
		return s
	}
	call, ok := instr.(*ssa.Call)
	if !ok {
		return s
	}
	for _, callee := range a.gr.CallGraph.Callees(call) {
		// Apply the effect only if all callees agree: a dynamic call
		// that may or may not lock is assumed to do neither.
		if _, ok := a.effects[callee]; !ok {
			return s
		}
	}
	callees := a.gr.CallGraph.Callees(call)
	if len(callees) == 0 {
		return s
	}
	e := a.effects[callees[0]]
	tested := a.failTested(call)
	for _, m := range e.release {
		if tested && slices.Contains(e.releaseFail, m) {
			continue // released on the failure branch (see flow's out)
		}
		s = remove(s, m)
	}
	for _, h := range e.acquire {
		s = a.add(s, h.Mutex, h.Mode, call.Pos())
	}
	return s
}

// flow runs the intraprocedural analysis of fn from the entry set and
// records the set before each instruction when record is set, and calls
// visit (if not nil) with each instruction and the set before it. It
// returns the set held at every return (nil if fn never returns).
//
// The flow is path-sensitive in the values of the branch conditions that
// guard lock operations more than once (see correlated): a state is kept
// for each combination of their values, so that
//
//	if lock { mu.Lock() }
//	...
//	if lock { mu.Unlock() }
//
// neither leaves mu held nor releases it without having locked it. The
// sets recorded and visited are the meet over the combinations that reach
// the instruction.
func (a *solver) flow(fn *ssa.Function, entry Set, record bool, visit func(ssa.Instruction, Set)) (exit Set, returns bool) {
	// The split is fn's own: any flow that this one starts (of another
	// function) starts from its entry alone.
	split := a.entryOf
	a.entryOf = nil
	if len(fn.Blocks) == 0 || a.spent {
		return nil, false
	}
	conds := a.condsOf[fn]
	if conds == nil {
		conds = &condSet{}
	}
	nv := 1 << len(conds.vals)
	if a.spend != nil {
		n := 0
		for _, b := range fn.Blocks {
			n += len(b.Instrs)
		}
		if !a.spend(n * nv) {
			a.spent = true
			return nil, false
		}
	}
	// in[b][v] is the set on entry to block b under valuation v of conds
	// (bit i set: conds[i] is true); reach[b][v], whether v reaches b.
	in := make([][]Set, len(fn.Blocks))
	reach := make([][]bool, len(fn.Blocks))
	for i := range fn.Blocks {
		in[i] = make([]Set, nv)
		reach[i] = make([]bool, nv)
	}
	for v := range nv {
		in[0][v], reach[0][v] = entry, true
		if split != nil {
			in[0][v], reach[0][v] = split.sets[v], split.reach[v]
		}
	}
	work := []*ssa.BasicBlock{fn.Blocks[0]}
	queued := make([]bool, len(fn.Blocks))
	queued[0] = true
	out := func(b *ssa.BasicBlock, s Set, succ int) Set {
		if len(b.Instrs) == 0 {
			return s
		}
		ifi, ok := b.Instrs[len(b.Instrs)-1].(*ssa.If)
		if !ok {
			return s
		}
		// A loop that locked every element holds the lock once it ran
		// to its end.
		if succ == 1 {
			for _, l := range a.lockAll[b] {
				mode := Write
				if l.op == model.RLock {
					mode = Read
				}
				s = a.add(s, l.mutex, mode, l.pos)
			}
		}
		// A select's send on a channel lock holds it on the branch of
		// the case that sent.
		if m, pos, ok := a.trySendEdge(ifi, succ); ok {
			return a.add(s, m, Write, pos)
		}
		// A call that releases only where it fails releases on the
		// branch that found it failed.
		if call, okSucc := testedCall(ifi); call != nil && succ != okSucc && a.failTested(call) {
			for _, m := range a.effects[call.Call.StaticCallee()].releaseFail {
				s = remove(s, m)
			}
		}
		// A call that acquires only where it succeeds (a nil error, a
		// true bool) holds it on the branch that found it so.
		if call, okSucc := a.errCheck(ifi); call != nil && succ == okSucc {
			for _, h := range a.effects[call.Call.StaticCallee()].acquireOK {
				s = a.add(s, h.Mutex, h.Mode, call.Pos())
			}
			return s
		}
		// TryLock holds the lock on the true branch.
		if succ != 0 {
			return s
		}
		call, ok := ifi.Cond.(*ssa.Call)
		if !ok {
			return s
		}
		if lc, ok := a.calls[call]; ok {
			switch lc.op {
			case model.TryLock:
				return a.add(s, lc.mutex, Write, call.Pos())
			case model.TryRLock:
				return a.add(s, lc.mutex, Read, call.Pos())
			}
		}
		return s
	}
	// step applies instr to the state of every valuation; where instr
	// defines one of conds (again, in a loop), or may write a field one
	// tests, its value is not known any more: the valuations that differ
	// only in it are merged.
	step := func(instr ssa.Instruction, s []Set, r []bool) {
		for v := range nv {
			if r[v] {
				s[v] = a.transfer(instr, s[v])
			}
		}
		if nv == 1 {
			return
		}
		mask := conds.forget[instr]
		for i := range len(conds.vals) {
			bit := 1 << i
			if mask&bit == 0 {
				continue
			}
			for v := range nv {
				if v&bit != 0 {
					continue
				}
				w := v | bit
				switch {
				case r[v] && r[w]:
					s[v] = meet(s[v], s[w])
				case r[w]:
					s[v] = s[w]
				}
				s[w], r[v], r[w] = s[v], r[v] || r[w], r[v] || r[w]
			}
		}
	}
	// merged is the meet of the reaching valuations' sets.
	merged := func(s []Set, r []bool) Set {
		var m Set
		first := true
		for v := range nv {
			if !r[v] {
				continue
			}
			if first {
				m, first = s[v], false
			} else {
				m = meet(m, s[v])
			}
		}
		return m
	}
	s := make([]Set, nv)
	r := make([]bool, nv)
	for len(work) > 0 {
		b := work[0]
		work = work[1:]
		queued[b.Index] = false
		copy(s, in[b.Index])
		copy(r, reach[b.Index])
		for _, instr := range b.Instrs {
			step(instr, s, r)
		}
		// The valuations each successor is reached under: an If on some
		// of conds sends those where they are true to its first
		// successor (a valuation where one is true and another false
		// does not reach it: two conditions it tests are one value).
		bits := 0
		if len(b.Instrs) > 0 && nv > 1 {
			if ifi, ok := b.Instrs[len(b.Instrs)-1].(*ssa.If); ok {
				bits = conds.tests[ifi]
			}
		}
		for i, succ := range b.Succs {
			want := 0
			if i == 0 {
				want = bits
			}
			changed := false
			for v := range nv {
				if !r[v] || v&bits != want {
					continue
				}
				o := out(b, s[v], i)
				if !reach[succ.Index][v] {
					reach[succ.Index][v] = true
					in[succ.Index][v] = o
					changed = true
					continue
				}
				m := meet(in[succ.Index][v], o)
				if equal(m, in[succ.Index][v]) {
					continue
				}
				in[succ.Index][v] = m
				changed = true
			}
			if changed && !queued[succ.Index] {
				queued[succ.Index] = true
				work = append(work, succ)
			}
		}
	}
	for _, b := range fn.Blocks {
		if !slices.Contains(reach[b.Index], true) {
			continue
		}
		copy(s, in[b.Index])
		copy(r, reach[b.Index])
		for _, instr := range b.Instrs {
			if record || visit != nil {
				m := merged(s, r)
				if record {
					extra, assumed := a.assume[instr]
					if assumed {
						m = m.Union(extra)
					}
					a.at[instr] = m
					if nv > 1 && callsParam(instr) {
						split := &entrySplit{sets: slices.Clone(s), reach: slices.Clone(r)}
						if assumed {
							for v := range nv {
								split.sets[v] = split.sets[v].Union(extra)
							}
						}
						a.atSplit[instr] = split
					}
				}
				if visit != nil {
					visit(instr, m)
				}
			}
			step(instr, s, r)
			if _, ok := instr.(*ssa.Return); ok {
				for v := range nv {
					if r[v] {
						s[v] = a.atReturn(fn, s[v])
					}
				}
				e := merged(s, r)
				if !returns {
					exit, returns = e, true
				} else {
					exit = meet(exit, e)
				}
			}
		}
	}
	return exit, returns
}

// atReturn applies fn's deferred unlocks to the set held at a return.
func (a *solver) atReturn(fn *ssa.Function, s Set) Set {
	for _, m := range a.deferred[fn] {
		s = remove(s, m)
	}
	// Deferred calls of functions that unlock (defer
	// t.unlock(), defer func() { mu.Unlock() }()).
	for _, d := range a.defers[fn] {
		for _, callee := range a.gr.CallGraph.Callees(d) {
			for _, m := range a.effects[callee].release {
				s = remove(s, m)
			}
		}
	}
	// Deferred locks that give a caller's lock back (findRelocks).
	for _, h := range a.relocks[fn] {
		s = a.add(s, h.Mutex, h.Mode, h.Pos)
	}
	return s
}

// maxCorrelated bounds the conditions flow keeps apart: it keeps 2^n
// states per block.
const maxCorrelated = 3

// correlated returns the conditions of fn that two or more If
// instructions branch on, when fn locks or unlocks a mutex itself (at
// most maxCorrelated; nil for none). A value of SSA form is the same at
// every use after its definition, so paths through two Ifs on it take
// the same side of both unless they pass its definition again in
// between (flow forgets it there). After those, a boolean parameter
// tested once, and then a field that two Ifs test by loading it afresh
// (see locCond): its value stays what the first test found until the
// object it is loaded from is defined again or something may write it.
func correlated(fn *ssa.Function, calls map[ssa.Instruction]lockCall, fw *fieldWrites) *condSet {
	locks := false
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			if _, ok := calls[instr]; ok {
				locks = true
			}
		}
	}
	if !locks {
		return nil
	}
	count := make(map[ssa.Value]int)
	var order []ssa.Value
	locCount := make(map[locCond]int)
	locIfs := make(map[*ssa.If]locCond)
	var locOrder []locCond
	for _, b := range fn.Blocks {
		if len(b.Instrs) == 0 {
			continue
		}
		ifi, ok := b.Instrs[len(b.Instrs)-1].(*ssa.If)
		if !ok {
			continue
		}
		if _, isConst := ifi.Cond.(*ssa.Const); isConst {
			continue
		}
		cond := condValue(ifi.Cond)
		if count[cond]++; count[cond] == 2 {
			order = append(order, cond)
		}
		if fw == nil {
			continue
		}
		if l, ok := fw.locOf(ifi); ok {
			locIfs[ifi] = l
			if locCount[l]++; locCount[l] == 2 {
				locOrder = append(locOrder, l)
			}
		}
	}
	// A boolean parameter tested once is kept apart too, after those:
	// its callers may pass it as a constant, each with its own locks
	// (see splitEntry).
	for _, p := range fn.Params {
		if count[p] == 1 {
			order = append(order, p)
		}
	}
	order = order[:min(len(order), maxCorrelated)]
	locOrder = locOrder[:min(len(locOrder), maxCorrelated-len(order))]
	if len(order)+len(locOrder) == 0 {
		return nil
	}
	cs := &condSet{vals: order, tests: make(map[*ssa.If]int), forget: make(map[ssa.Instruction]int)}
	for i, v := range order {
		if instr, ok := v.(ssa.Instruction); ok {
			cs.forget[instr] |= 1 << i
		}
	}
	for j, l := range locOrder {
		bit := 1 << (len(order) + j)
		cs.vals = append(cs.vals, nil)
		if instr, ok := l.root.(ssa.Instruction); ok {
			cs.forget[instr] |= bit
		}
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				if fw.mayWrite(instr, l.field) {
					cs.forget[instr] |= bit
				}
			}
		}
		for ifi, m := range locIfs {
			if m == l {
				cs.tests[ifi] |= bit
			}
		}
	}
	for _, b := range fn.Blocks {
		if len(b.Instrs) == 0 {
			continue
		}
		if ifi, ok := b.Instrs[len(b.Instrs)-1].(*ssa.If); ok {
			if i := slices.Index(order, condValue(ifi.Cond)); i >= 0 {
				cs.tests[ifi] |= 1 << i
			}
		}
	}
	return cs
}

// computeEffects finds the net lock effect of each function of the
// package, bottom-up, iterating for recursion. A function acquires the
// mutexes it holds when it returns, having been entered with none; it
// releases those it unlocks without having locked them first, which its
// callers must have.
func (a *solver) computeEffects() {
	for range MaxIterations {
		changed := false
		for _, fn := range a.funcs {
			var released []sharedloc.Loc
			release := func(instr ssa.Instruction, m sharedloc.Loc, held Set) {
				if _, ok := held.Lookup(m); !ok && !slices.Contains(released, m) && !a.ownRelease(instr, m) {
					released = append(released, m)
				}
			}
			// Deferred unlocks of mutexes not held where they are
			// deferred, and the sets held at the returns they run at.
			var deferred []deferredRelease
			var rets []ssa.Instruction
			var atRet []Set
			// The mutexes fn unlocks somewhere while it holds them.
			var unlocksHeld []sharedloc.Loc
			unlockHeld := func(m sharedloc.Loc, held Set) {
				if _, ok := held.Lookup(m); ok && !slices.Contains(unlocksHeld, m) {
					unlocksHeld = append(unlocksHeld, m)
				}
			}
			exit, returns := a.flow(fn, nil, false, func(instr ssa.Instruction, held Set) {
				if lc, ok := a.calls[instr]; ok && (lc.op == model.Unlock || lc.op == model.RUnlock) {
					release(instr, lc.mutex, held)
					unlockHeld(lc.mutex, held)
				}
				switch instr := instr.(type) {
				case *ssa.Call:
					for _, callee := range a.gr.CallGraph.Callees(instr) {
						for _, m := range a.effects[callee].release {
							release(instr, m, held)
							unlockHeld(m, held)
						}
					}
				case *ssa.Defer:
					for _, m := range a.deferredReleases(instr) {
						if _, ok := held.Lookup(m); !ok {
							deferred = append(deferred, deferredRelease{instr, m})
						}
					}
				case *ssa.Return:
					rets, atRet = append(rets, instr), append(atRet, held)
				}
			})
			if !returns {
				continue
			}
			// A deferred unlock of a mutex the function did not hold
			// when it deferred it releases it at the returns it may
			// reach (a goroutine handed a mutex that defers its
			// Unlock, as watermill's GoChannel.Subscribe's does).
			// One deferred after the function's own Lock (Lock, then
			// defer Unlock, perhaps on one path only) is not a release.
			for i, ret := range rets {
				for _, d := range deferred {
					if a.gr.Flow.MayFollow(d.call, ret) {
						release(d.call, d.mutex, atRet[i])
					}
				}
			}
			e := effect{acquire: exit}
			if rw, ok := a.biasedRLocks[fn]; ok {
				e.acquire = a.add(e.acquire, rw, Read, fn.Pos())
			}
			for _, m := range released {
				if _, ok := exit.Lookup(m); !ok {
					e.release = append(e.release, m)
				}
			}
			e.release = a.netReleases(fn, e.release)
			e.acquireOK = a.acquiredOK(fn, rets, atRet, exit, unlocksHeld, a.tried(fn))
			e.releaseFail = a.releasedOnFailure(fn, e.release)
			old, ok := a.effects[fn]
			if len(e.acquire) == 0 && len(e.release) == 0 && e.acquireOK == nil {
				// An effect can also go away: a release seen before a
				// callee's acquisition was known (a lock() that holds
				// only where it succeeds, solved after its caller).
				if ok {
					delete(a.effects, fn)
					changed = true
				}
				continue
			}
			if !ok || !equal(old.acquire, e.acquire) || !slices.Equal(old.release, e.release) || !equal(old.acquireOK, e.acquireOK) || !slices.Equal(old.releaseFail, e.releaseFail) {
				a.effects[fn] = e
				changed = true
			}
		}
		if !changed {
			break
		}
	}
}

// acquiredOK returns the meet of the sets held at fn's returns (after
// its deferred unlocks, by atReturn) that may succeed, when fn also has
// returns that fail and the meet holds more than exit, the meet over all
// returns; otherwise nil. A function whose last result is an error
// succeeds where it may return a nil error and fails where it returns
// one that is not nil; one whose last result is a bool, where it returns
// the constant true and false (every return a constant).
//
// For an error, only the mutexes fn also unlocks while holding them
// count: the lock, check, unlock and return an error of a Begin, whose
// check runs under the lock. A function that checks first and locks only
// where the check passed (database/sql's Conn.grabConn: done, then
// closemu.RLock) leaves its callers a window between the check and the
// lock in which what the check saw may change; con-null there is true,
// and a lock held at the use would hide it. For a bool, only those fn
// acquires by a try (tried: a TryLock, a send on a channel lock in a
// select with other cases, or a call that acquires where it succeeds):
// the result says whether the try took it. Those count for an error too
// (a reset that returns its lock call's error).
func (a *solver) acquiredOK(fn *ssa.Function, rets []ssa.Instruction, atRet []Set, exit Set, unlocksHeld, tried []sharedloc.Loc) Set {
	res := fn.Signature.Results()
	if res.Len() == 0 {
		return nil
	}
	last := res.At(res.Len() - 1).Type()
	isErr := types.Identical(last, errorType)
	isBool := types.Identical(last.Underlying(), types.Typ[types.Bool])
	if !isErr && !(isBool && len(tried) > 0) {
		return nil
	}
	var ok Set
	first, failed := true, false
	for i, ret := range rets {
		r := ret.(*ssa.Return)
		if len(r.Results) != res.Len() {
			return nil
		}
		v := r.Results[len(r.Results)-1]
		if isBool {
			c, isConst := v.(*ssa.Const)
			if !isConst || c.Value == nil || c.Value.Kind() != constant.Bool {
				return nil
			}
			if !constant.BoolVal(c.Value) {
				failed = true
				continue
			}
		} else if a.failing(r) {
			failed = true
			continue
		}
		if s := a.atReturn(fn, atRet[i]); first {
			ok, first = s, false
		} else {
			ok = meet(ok, s)
		}
	}
	if !failed || first {
		return nil
	}
	ok = slices.DeleteFunc(slices.Clone(ok), func(h Held) bool {
		g, inExit := exit.Lookup(h.Mutex)
		if inExit && g.Mode == h.Mode || slices.Contains(tried, h.Mutex) {
			return false
		}
		return isBool || !slices.Contains(unlocksHeld, h.Mutex)
	})
	if len(ok.Minus(exit)) == 0 && equal(meet(ok, exit), ok) {
		return nil
	}
	return ok
}

var errorType = types.Universe.Lookup("error").Type()

// netReleases returns the mutexes of released that fn, entered holding
// them all, may return without: those it gives back to its caller
// released. A function that unlocks its caller's mutex around a callback
// and locks it again, where a condition or a loop says (pion/sctp's
// resetStreamsIfAny: for each stream to reset, a.lock.Unlock(),
// s.onInboundStreamReset(), a.lock.Lock()), releases it on no path that
// returns, although, entered with nothing held, it does not hold it at
// every return either (the loop may run no iteration): its callers still
// hold the mutex after the call. What fn does between its Unlock and its
// Lock is solved with fn's own entry set, as before.
func (a *solver) netReleases(fn *ssa.Function, released []sharedloc.Loc) []sharedloc.Loc {
	if len(released) == 0 {
		return released
	}
	var entry Set
	for _, m := range released {
		entry = a.add(entry, m, Write, fn.Pos())
	}
	exit, returns := a.flow(fn, entry, false, nil)
	if !returns {
		return released
	}
	return slices.DeleteFunc(slices.Clone(released), func(m sharedloc.Loc) bool {
		_, held := exit.Lookup(m)
		return held
	})
}

// releasedOnFailure returns the mutexes of released that fn, whose last
// result is an error, still holds at every return that may return a nil
// error when it is entered holding them all: it releases them only
// where it fails.
func (a *solver) releasedOnFailure(fn *ssa.Function, released []sharedloc.Loc) []sharedloc.Loc {
	res := fn.Signature.Results()
	if len(released) == 0 || res.Len() == 0 || !types.Identical(res.At(res.Len()-1).Type(), errorType) {
		return nil
	}
	var entry Set
	for _, m := range released {
		entry = a.add(entry, m, Write, fn.Pos())
	}
	kept := slices.Clone(released)
	failed := false
	a.flow(fn, entry, false, func(instr ssa.Instruction, held Set) {
		r, ok := instr.(*ssa.Return)
		if !ok || len(r.Results) != res.Len() {
			return
		}
		if a.failing(r) {
			failed = true
			return
		}
		held = a.atReturn(fn, held)
		kept = slices.DeleteFunc(kept, func(m sharedloc.Loc) bool {
			_, ok := held.Lookup(m)
			return !ok
		})
	})
	if !failed {
		return nil
	}
	return kept
}

// failTested reports whether the error that call returns last is tested
// against nil by the If ending its block, with no call or lock operation
// between them, and the callee is known.
func (a *solver) failTested(call *ssa.Call) bool {
	callee := call.Call.StaticCallee()
	if callee == nil || len(a.effects[callee].releaseFail) == 0 {
		return false
	}
	b := call.Block()
	ifi, ok := b.Instrs[len(b.Instrs)-1].(*ssa.If)
	if !ok {
		return false
	}
	c, _ := testedCall(ifi)
	return c == call && a.nothingAfter(call)
}

// failing reports whether ret returns, as its last result, an error that
// is not nil: one that nonNil knows, one that a test found not nil
// (testedNonNil), or ctx.Err() in the case of a select that received
// from ctx.Done() (open-feature's lockLifecycle: `case <-ctx.Done():
// return ctx.Err()`, `case <-p.lifecycleLock: return nil`).
func (a *solver) failing(ret *ssa.Return) bool {
	v := stored(ret.Results[len(ret.Results)-1])
	return nonNil(v) || testedNonNil(ret, v) || a.gr.Flow.ErrAfterDone(v, ret)
}

// stored returns the value v holds where v loads a local variable that
// only its function's own loads and stores touch: the one value that
// every store reaching the load (through the control-flow graph, back
// from the load to the first store of each path) stores, itself resolved
// so. go/ssa keeps a function's named results in such variables when the
// function defers a call: a return stores its operands there, runs the
// defers and loads them back (`return err` stores a load of err), and an
// `if err != nil` on a named result tests a load of it. A variable whose
// address goes anywhere else (`defer errd.Wrap(&err)`, a closure that
// sets err) may be written by code this does not see, and v itself is
// returned; so it is where a path reaches the variable's zero value or
// the stores reaching it store different values. Neither nonNil nor a
// test of another value takes v for a failure then.
func stored(v ssa.Value) ssa.Value {
	return storedSeen(v, make(map[*ssa.UnOp]bool))
}

func storedSeen(v ssa.Value, seen map[*ssa.UnOp]bool) ssa.Value {
	ld, ok := v.(*ssa.UnOp)
	if !ok || ld.Op != token.MUL || seen[ld] {
		return v
	}
	seen[ld] = true
	vals, ok := ssavalue.OwnStores(ld)
	if !ok {
		return v
	}
	val := storedSeen(vals[0], seen)
	for _, w := range vals[1:] {
		if storedSeen(w, seen) != val {
			return v
		}
	}
	return val
}

// testedNonNil reports whether ret, returning v, runs only where a test
// `v != nil` (or `v == nil`, on its other branch) found v not nil: the
// error of a callee handed up, `if err != nil { return err }`.
func testedNonNil(ret *ssa.Return, v ssa.Value) bool {
	for b := ret.Block(); b != nil; b = b.Idom() {
		d := b.Idom()
		if d == nil || len(d.Instrs) == 0 {
			return false
		}
		ifi, ok := d.Instrs[len(d.Instrs)-1].(*ssa.If)
		if !ok {
			continue
		}
		bin, ok := ifi.Cond.(*ssa.BinOp)
		if !ok || bin.Op != token.NEQ && bin.Op != token.EQL {
			continue
		}
		x, y := bin.X, bin.Y
		if c, ok := x.(*ssa.Const); ok && c.IsNil() {
			x, y = y, x
		}
		if c, ok := y.(*ssa.Const); !ok || !c.IsNil() || x != v && stored(x) != v {
			continue
		}
		// b is the successor of d on the path to ret; it must be
		// entered only from d, on the branch that found v not nil.
		want := d.Succs[0]
		if bin.Op == token.EQL {
			want = d.Succs[1]
		}
		return want == b && len(b.Preds) == 1
	}
	return false
}

// nonNil reports whether an error value is never nil: an interface made
// from a concrete value, a package-level variable (a sentinel error),
// errors.New or fmt.Errorf, or a phi of such values.
func nonNil(v ssa.Value) bool {
	return nonNilSeen(v, make(map[*ssa.Phi]bool))
}

func nonNilSeen(v ssa.Value, seen map[*ssa.Phi]bool) bool {
	switch v := v.(type) {
	case *ssa.MakeInterface:
		return true
	case *ssa.UnOp:
		_, ok := v.X.(*ssa.Global)
		return v.Op == token.MUL && ok
	case *ssa.Call:
		switch model.CalleeName(&v.Call) {
		case "errors.New", "fmt.Errorf":
			return true
		}
	case *ssa.Phi:
		if seen[v] {
			return true
		}
		seen[v] = true
		for _, e := range v.Edges {
			if !nonNilSeen(e, seen) {
				return false
			}
		}
		return true
	}
	return false
}

// errCheck returns the call whose result ifi tests, and the successor
// ifi takes where the call succeeded, when the call's callee acquires
// more where it succeeds (see acquiredOK) and the call is in ifi's block
// with no lock operation or call between them. A last result of type
// error succeeds where it is nil (err != nil goes to ifi's second
// successor, err == nil to its first); a bool result, where it is true
// (ifi's first successor: go/ssa builds `if !ok` by swapping them).
func (a *solver) errCheck(ifi *ssa.If) (*ssa.Call, int) {
	call, okSucc := testedCall(ifi)
	if call == nil || call.Block() != ifi.Block() {
		return nil, 0
	}
	callee := call.Call.StaticCallee()
	if callee == nil || a.effects[callee].acquireOK == nil {
		return nil, 0
	}
	if !a.nothingAfter(call) {
		return nil, 0
	}
	return call, okSucc
}

// nothingAfter reports whether no lock operation or call follows call in
// its block, up to the branch that ends it.
func (a *solver) nothingAfter(call *ssa.Call) bool {
	instrs := call.Block().Instrs
	for _, instr := range instrs[slices.Index(instrs, ssa.Instruction(call))+1:] {
		if _, ok := a.calls[instr]; ok {
			return false
		}
		if _, ok := instr.(ssa.CallInstruction); ok {
			return false
		}
	}
	return true
}

// testedCall returns the call whose last result ifi branches on, a bool
// itself or an error compared with nil, and the successor taken where
// that result is true or the error nil.
func testedCall(ifi *ssa.If) (*ssa.Call, int) {
	if call := lastResult(ifi.Cond); call != nil && types.Identical(ifi.Cond.Type().Underlying(), types.Typ[types.Bool]) {
		return call, 0
	}
	bin, ok := ifi.Cond.(*ssa.BinOp)
	if !ok || bin.Op != token.EQL && bin.Op != token.NEQ {
		return nil, 0
	}
	x, y := bin.X, bin.Y
	if c, ok := x.(*ssa.Const); ok && c.IsNil() {
		x, y = y, x
	}
	if c, ok := y.(*ssa.Const); !ok || !c.IsNil() {
		return nil, 0
	}
	// A named result that a closure captures is a variable: the error
	// stored to it in ifi's block.
	if ld, ok := x.(*ssa.UnOp); ok && ld.Op == token.MUL {
		if _, ok := ld.X.(*ssa.Alloc); ok && ld.Block() == ifi.Block() {
			x = nil
			for _, instr := range ifi.Block().Instrs {
				if instr == ld {
					break
				}
				if st, ok := instr.(*ssa.Store); ok && st.Addr == ld.X {
					x = st.Val
				}
			}
		}
	}
	call := lastResult(x)
	if call == nil || !types.Identical(x.Type(), errorType) {
		return nil, 0
	}
	if bin.Op == token.EQL {
		return call, 0
	}
	return call, 1
}

// lastResult returns the call whose last result v is, or nil.
func lastResult(v ssa.Value) *ssa.Call {
	switch v := v.(type) {
	case *ssa.Extract:
		call, _ := v.Tuple.(*ssa.Call)
		if call != nil && v.Index == call.Call.Signature().Results().Len()-1 {
			return call
		}
	case *ssa.Call:
		return v
	}
	return nil
}

// deferredRelease is a deferred call that releases a mutex.
type deferredRelease struct {
	call  *ssa.Defer
	mutex sharedloc.Loc
}

// deferredReleases returns the mutexes that the call deferred by d
// releases: its Unlock's, or those its callees release.
func (a *solver) deferredReleases(d *ssa.Defer) []sharedloc.Loc {
	var ms []sharedloc.Loc
	if m, ok := a.deferredUnlocks[d]; ok {
		ms = append(ms, m)
	}
	for _, callee := range a.gr.CallGraph.Callees(d) {
		ms = append(ms, a.effects[callee].release...)
	}
	return ms
}

// computeLockSets computes entry sets from call sites to a fixed point,
// then records the set at each instruction.
func (a *solver) computeLockSets() {
	entries := make(map[*ssa.Function]bool)
	goOnly := make(map[*ssa.Function]bool) // entries started only by go statements
	for _, c := range a.gr.Contexts[1:] {
		_, isGo := c.Site.(*ssa.Go)
		if !entries[c.Entry] {
			goOnly[c.Entry] = isGo && c.Kind == goroutines.Go
		} else if !isGo || c.Kind != goroutines.Go {
			goOnly[c.Entry] = false
		}
		entries[c.Entry] = true
	}
	handed := a.handedMutexes()
	ifaceSites := a.syncInterfaceSites()
	// callSites lists the call instructions that may run fn on the
	// caller's goroutine; nil means fn's callers are unknown. A goroutine
	// that unlocks a mutex its starter holds (see handedMutexes) has its
	// go statements for call sites.
	callSites := func(fn *ssa.Function) ([]ssa.Instruction, bool) {
		handoff := goOnly[fn] && len(handed[fn]) > 0 && a.ctx == nil
		entry, outside := entries[fn], a.exposed.Outside(fn)
		if a.ctx != nil {
			// On the goroutines of one context, a function is entered
			// through the call sites in the functions that run there
			// (and, on the goroutine of code importing the package,
			// from that code if it is exported); the context's own
			// entry function is solved apart (see solve).
			entry, outside = false, outside && a.ctxExposed
		}
		if entry && !handoff || outside {
			return nil, false
		}
		var sites []ssa.Instruction
		for _, e := range a.gr.CallGraph.Callers(fn) {
			if _, isGo := e.Site.(*ssa.Go); isGo && !handoff || a.skip != nil && a.skip(e.Site) {
				continue
			}
			if w := e.Site.Parent(); ssavalue.BoundMethod(w) == fn || ssavalue.ThunkMethod(w) == fn || ssavalue.WrappedMethod(w) == fn {
				// fn runs where its method value or method
				// expression ((*T).m in a table of handlers) is
				// called, or, through an interface that holds a
				// pointer, where (*T).m's wrapper of a value or
				// promoted method is: the wrapper's or thunk's
				// call sites, which no analyzed function contains
				// otherwise.
				if ssavalue.ThunkMethod(w) == fn && len(a.gr.RefSites(w)) > 0 {
					return nil, false
				}
				ws, ok := a.wrapperSites(w, entries)
				if !ok {
					return nil, false
				}
				sites = append(sites, ws...)
				continue
			}
			sites = append(sites, e.Site)
		}
		for _, s := range ifaceSites[fn] {
			if a.skip == nil || !a.skip(s) {
				sites = append(sites, s)
			}
		}
		for _, s := range a.gr.RefSites(fn) {
			if a.ctx == nil && a.skip != nil && a.skip(s) {
				// (A function value made anywhere may be called on
				// the context's goroutines, by code the call graph
				// does not see: in a context's solution no reference
				// is left out.)
				continue
			}
			// The body of a range over a function runs while the range
			// statement does (the iterator may not call it after the
			// loop), so the locks held at the range are held in it.
			// A task handed to a task loop, or a function its
			// goroutine calls, holds the loop's lock (see
			// taskLoopLock).
			_, task := a.taskLoopLock(s, fn)
			_, onLoop := a.loopStartLock(s, fn)
			if !task && !onLoop && !ssaflow.RangeBody(fn) && !model.SyncCallback(model.CalleeName(s.Common())) &&
				!a.spawns.CallsSync(s.Common(), fn, ssavalue.Funcs) {
				// Stored or run later (sync.OnceFunc, t.Cleanup,
				// an unknown callee): held locks do not carry over.
				// A callee of another package that calls it before
				// it returns (SyncCallsFact: a queue's Each) runs it
				// here.
				return nil, false
			}
			sites = append(sites, s)
		}
		return sites, len(sites) > 0
	}
	solve := func() {
		for range MaxIterations {
			changed := false
			for _, fn := range a.funcs {
				var sites []ssa.Instruction
				ok := false
				if a.ctx == nil || fn != a.ctx.Entry {
					sites, ok = callSites(fn)
				}
				var entry Set
				var split *entrySplit
				if a.ctx != nil && fn == a.ctx.Entry {
					// What the context's goroutines start with, as
					// the solution over every context has it: the
					// entry holds no more in the context's own calls
					// of it (a meet with them would only drop locks).
					// A go statement that starts them with a constant
					// for a parameter the entry's locking depends on
					// (kine's `go b.unsub(sub, true)`, whose unsub
					// locks only when told to) selects that valuation.
					entry = a.ctxEntry
					if a.ctx.Site != nil {
						split = a.splitEntry(fn, []siteSet{{a.ctx.Site, entry}})
					}
				} else if ok {
					first := true
					var held []siteSet
					for _, site := range sites {
						s, known := a.at[site], a.known[site.Parent()]
						if !known {
							continue // caller not analyzed yet: top
						}
						if d, ok := site.(*ssa.Defer); ok {
							s = a.atDeferredCall(d)
						}
						if _, ok := site.(*ssa.Go); ok {
							// Only the mutexes the goroutine unlocks for its
							// starter stay held in it.
							var kept Set
							for _, h := range s {
								if slices.Contains(handed[fn], h.Mutex) {
									kept = append(kept, h)
								}
							}
							s = kept
						} else if call, ok := site.(ssa.CallInstruction); ok {
							if h, ok := a.taskLoopLock(call, fn); ok {
								// A task of a loop: the loop's lock too.
								s = s.Union(Set{h})
							} else if h, ok := a.loopStartLock(call, fn); ok {
								// Run by the loop's goroutine later:
								// only the loop's lock.
								s = Set{h}
							}
							through, known, ok := a.throughParam(fn, call)
							if known && !ok {
								// No caller of the helper (left in this
								// solution) hands it fn: the call never
								// runs fn.
								continue
							}
							if ok {
								s = through
							}
						}
						held = append(held, siteSet{site, s})
						if first {
							entry, first = s, false
						} else {
							entry = meet(entry, s)
						}
					}
					if first {
						continue // no caller analyzed yet
					}
					split = a.splitEntry(fn, held)
				}
				if a.known[fn] && equal(a.entry[fn], entry) && a.split[fn].equal(split) {
					continue
				}
				a.entry[fn] = entry
				a.split[fn] = split
				a.known[fn] = true
				a.entryOf = split
				a.flow(fn, entry, true, nil)
				changed = true
			}
			if !changed {
				return
			}
		}
	}
	solve()
	// Functions still unknown (only reachable from callers that are
	// unknown or outside the analyzed code) get the empty entry set; the
	// functions they call are then solved again with those call sites.
	unknown := false
	for _, fn := range a.funcs {
		if !a.known[fn] {
			a.entry[fn] = nil
			a.known[fn] = true
			a.flow(fn, nil, true, nil)
			unknown = true
		}
	}
	if unknown {
		solve()
	}
}

// syncInterfaceSites returns, for methods of the package, the calls of
// container/heap and sort that run them on an interface value that goes
// nowhere else (see model.SyncInterfaceCalls): heap.Push(h, x) runs h's
// Push, Len, Less and Swap before it returns, on the caller's goroutine,
// so the locks held at the call are held in them, as at a direct call.
func (a *solver) syncInterfaceSites() map[*ssa.Function][]ssa.Instruction {
	out := make(map[*ssa.Function][]ssa.Instruction)
	for _, fn := range a.funcs {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				mi, ok := instr.(*ssa.MakeInterface)
				if !ok {
					continue
				}
				calls, ok := model.SyncInterfaceCalls(mi)
				if !ok {
					continue
				}
				mset := fn.Prog.MethodSets.MethodSet(mi.X.Type())
				for _, call := range calls {
					for _, name := range model.SyncInterfaceMethods(model.CalleeName(&call.Call)) {
						sel := mset.Lookup(nil, name)
						if sel == nil {
							continue
						}
						m := fn.Prog.FuncValue(sel.Obj().(*types.Func))
						if m != nil && !slices.Contains(out[m], ssa.Instruction(call)) {
							out[m] = append(out[m], call)
						}
					}
				}
			}
		}
	}
	return out
}

// handedMutexes returns, for functions that goroutines start in, the
// mutexes each releases without having locked them (a net effect of
// releasing them, see computeEffects) and that no other function of the
// package unlocks unless it locked them itself, as in
//
//	s.mtx.Lock()
//	go func() { s.flush(); s.mtx.Unlock() }()
//
// Such a mutex, held at the go statement, stays held in the goroutine
// until it unlocks it: no other code releases it meanwhile, and every
// other Lock of it waits for that Unlock. (Like every lock set here, a
// mutex is a location, the same field of every instance of a type.)
func (a *solver) handedMutexes() map[*ssa.Function][]sharedloc.Loc {
	out := make(map[*ssa.Function][]sharedloc.Loc)
	var released []sharedloc.Loc
	for _, c := range a.gr.Contexts[1:] {
		if _, isGo := c.Site.(*ssa.Go); !isGo || c.Entry == nil {
			continue
		}
		for _, m := range a.effects[c.Entry].release {
			if !slices.Contains(out[c.Entry], m) {
				out[c.Entry] = append(out[c.Entry], m)
				released = append(released, m)
			}
		}
	}
	if len(out) == 0 {
		return out
	}
	// unlocksOwn[fn][m]: every release of m in fn (an Unlock, or a call
	// of a function that releases it) follows, on every path, a lock of
	// m by fn itself, not one acquired through a callee.
	unlocksOwn := make(map[*ssa.Function]map[sharedloc.Loc]bool)
	for _, fn := range a.funcs {
		own := make(map[sharedloc.Loc]bool)
		for _, m := range released {
			own[m] = true
		}
		a.flow(fn, nil, false, func(instr ssa.Instruction, s Set) {
			var ms []sharedloc.Loc
			if lc, ok := a.calls[instr]; ok && (lc.op == model.Unlock || lc.op == model.RUnlock) {
				ms = append(ms, lc.mutex)
			}
			if d, ok := instr.(*ssa.Defer); ok {
				if m, ok := a.deferredUnlocks[d]; ok {
					ms = append(ms, m)
				}
			}
			if site, ok := instr.(ssa.CallInstruction); ok {
				if _, isGo := instr.(*ssa.Go); !isGo {
					for _, callee := range a.gr.CallGraph.Callees(site) {
						ms = append(ms, a.effects[callee].release...)
					}
				}
			}
			for _, m := range ms {
				if !own[m] {
					continue
				}
				if h, ok := s.Lookup(m); !ok || !a.lockedIn(fn, h) {
					own[m] = false
				}
			}
		})
		unlocksOwn[fn] = own
	}
	for entry, ms := range out {
		out[entry] = slices.DeleteFunc(ms, func(m sharedloc.Loc) bool {
			if a.flagLocks[m] {
				// Checked after solving instead: every store of 0
				// must hold the flag (flagLockBroken).
				return false
			}
			for _, fn := range a.funcs {
				if fn != entry && !unlocksOwn[fn][m] {
					return true
				}
			}
			return false
		})
	}
	return out
}

// lockedIn reports whether h was acquired by a lock call in fn itself,
// not by the net effect of a callee.
func (a *solver) lockedIn(fn *ssa.Function, h Held) bool {
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			lc, ok := a.calls[instr]
			if ok && instr.Pos() == h.Pos && lc.mutex == h.Mutex && (lc.op == model.Lock || lc.op == model.RLock) {
				return true
			}
		}
	}
	return false
}

// wrapperSites returns the call sites of w, the bound-method wrapper
// behind a method value (s.m stored in a field, or handed to a helper
// that calls it through a parameter) or the thunk behind a method
// expression, that run it on the caller's goroutine. It returns false when w's callers are not all known: it
// starts goroutines, or nothing in the package calls it (the value went
// somewhere else that calls it).
func (a *solver) wrapperSites(w *ssa.Function, entries map[*ssa.Function]bool) ([]ssa.Instruction, bool) {
	if entries[w] {
		return nil, false
	}
	var sites []ssa.Instruction
	for _, e := range a.gr.CallGraph.Callers(w) {
		if _, isGo := e.Site.(*ssa.Go); isGo {
			return nil, false
		}
		if a.skip != nil && a.skip(e.Site) {
			continue
		}
		sites = append(sites, e.Site)
	}
	if len(sites) == 0 && unreachableWrapper(w, a.gr.RefSites(w)) {
		return nil, true // never runs: adds no call site
	}
	return sites, len(sites) > 0
}

// unreachableWrapper reports whether w, a go/ssa wrapper of a method
// promoted from an embedded field (or of a value method), can never run:
// nothing in the package calls it or takes it as a value (refs), and the
// method is unexported, so no interface of another package can name it
// and only the package's own code, which the call graph sees, could call
// it. go/ssa makes such a wrapper for every method of the embedding
// type's method set (pion/ice's UniversalUDPMuxDefault, which embeds
// *UDPMuxDefault, has one for getConn), and with it among the method's
// callers the method's entry set was empty although every real call
// holds the lock.
func unreachableWrapper(w *ssa.Function, refs []ssa.CallInstruction) bool {
	m := ssavalue.WrappedMethod(w)
	return m != nil && m.Object() != nil && !m.Object().Exported() && len(refs) == 0
}

// paramOf returns the parameter that v is, through captured variables and
// interface conversions, or nil.
func paramOf(v ssa.Value) *ssa.Parameter {
	srcs := ssavalue.Sources(v)
	if len(srcs) != 1 {
		return nil
	}
	p, _ := srcs[0].(*ssa.Parameter)
	return p
}

// throughParam returns the entry set that a function value fn gets when a
// helper H calls it through H's function parameter at site, as in
//
//	func withLock(lk sync.Locker, f func()) { lk.Lock(); defer lk.Unlock(); f() }
//	withLock(dc, func() { dc.openStmt[s] = true })
//
// For each call of H that passes fn, it is what the caller holds there
// plus what H holds at site, H's parameter mutexes replaced by the
// arguments of that call. ok reports whether a call of H that passes fn
// was found; known, whether the answer is known: site calls a function
// parameter, and either such a call was found or every call of H hands
// it other functions (then site never runs fn).
func (a *solver) throughParam(fn *ssa.Function, site ssa.CallInstruction) (entry Set, known, ok bool) {
	common := site.Common()
	if common.IsInvoke() || common.StaticCallee() != nil {
		return nil, false, false
	}
	fp := paramOf(common.Value)
	if fp == nil {
		return nil, false, false
	}
	h := fp.Parent()
	idx := slices.Index(h.Params, fp)
	found := false
	// resolved: every call of H left in this solution hands it functions
	// known by name (a function, a closure, a method value), so a call
	// that hands it none of them is known not to run fn.
	resolved := len(a.gr.CallGraph.Callers(h)) > 0 && !a.exposed.Outside(h) && len(a.gr.RefSites(h)) == 0
	for _, e := range a.gr.CallGraph.Callers(h) {
		outer := e.Site
		args := outer.Common().Args
		if a.skip != nil && a.skip(outer) {
			continue
		}
		if outer.Common().IsInvoke() || idx < 0 || idx >= len(args) {
			resolved = false
			continue
		}
		if !slices.Contains(ssavalue.Funcs(args[idx]), fn) {
			resolved = resolved && namedFuncs(args[idx])
			continue
		}
		held := a.at[outer]
		for _, m := range a.atCallOf(site, h, outer) {
			if m.Mutex.Kind != sharedloc.Param {
				held = a.add(held, m.Mutex, m.Mode, m.Pos)
				continue
			}
			p := m.Mutex.Cell.(*ssa.Parameter)
			j := slices.Index(h.Params, p)
			if p.Parent() != h || j < 0 || j >= len(args) {
				continue
			}
			if key, ok := a.lockerKey(args[j]); ok {
				held = a.add(held, key, m.Mode, m.Pos)
			}
		}
		if !found {
			entry, found = held, true
		} else {
			entry = meet(entry, held)
		}
	}
	return entry, found || resolved, found
}

// condValue returns the parameter that cond reads, when cond loads the
// cell go/ssa spills a parameter to because a closure captures it (the
// deferred unlock of inbucket's withMailbox tests writeLock too): the
// cell is stored once, with the parameter, at the function's entry,
// before any load of it, and only its own function writes it (closures
// only read it), so every load gives the parameter's value. Else cond.
func condValue(cond ssa.Value) ssa.Value {
	load, ok := cond.(*ssa.UnOp)
	if !ok || load.Op != token.MUL {
		return cond
	}
	cell, ok := load.X.(*ssa.Alloc)
	if !ok || !cell.Heap || cell.Parent() != load.Parent() || !ssavalue.OnlyOwnerWrites(cell) {
		return cond
	}
	stores := ssavalue.Stores(cell)
	if len(stores) != 1 {
		return cond
	}
	st := stores[0]
	p, ok := st.Val.(*ssa.Parameter)
	if !ok || p.Parent() != cell.Parent() || st.Block() != cell.Parent().Blocks[0] || len(st.Block().Preds) > 0 {
		return cond
	}
	// Every load comes after the store: in another block (the entry
	// block dominates them all) or later in the entry block.
	for _, r := range *cell.Referrers() {
		if u, ok := r.(*ssa.UnOp); ok && u.Block() == st.Block() && slices.Index(st.Block().Instrs, ssa.Instruction(u)) < slices.Index(st.Block().Instrs, ssa.Instruction(st)) {
			return cond
		}
	}
	return p
}

// callsParam reports whether instr calls a function value that is a
// parameter of its function (throughParam's sites).
func callsParam(instr ssa.Instruction) bool {
	call, ok := instr.(*ssa.Call)
	if !ok || call.Call.IsInvoke() || call.Call.StaticCallee() != nil {
		return false
	}
	p, ok := call.Call.Value.(*ssa.Parameter)
	return ok && p.Parent() == call.Parent()
}

// atCallOf returns the set held at site, a call in the helper h through
// its function parameter, in the invocations of h that the call outer
// makes: where outer passes constants to boolean parameters of h that
// h's flow keeps apart (see splitEntry), the meet over the valuations
// that agree with them and reach site; else the set at site. inbucket's
// mem store
//
//	func (s *Store) withMailbox(mailbox string, writeLock bool, f func(mb *mbox)) {
//		...
//		if writeLock { mb.Lock() } else { mb.RLock() }
//		defer func() { ... }()
//		f(mb)
//	}
//
// holds mb for reading at f(mb) on every path, for writing where
// writeLock is true: AddMessage's callback, handed over with true, holds
// it for writing.
//
// Why sound: a parameter is one SSA value for the whole invocation, so
// the paths of an invocation that outer made with true are those of the
// valuations where it is true, and the function that site calls in it is
// what outer passed.
func (a *solver) atCallOf(site ssa.CallInstruction, h *ssa.Function, outer ssa.CallInstruction) Set {
	split, cs := a.atSplit[site], a.condsOf[h]
	if split == nil || cs == nil || site.Parent() != h {
		return a.at[site]
	}
	// want[i]: what outer passes for cs.vals[i] (0 false, 1 true), or -1.
	want := make([]int, len(cs.vals))
	anyConst := false
	for i, c := range cs.vals {
		want[i] = -1
		p, ok := c.(*ssa.Parameter)
		if !ok || p.Parent() != h {
			continue
		}
		if b, ok := constArg(outer, h, slices.Index(h.Params, p)); ok {
			want[i], anyConst = 0, true
			if b {
				want[i] = 1
			}
		}
	}
	if !anyConst {
		return a.at[site]
	}
	var out Set
	found := false
	for v, reached := range split.reach {
		if !reached {
			continue
		}
		agrees := true
		for i, w := range want {
			if w >= 0 && (v>>i&1 == 1) != (w == 1) {
				agrees = false
			}
		}
		if !agrees {
			continue
		}
		if !found {
			out, found = split.sets[v], true
		} else {
			out = meet(out, split.sets[v])
		}
	}
	if !found {
		return a.at[site]
	}
	return out
}

// namedFuncs reports whether every value v may hold is a function known
// by name: a function, a closure or a method value.
func namedFuncs(v ssa.Value) bool {
	srcs := ssavalue.Sources(v)
	if len(srcs) == 0 {
		return false
	}
	for _, s := range srcs {
		switch s.(type) {
		case *ssa.Function, *ssa.MakeClosure:
		default:
			return false
		}
	}
	return true
}

// lockerKey names the mutex that v (a *Mutex, or a sync.Locker made from
// a pointer to a struct embedding one) locks.
func (a *solver) lockerKey(v ssa.Value) (sharedloc.Loc, bool) {
	if mi, ok := v.(*ssa.MakeInterface); ok {
		ms := types.NewMethodSet(mi.X.Type())
		sel := ms.Lookup(nil, "Lock")
		if sel != nil && len(sel.Index()) > 1 {
			// A promoted Lock: the mutex is the embedded field the
			// method comes from.
			t := mi.X.Type()
			var f *types.Var
			for _, i := range sel.Index()[:len(sel.Index())-1] {
				if p, ok := t.Underlying().(*types.Pointer); ok {
					t = p.Elem()
				}
				st, ok := t.Underlying().(*types.Struct)
				if !ok || i >= st.NumFields() {
					return sharedloc.Loc{}, false
				}
				f = st.Field(i)
				t = f.Type()
			}
			return sharedloc.Loc{Kind: sharedloc.Field, Obj: f.Origin()}, true
		}
		v = mi.X
	}
	if ms := a.mutexObjects(v); len(ms) == 1 {
		return ms[0], true
	}
	return sharedloc.Loc{}, false
}

// mutexObjects returns the locations of the mutex that v points to. A
// mutex that is an element of an array or slice (a striped lock,
// locks[i].Lock() beside segments[i]) is named by the elements'
// location: every element is one mutex, as every instance of a type's
// field is, which errs toward "protected". A mutex locked through a
// pointer field or variable that holds another location's mutex is named
// by that location (see sharedMutexes).
func (a *solver) mutexObjects(v ssa.Value) []sharedloc.Loc {
	ms := a.shared.Objects(v)
	if ia, ok := v.(*ssa.IndexAddr); ok && len(ms) == 0 {
		for _, l := range a.shared.Objects(ia.X) {
			ms = append(ms, l.Contents())
		}
	}
	if len(ms) == 1 {
		if to, ok := a.sharedMutexes[ms[0]]; ok {
			return []sharedloc.Loc{to}
		}
	}
	return ms
}

// atDeferredCall returns the locks held when the call deferred by d runs:
// those held at every return of its function that may follow d (a return
// before the defer statement, `if err := lock(); err != nil { return err
// }; defer unlock()`, runs no such call), less those that deferred
// unlocks registered after d (which run before it) release.
func (a *solver) atDeferredCall(d *ssa.Defer) Set {
	fn := d.Parent()
	var held Set
	first := true
	for _, ret := range ssaflow.Returns(fn) {
		if !a.gr.Flow.MayFollow(d, ret) {
			continue
		}
		if first {
			held, first = a.at[ret], false
		} else {
			held = meet(held, a.at[ret])
		}
	}
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			later, ok := instr.(*ssa.Defer)
			if !ok || later == d || !a.gr.Flow.MayFollow(d, later) {
				continue
			}
			for _, m := range a.deferredReleases(later) {
				held = remove(held, m)
			}
		}
	}
	return held
}
