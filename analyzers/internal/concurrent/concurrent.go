// Package concurrent combines the building blocks (goroutine contexts,
// shared locations, lock sets and static ordering) into the questions the
// checks ask about two accesses: can they run on different goroutines at
// the same time, is a lock held by both, and how to tell the user why.
//
// Cost: the refinement of points-to sets by context refines each (value,
// context) pair once, spending the package's budget (see Objects);
// comparing two accesses spends one unit per pair of contexts tried,
// once for the views of one kind (see Overlap); views follow call sites
// maxLiftDepth calls up, one view per call site up to maxLiftSites and
// one for all beyond it, and Derefs at most maxDerefDepth calls into
// methods. When the budget runs out, no more accesses overlap and the
// checks fall silent, which the limits check reports.
package concurrent

import (
	"fmt"
	"go/token"
	"go/types"
	"iter"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/budget"
	"github.com/precog-dev/precog/analyzers/goroutines"
	"github.com/precog-dev/precog/analyzers/internal/source"
	"github.com/precog-dev/precog/analyzers/internal/ssabuild"
	"github.com/precog-dev/precog/analyzers/internal/ssavalue"
	"github.com/precog-dev/precog/analyzers/locksets"
	"github.com/precog-dev/precog/analyzers/ordering"
	"github.com/precog-dev/precog/analyzers/pointsto"
	"github.com/precog-dev/precog/analyzers/sharedloc"
)

// Requires lists the building blocks an Env needs; checks add it to their
// Requires.
var Requires = []*analysis.Analyzer{
	goroutines.Analyzer, sharedloc.Analyzer, locksets.Analyzer, ordering.Analyzer, pointsto.Analyzer, budget.Analyzer,
	ssabuild.Analyzer,
}

// Env is the view of one package that the checks share.
type Env struct {
	Pass       *analysis.Pass
	Goroutines *goroutines.Result
	Shared     *sharedloc.Result
	Locks      *locksets.Result
	Order      *ordering.Result
	PointsTo   *pointsto.Result
	// Budget is the package's; the Env spends it on refining points-to
	// sets and on comparing accesses.
	Budget *budget.Budget
	// AtOnce says that the check's pairs are bugs only when their two
	// sides run at the same time (a map's concurrent read and write, an
	// index checked and then used while another goroutine changes it),
	// not in one order or the other: goroutines of one context that run
	// one after the other (serialStarts) make no pair. A check whose pair
	// crashes in one order (a close after a close, a use after a close, a
	// nil stored before a dereference) leaves it false.
	AtOnce bool

	objs   map[objKey][]pointsto.Obj   // final refinements
	fields map[fieldKey][]pointsto.Obj // a view's field of them (viewObjects)
	// indexes memoizes viewIndex for one access, indexed: the checks
	// compare each access with many (conmap: each write with every
	// access of its map), and built the same index once per pair
	// (miniredis: 13 s of precog vet's 66 s of CPU). Kept for all
	// accesses, the indexes raised miniredis's peak from 1.45 to 2.3 GB.
	indexed *sharedloc.Access
	indexes map[viewKey]objIndex
	prov    map[objKey]provisional // refinements inside a cycle
	provAt  map[int][]objKey       // prov's keys by the level they depend on
	onStack map[objKey]int         // level of each value being refined
	stack   []frame
	spawned map[*goroutines.Context]*spawnInfo
	// own and ownFields memoize ownObject and ownField.
	own       map[*sharedloc.Access]ownKey
	made      madeCache
	ownFields map[*types.Var]bool
	// fieldsIdx holds fieldIndex's result, owners ownerStruct's index
	// (both nil until first asked).
	fieldsIdx *fieldsIndex
	owners    map[*types.Var]types.Type
	// runGates holds gates' result, nil until first asked.
	runGates *[]runGate
	// guardFlags memoizes neverCleared.
	guardFlags map[*types.Var]bool
	// passMemo memoizes passes, turns turnFlagOf.
	passMemo map[passKey]bool
	turns    map[*ssa.Function]*turnFlag
	// counts holds the package's reference counts and countedRets
	// memoizes returnsCounted (both nil until first asked).
	counts map[sharedloc.Loc]bool
	// countInits holds the constants stored to each count when its
	// object is built or re-initialized, countInitBad the counts with a
	// store of another value (see lastValue); valueFree memoizes
	// calledOnly, holders holderUse.
	countInits   map[sharedloc.Loc][]int64
	countInitBad map[sharedloc.Loc]bool
	valueFree    map[*ssa.Function]bool
	holders      map[holderKey]bool
	countedRets  map[countedKey]bool
	// keeps memoizes releasesNothing.
	keeps map[*ssa.Function]bool
	// bases holds the points-to analysis's clones of the objects the
	// refinement re-cloned (see reclone).
	bases map[baseKey]base
	// links holds the clones each re-clone was made from, and belowMemo
	// memoizes below while linksVersion is belowVersion (see reclone).
	links                      map[baseKey]*links
	belowMemo                  map[belowKey]bool
	linksVersion, belowVersion int
	// removeFuncs memoizes removing, removeLocs removable, whose
	// mutexes removeLocks holds.
	removeFuncs map[*ssa.Function][]removal
	removeLocs  map[sharedloc.Loc]bool
	removeLocks map[sharedloc.Loc][]sharedloc.Loc
	onlyCalled  map[*ssa.Function]bool
	// bound memoizes selfBinding.
	bound map[boundKey]boundPath
	// mods memoizes modFacts, sizes sizeOf.
	mods  map[modKey]modFact
	sizes map[modKey]bool
}

// New returns the Env of a pass whose analyzer requires Requires.
func New(pass *analysis.Pass) *Env {
	return &Env{
		Pass:       pass,
		Goroutines: pass.ResultOf[goroutines.Analyzer].(*goroutines.Result),
		Shared:     pass.ResultOf[sharedloc.Analyzer].(*sharedloc.Result),
		Locks:      pass.ResultOf[locksets.Analyzer].(*locksets.Result),
		Order:      pass.ResultOf[ordering.Analyzer].(*ordering.Result),
		PointsTo:   pass.ResultOf[pointsto.Analyzer].(*pointsto.Result),
		Budget:     pass.ResultOf[budget.Analyzer].(*budget.Budget),
		objs:       make(map[objKey][]pointsto.Obj),
		fields:     make(map[fieldKey][]pointsto.Obj),
		indexes:    make(map[viewKey]objIndex),
		prov:       make(map[objKey]provisional),
		provAt:     make(map[int][]objKey),
		onStack:    make(map[objKey]int),
		spawned:    make(map[*goroutines.Context]*spawnInfo),
		own:        make(map[*sharedloc.Access]ownKey),
		ownFields:  make(map[*types.Var]bool),
		guardFlags: make(map[*types.Var]bool),
		passMemo:   make(map[passKey]bool),
		turns:      make(map[*ssa.Function]*turnFlag),
		bases:      make(map[baseKey]base),
		links:      make(map[baseKey]*links),
		belowMemo:  make(map[belowKey]bool),
		bound:      make(map[boundKey]boundPath),
	}
}

// A Pair is two accesses that may run at the same time on goroutines of
// contexts CA and CB, reached as VA and VB describe.
type Pair struct {
	A, B   *sharedloc.Access
	CA, CB *goroutines.Context
	VA, VB View
	// assume is what the pair assumes beyond Assumption's rules (see
	// Overlap), or "".
	assume string
}

// Safe decides, for one pair of contexts, that a pair of accesses cannot
// go wrong; the checks pass one of the predicates below or their own.
type Safe func(p Pair) bool

// Overlap returns the first pair of contexts (in index order) in which a
// and b can run on two goroutines at once and safe does not hold. Accesses
// to objects not yet visible to other goroutines never overlap, nor does
// an access on a view through a call that hands its function such an
// object (see localThrough: an exported Init called by the constructor on
// what it has just allocated), nor do two
// accesses to the object one invocation of a function made, which that
// invocation alone touches (see ownObject), nor an access that such an
// invocation makes to its fresh object before it starts a goroutine (or
// calls the function that starts it) and that goroutine's access to
// the object it was handed, nor such an access to the object that a
// parameter of the starting function holds when every call of it passes
// an object of its own (see handedBefore), nor two accesses past one once-guard on the object (see
// oncePast), nor two accesses to an object that never leaves the
// goroutine that made it (pointsto.Result.Confined: a key iterator that
// a function makes and closes, run by two goroutines, is two iterators),
// and within one Multi context only accesses to an object all its
// goroutines share do. Nor do the goroutines that a call on the
// Caller goroutine starts and waits for before it returns and Caller code
// outside that call (ordering.Result.JoinedInCaller); goroutines that a
// function starts and waits for while it holds a lock hold it too, against
// code that does not run within that call (see starterLocks). Nor does an access
// on the branch where the decrement of its object's reference count
// returned 0 meet one made on that branch too, or while its goroutine
// holds a reference to its object (countedApart), nor, in a context that
// reaches it only through the branch of the last release of its
// object's count, an access and a use by a holder (lastReleased).
//
// A pair that the locks of every context would leave unprotected is
// judged again with the locks of its two contexts alone (see
// locksets.Result.InContext): a function, exported or not, that every
// chain of calls on a context's goroutines enters with a lock held holds
// it there, however many calls up the lock was taken. A pair still
// unprotected that the locks of the package's re-entrant calls (see
// reentrantAssumption) would protect, with every context's locks or with
// its two contexts' own, is of low confidence.
//
// Each call spends one unit of the package's budget per pair of contexts
// it compares; views that differ only in the call site they go through
// (a recursive helper's) compare their objects in each pair of contexts
// once, and spend again only on the pairs whose goroutines share them.
// Once the budget is exhausted, no pair overlaps, and the check's
// remaining comparisons are recorded as skipped.
func (e *Env) Overlap(a, b *sharedloc.Access, safe Safe) (Pair, bool) {
	return e.overlap(a, b, safe, nil)
}

// OverlapThrough is Overlap with b seen only through the given calls of
// its function (its views whose Site is one of them): an access that
// stores a parameter is a nil store only where a call passes nil, and
// only those calls' goroutines and locks make it one. A b with no view
// through a call (its function's call sites not all known, or more than
// maxLiftSites of them) overlaps nothing.
// Such a pair's assumption is judged with b at the call (see AtCall): a
// nil passed by test code rests on when the test makes the call.
func (e *Env) OverlapThrough(a, b *sharedloc.Access, sites []ssa.CallInstruction, safe Safe) (Pair, bool) {
	return e.overlap(a, b, safe, func(v View) bool { return v.Site != nil && slices.Contains(sites, v.Site) })
}

// AtCall returns p with its B side at the call its view goes through
// (p.VB.Site), or p itself when the view goes through none: B runs
// within that call, so what orders the call with A orders B, and the
// code that makes the call is the code that decides when B happens.
func (p Pair) AtCall() Pair {
	if p.VB.Site == nil {
		return p
	}
	b := *p.B
	b.Instr = p.VB.Site
	p.B = &b
	return p
}

// overlap is Overlap with b's views kept only where keep (if not nil)
// holds; their pairs' assumptions are judged at the call (AtCall).
func (e *Env) overlap(a, b *sharedloc.Access, safe Safe, keep func(View) bool) (Pair, bool) {
	if e.oneInvocation(e.ownObject(a), e.ownObject(b)) {
		return Pair{}, false // one invocation's object, on one goroutine
	}
	if e.Shared.Local(a) || e.Shared.Local(b) || e.onceTogether(a.Fn(), b.Fn()) || e.countedApart(a, b) || e.oncePast(a, b) {
		return Pair{}, false
	}
	if !e.Spend() {
		return Pair{}, false
	}
	var unsure Pair // the first pair that rests on an assumption
	found := false
	viewsA, viewsB := e.Views(a), e.Views(b)
	// sharing holds, for each pair of view kinds whose pairs of contexts
	// were all compared, the pairs of contexts (indexes into their
	// functions' contexts) whose goroutines share the objects: the steps
	// up to shared depend on the views only through their kinds, and a
	// helper that passes its parameter on to itself has many views of
	// one kind (chromedp's walk(m, n), which calls itself from four
	// places: its write of m has 21 views of 2 kinds, each in 186
	// contexts, and comparing it with itself on the five locations
	// sharedloc names m by spent 48 of the 50 million units of work
	// the package's analysis spent, past the default budget).
	sharing := make(map[[2]viewKind][][2]int)
	for i, va := range viewsA {
		if e.localThrough(a, va) {
			continue // a fresh object's, in the frame this call makes
		}
		cas := e.Goroutines.Of(va.Fn)
		for j, vb := range viewsB {
			if keep != nil && !keep(vb) || e.localThrough(b, vb) {
				continue
			}
			cbs := e.Goroutines.Of(vb.Fn)
			kinds := [2]viewKind{va.kind(), vb.kind()}
			known, compared := sharing[kinds]
			var shares [][2]int
			for x, y := range contextPairs(len(cas), len(cbs), known, compared) {
				ca, cb := cas[x], cbs[y]
				if !compared {
					if !goroutines.MayOverlap(ca, cb) {
						continue // two tests, run one after the other
					}
					if e.building(a, ca) || e.building(b, cb) {
						continue // an object its goroutine is still building
					}
					if e.Order.JoinedInCaller(ca, b.Instr, cb) || e.Order.JoinedInCaller(cb, a.Instr, ca) {
						continue // joined within a call the Caller makes while not running the other
					}
					if e.Order.JoinedBefore(ca, cb) || e.Order.JoinedBefore(cb, ca) {
						continue // one ended before the other started
					}
					if e.Order.JoinedApart(ca, cb) {
						continue // each joined within a call of its own, one call after the other
					}
					if e.lastReleased(a, b, cb) || e.lastReleased(b, a, ca) {
						continue // one runs after the last release, the other holds a reference
					}
				}
				if !e.Spend() {
					return Pair{}, false
				}
				if !compared {
					if ca == cb && !(ca.Multi && ca.Static(a.Fn()) && ca.Static(b.Fn()) &&
						e.Shared.SharedIn(a, ca) && e.Shared.SharedIn(b, ca)) || ca == cb && (e.ownSlots(a, b, ca) || e.AtOnce && e.serialStarts(ca)) {
						continue
					}
					oa, ob := e.viewIndex(a, i, va, ca), e.viewObjects(b, vb, cb)
					if !e.shared(oa, ob, ca, cb, globalRooted(a) || globalRooted(b)) {
						continue // different objects, or no evidence the goroutines share them
					}
					shares = append(shares, [2]int{x, y})
				}
				if e.handedBefore(a, b, ca, cb) || e.handedBefore(b, a, cb, ca) {
					continue // one invocation's fresh object, touched before it hands it over
				}
				p := Pair{A: a, B: b, CA: ca, CB: cb, VA: va.in(ca), VB: vb.in(cb)}
				p.VA, p.VB = e.withStarter(p.VA, ca, b, vb, cb), e.withStarter(p.VB, cb, a, va, ca)
				if safe != nil && safe(p) {
					continue
				}
				if safe != nil {
					// Locks on the goroutines of the contexts' tests:
					// asked only now, since each test's solution
					// costs a pass of the lock-set solver.
					q := p
					qa, ca := e.inTest(a, p.VA, i, p.CA)
					qb, cb := e.inTest(b, p.VB, j, p.CB)
					qa, qb = e.withStarter(qa, p.CA, b, vb, p.CB), e.withStarter(qb, p.CB, a, va, p.CA)
					q.VA, q.VB = qa, qb
					if (ca || cb) && safe(q) {
						continue
					}
					// Locks on the goroutines of each context alone:
					// a function entered there only with a lock held
					// (an exported one too), several calls up.
					ra, xa := e.inContext(a, qa, i, p.CA)
					rb, xb := e.inContext(b, qb, j, p.CB)
					if xa || xb {
						q.VA, q.VB = ra, rb
						if safe(q) {
							continue
						}
					}
					// Safe with the locks the package's own code
					// holds: only a test's call without them makes
					// the pair, and when the test makes it is the
					// test's protocol.
					q.VA, q.VB = p.VA, p.VB
					q.VA.Locks, q.VB.Locks = p.VA.LibLocks, p.VB.LibLocks
					if t := testOf(p.CA, p.CB); t != nil && safe(q) {
						p.assume = fmt.Sprintf("that test code in %s calls into the package without the locks the package holds, while its goroutines use the same state", source.FuncName(t))
					}
					// Safe where the package's re-entrant calls
					// hold the lock they skip: the report rests on
					// the skipping path running without it.
					if p.assume == "" {
						p.assume = e.reentrantAssumption(a, b, p, i, j, safe)
					}
					// The same with each context's own locks: a
					// side entered only under the lock in its
					// context meets a callback that holds it but
					// where the re-entrant call skips it
					// (miniredis's commands against a direct API
					// call's del, which Copy also calls unlocked).
					if p.assume == "" && (xa || xb) {
						r := p
						r.VA, r.VB = ra, rb
						p.assume = e.reentrantAssumption(a, b, r, i, j, safe)
					}
				}
				judged := p
				if keep != nil {
					judged = p.AtCall()
				}
				if e.Assumption(judged) == "" {
					return p, true
				}
				if !found {
					unsure, found = p, true
				}
			}
			if !compared {
				sharing[kinds] = shares
			}
		}
	}
	return unsure, found
}

// A viewKind is what the objects and contexts of a view depend on, for
// one access (see viewObjects): views of one kind differ only in the
// call site they go through and the locks held there.
type viewKind struct {
	fn    *ssa.Function
	arg   ssa.Value
	field *types.Var
}

func (v View) kind() viewKind { return viewKind{v.Fn, v.Arg, v.Field} }

// contextPairs yields the index pairs of n contexts and m contexts in
// order, or, when only is set, the pairs in known (which are in order).
func contextPairs(n, m int, known [][2]int, only bool) iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		if only {
			for _, k := range known {
				if !yield(k[0], k[1]) {
					return
				}
			}
			return
		}
		for x := range n {
			for y := range m {
				if !yield(x, y) {
					return
				}
			}
		}
	}
}

// localThrough reports whether a, on the view v through a call site of
// its function, touches an object that no other goroutine can reach yet
// in the frame that call makes (sharedloc.Result.LocalThrough): no
// goroutine touches that object concurrently, and a goroutine that
// touches another object of the same allocation site touches another
// object. colly's NewCollector allocates c and calls c.Init(), which
// stores nil to c.Headers; a test that makes a second collector while
// the first one's fetch goroutine reads its own Headers pairs the two
// through the allocation site alone.
func (e *Env) localThrough(a *sharedloc.Access, v View) bool {
	return v.Site != nil && e.Shared.LocalThrough(a, v.Site)
}

// Assumption returns what a diagnostic about the pair p assumes that the
// analysis cannot check, or "" when it assumes nothing beyond the
// analysis's own model; checks report a pair with an assumption at low
// confidence (suppress.Reporter.ReportAssuming), shown only under -all.
//
// Each assumption is about when code outside the package's own functions
// does something (a test, or an importer calling the package), which it
// decides by its own protocol and a static analysis of the package cannot
// see:
//   - both sides run on two goroutines of one HTTP handler written in a
//     test file: a handler serves requests at once, but a test makes the
//     requests it means to, usually one at a time (in a non-test file the
//     handler is taken to serve many requests at once, as a server does);
//   - one side is code written in a _test.go file and the other is not:
//     test code touching the package's own state (a hook it installs or
//     clears in a package variable, internals it inspects) does so when
//     the test decides, relative to the goroutines of the package that
//     the test caused, typically before it starts them or after they are
//     quiet; the package code does not depend on it;
//   - the two sides hold a common lock at the package's own call sites
//     (locksets.Result.OutsideTests), and only a call from test code
//     without it leaves a side unlocked on the test's goroutine: when the
//     test calls in, relative to the goroutines of the package it caused,
//     is again the test's protocol;
//   - the two sides are ordered by a sync.Once, or run in one Do, once
//     the callers written in _test.go files are left out: only a test
//     export (or helper) runs one of them outside the Once, and whether it
//     does so while the package's goroutines run is up to the test;
//   - the two sides are ordered by a sync.Once once the goroutine starts
//     that code calling into the package reaches (a Caller context, a
//     parallel test) are taken to come after the Do, where one path of
//     calls to the goroutine's start does run the Do first
//     (ordering.Result.OnceOrderedBeyondCallers): the report needs an
//     importer to call the package's exported functions in an order that
//     starts the goroutine before anything ran the Do, and the order in
//     which an importer calls them is outside the package.
//
// One is about how the package's callers use a value: both sides run
// in one Read (or Write) method, with io.Reader's (io.Writer's)
// signature, on the object its receiver points to; the report needs two
// goroutines to read one reader at once, which those interfaces do not
// promise to allow (net/http's readWriteCloserBody, whose probe
// goroutine's Read comes before the caller's through a channel).
//
// Three more are about the package's own control flow, where the analysis
// cannot follow it:
//   - the two sides run on two goroutines of one context (or of one go
//     statement) that is Multi only through a recursive call chain, or,
//     for a go statement in a closure made in a test function, only
//     through another test's loop or goroutines (goroutines.Context's
//     Unsure: the call graph lets one test's state machine call every
//     test's callbacks); whether the recursion or the other test runs
//     the start again depends on values the analysis does not follow;
//   - the two sides run on two goroutines of one context that the
//     goroutines analysis lets run several at once, but whose goroutines
//     look started one at a time, each after a Wait for the one before
//     (ordering.Result.RestartedAfterJoin: a reconnect loop that waits for
//     the old reader before it starts a new one, on the path that skips
//     the Wait only behind a flag); the report needs two starts without a
//     Wait between, by two goroutines running the starting code at once
//     or by the path around the Wait;
//   - the two sides hold a common lock once the calls a function makes
//     on a path that skips a lock it takes around the same call on
//     another path are taken to hold it (locksets.Result.Reentrant: a
//     re-entrant dispatch whose flag says its caller holds the lock):
//     the report needs the skipping path to run without the lock, which
//     depends on where the flag is set, through values the analysis does
//     not follow.
func (e *Env) Assumption(p Pair) string {
	if p.assume != "" {
		return p.assume
	}
	if a := e.runAssumption(p); a != "" {
		return a
	}
	return e.orderAssumption(p)
}

// StartAssumption is Assumption for a pair whose one side runs in the
// function that starts the other side's goroutine, after the go
// statement (con-uninit's read or write after a start): the assumptions
// about when the two sides run at once (runAssumption) do not apply to
// it, since that function's own code puts the side after the start,
// whoever calls it: a test that starts a goroutine of the package and
// reads at once what it sets races with it within the test's own code,
// and the start and its goroutine run at once without a second start or
// a second goroutine of the context. Those about what orders or protects
// the two sides do.
func (e *Env) StartAssumption(p Pair) string {
	if p.assume != "" {
		return p.assume
	}
	return e.orderAssumption(p)
}

// runAssumption returns Assumption's assumption about when the two sides
// run at once: a context Multi only through a restart after a Wait or
// through recursion, a test's handler serving two requests at once, test
// code running while the package's goroutines do.
func (e *Env) runAssumption(p Pair) string {
	if p.CA == p.CB && p.CA != nil {
		if j, ok := e.Order.RestartedAfterJoin(p.CA); ok {
			return fmt.Sprintf("that goroutines running %s can start again before the one before has ended, although %s waits for it before starting another", source.FuncName(p.CA.Entry), source.FuncName(j.Parent()))
		}
	}
	if p.CA != nil && p.CB != nil && p.CA.Unsure && p.CB.Unsure && (p.CA == p.CB || p.CA.Site != nil && p.CA.Site == p.CB.Site) {
		return fmt.Sprintf("that the code starting the goroutine running %s runs again while that goroutine runs, which only a recursive call or another test's code would do", source.FuncName(p.CA.Entry))
	}
	if p.CA == p.CB && p.CA != nil && p.CA.Kind == goroutines.Handler && source.InTestFile(e.Pass.Fset, p.CA.Root) {
		return "that the test's handler serves two requests at once"
	}
	fa, fb := p.A.Fn(), p.B.Fn()
	if m := streamMethod(fa); m != "" && fa == fb && onReceiver(p.A) && onReceiver(p.B) {
		// Both sides in one Read (or Write) of one value: only a
		// caller that reads one reader from two goroutines at once
		// makes the pair (net/http's readWriteCloserBody.Read, which
		// the transport's probe goroutine calls before any other
		// Read, ordered through a channel the analysis does not
		// follow).
		return fmt.Sprintf("that two goroutines call %s on one value at once, which io.%ser does not promise to allow", m, m)
	}
	ta, tb := source.InTestFile(e.Pass.Fset, fa.Pos()), source.InTestFile(e.Pass.Fset, fb.Pos())
	if !ta && !tb && p.CA != nil && p.CB != nil && p.CA.Kind == goroutines.ParallelTest && p.CB.Kind == goroutines.ParallelTest {
		// Only parallel tests run the package's code at once: whether
		// they reach its writes together is up to their inputs, which the
		// analysis does not follow (minidyn's three parallel subtests
		// deleting from one table, each rejected before the write:
		// held-out rehearsal 49's 8 rejectedinput reports, which read as
		// bugs of the library).
		tests := source.FuncName(p.CA.Entry)
		if b := source.FuncName(p.CB.Entry); b != tests {
			tests += " and " + b
		}
		return fmt.Sprintf("that parallel tests (%s) reach these accesses of one object at once, with inputs that get past the checks before them", tests)
	}
	if ta != tb {
		if tb {
			fa = fb
		}
		return fmt.Sprintf("that test code in %s runs while goroutines of the package use the same state", source.FuncName(fa))
	}
	return ""
}

// streamMethod returns "Read" or "Write" when fn is a method of that name
// with io.Reader's or io.Writer's signature, or "".
func streamMethod(fn *ssa.Function) string {
	sig := fn.Signature
	if sig.Recv() == nil || fn.Name() != "Read" && fn.Name() != "Write" {
		return ""
	}
	if !ioShaped(sig) {
		return ""
	}
	return fn.Name()
}

// ioShaped reports whether sig takes one []byte and returns an int and an
// error, whatever its names.
func ioShaped(sig *types.Signature) bool {
	ps, rs := sig.Params(), sig.Results()
	return ps.Len() == 1 && rs.Len() == 2 &&
		types.Identical(ps.At(0).Type(), types.NewSlice(types.Typ[types.Byte])) &&
		types.Identical(rs.At(0).Type(), types.Typ[types.Int]) &&
		types.Identical(rs.At(1).Type(), types.Universe.Lookup("error").Type())
}

// onReceiver reports whether a touches the object its method's receiver
// points to.
func onReceiver(a *sharedloc.Access) bool {
	fn := a.Fn()
	return fn.Signature.Recv() != nil && len(fn.Params) > 0 && a.Base == ssa.Value(fn.Params[0])
}

// orderAssumption returns Assumption's assumption about what orders the
// two sides: one call of a function taken to run twice on one object, a
// sync.Once left out by test callers or by an importer's order of calls.
func (e *Env) orderAssumption(p Pair) string {
	if f, ok := e.apartInOneCall(p.A, p.CB); ok {
		return fmt.Sprintf("that %s runs twice on one object: within one call, this path returns without starting the goroutine running %s", source.FuncName(f), source.FuncName(p.CB.Entry))
	}
	if f, ok := e.apartInOneCall(p.B, p.CA); ok {
		return fmt.Sprintf("that %s runs twice on one object: within one call, the other path returns without starting the goroutine running %s", source.FuncName(f), source.FuncName(p.CA.Entry))
	}
	if e.Order.OnceOrderedOutsideTests(p.A.Instr, p.CA, p.B.Instr, p.CB) {
		return "that test code calls into it outside the sync.Once the package's own callers use"
	}
	if c, ok := e.Order.OnceOrderedBeyondCallers(p.A.Instr, p.CA, p.B.Instr, p.CB); ok && c.Entry != nil {
		return fmt.Sprintf("that code calling into the package starts the goroutine running %s on a path that runs no sync.Once.Do first, although another path runs it", source.FuncName(c.Entry))
	}
	return ""
}

// apartInOneCall reports whether the access a lies in the function F of
// the `go` statement that starts the goroutines of c on a path of its own:
// within one call of F, a and the statement exclude each other (neither
// may follow the other), so a and those goroutines meet only in two calls
// of F (inbucket's pop3 Start closes notify on the path where Listen
// failed and returns; on the other it starts serve, which closes it when
// Accept fails: held-out rehearsal 43's V1). It returns F.
func (e *Env) apartInOneCall(a *sharedloc.Access, c *goroutines.Context) (*ssa.Function, bool) {
	if c == nil || c.Kind != goroutines.Go || c.Site == nil || c.Multi {
		return nil, false
	}
	s := c.Site
	if a.Instr.Parent() != s.Parent() {
		return nil, false
	}
	flow := e.Goroutines.Flow
	return s.Parent(), !flow.MayFollow(a.Instr, s) && !flow.MayFollow(s, a.Instr)
}

// reentrantAssumption returns the assumption a report of p rests on when
// p is safe with the locks taken as held at the package's re-entrant
// calls (see locksets.Result.Reentrant: a function that locks a mutex
// around a call on one path and skips the lock on another, where a flag
// says its caller holds it), or "". a and b are p's accesses, the i-th
// and j-th of their views. A side whose goroutines run a test keeps the
// locks of every call site (All's), the others those outside tests.
func (e *Env) reentrantAssumption(a, b *sharedloc.Access, p Pair, i, j int, safe Safe) string {
	q := p
	for _, side := range []struct {
		acc  *sharedloc.Access
		v    *View
		c    *goroutines.Context
		view int
	}{{a, &q.VA, p.CA, i}, {b, &q.VB, p.CB, j}} {
		s := e.Locks.Reentrant(side.c.Test == nil)
		if s == nil {
			return ""
		}
		if views := e.viewsIn(side.acc, s); side.view < len(views) {
			side.v.Locks = side.v.Locks.Union(views[side.view].Locks)
		}
	}
	if !safe(q) {
		return ""
	}
	// Name the functions whose skipped lock both sides now hold (those
	// skipping another mutex are not what the report rests on).
	var names []string
	for _, h := range q.VA.Locks.Intersect(q.VB.Locks) {
		if _, ok := p.VA.Locks.Intersect(p.VB.Locks).Lookup(h.Mutex); ok {
			continue
		}
		for _, fn := range e.Locks.ReentrantFuncs(h.Mutex) {
			if n := source.FuncName(fn); !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	what := "the functions that lock a mutex around a call on one path and skip the lock on another"
	switch len(names) {
	case 0:
	case 1:
		what = names[0]
	default:
		what = strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
	}
	return fmt.Sprintf("that where %s skips the lock it takes around the same call on another path, the call runs unlocked (not re-entered under the caller's lock)", what)
}

// testOf returns the test that the goroutines of a or b run for, or nil.
func testOf(a, b *goroutines.Context) *ssa.Function {
	if a.Test != nil {
		return a.Test
	}
	return b.Test
}

// Spend spends one unit of the package's budget on a step of the check,
// and reports whether the check may go on; when it may not, it records
// that the rest of the check was skipped.
func (e *Env) Spend() bool {
	if e.Budget.Spend(1) {
		return true
	}
	e.Budget.Skip("the rest of the " + e.Pass.Analyzer.Name + " check")
	return false
}

// shared reports whether the objects xs (touched on ca) and ys (touched
// on cb) have one in common that the two goroutines can be shown to
// share: a package variable or what it holds (global), or an object that
// one goroutine was handed
// when it was started (as an argument, a receiver or a captured variable)
// by the other, or by the goroutine that started them both. Requiring
// that witness keeps the checks from pairing two goroutines that merely
// touch objects of one allocation site, which is all the points-to
// analysis can tell about objects that travel through interfaces, maps
// and long call chains.
func (e *Env) shared(xs objIndex, ys []pointsto.Obj, ca, cb *goroutines.Context, global bool) bool {
	for _, y := range ys {
		if y.Site == nil {
			continue // known only by type
		}
		for _, x := range xs[objAt{y.Site, y.Path}] {
			if !e.mayAlias(x, y) {
				continue
			}
			if e.confined(x) || e.confined(y) {
				continue // its goroutine's own: two goroutines touch two
			}
			if _, isGlobal := x.Site.(*ssa.Global); isGlobal || global {
				return true
			}
			if e.handedTo(cb, x, ca) || e.handedTo(ca, x, cb) {
				return true
			}
		}
	}
	return false
}

// globalRooted reports whether a reaches memory through a package
// variable (v.f, v[k], or the map or channel v holds).
func globalRooted(a *sharedloc.Access) bool {
	_, ok := a.Base.(*ssa.Global)
	return ok
}

// handedTo reports whether o, or an object from which it can be reached
// through memory of concrete types, was handed to the goroutines of c when
// they were started, by code running on other (the starting goroutine, or
// a goroutine started by the same one).
func (e *Env) handedTo(c *goroutines.Context, o pointsto.Obj, other *goroutines.Context) bool {
	if c.Site == nil && c.Kind != goroutines.Handler {
		return false
	}
	if c != other && c.Site != nil {
		starters := e.Goroutines.Of(c.Site.Parent())
		related := slices.Contains(starters, other)
		if !related && other.Site != nil {
			for _, s := range e.Goroutines.Of(other.Site.Parent()) {
				related = related || slices.Contains(starters, s)
			}
		}
		if !related {
			return false
		}
	}
	s := e.spawnObjects(c)
	if e.among(o, s.objs, s.roots, &s.reach) {
		return true
	}
	for _, w := range s.stores {
		if w.by(c, other, e.Goroutines) && e.among(o, w.objs, w.objs, &w.reach) {
			return true
		}
	}
	return false
}

// among reports whether o is one of objs (or lies inside one) or is
// reachable from roots, the reachable sites memoized in *reach.
func (e *Env) among(o pointsto.Obj, objs, roots []pointsto.Obj, reach *map[ssa.Value]bool) bool {
	for _, k := range objs {
		if k.Site == o.Site && e.sameChain(o.Site, k.Clone, o.Clone) && strings.HasPrefix(o.Path, k.Path) {
			return true
		}
	}
	if *reach == nil {
		*reach = e.PointsTo.Reachable(roots, maxReach)
	}
	return (*reach)[o.Site]
}

// maxReach bounds how many pointers handedTo follows from what a goroutine
// was handed (a cache, its map, the entries in it).
const maxReach = 4

// spawnInfo is what the goroutines of a context are handed when they
// start: objs (roots, to follow pointers from), and the values stored to
// the variables they capture (stores).
type spawnInfo struct {
	objs, roots []pointsto.Obj
	reach       map[ssa.Value]bool
	stores      []*cellStore
}

// A cellStore is the objects that one function stores to a variable that
// the goroutines of a context capture, and the contexts it runs in.
type cellStore struct {
	cell  *ssa.Alloc
	in    []*goroutines.Context
	objs  []pointsto.Obj
	reach map[ssa.Value]bool
}

// by reports whether the store hands its objects to the goroutines of c
// from other's side: it runs on other or on a goroutine that starts c,
// directly or through goroutines it starts (a sibling's store hands them
// to c from that sibling only; c without a start site, an HTTP handler,
// takes any); one that runs on c alone, the goroutine's own, hands them the other way, to
// whoever reads the variable: it counts only if code of other loads it
// (or its address goes elsewhere).
func (w *cellStore) by(c, other *goroutines.Context, gr *goroutines.Result) bool {
	if len(w.in) == 1 && w.in[0] == c {
		fns, escapes := ssavalue.Loaders(w.cell)
		if escapes {
			return true
		}
		for _, fn := range fns {
			if slices.Contains(gr.Of(fn), other) {
				return true
			}
		}
		return false
	}
	if slices.Contains(w.in, other) || c.Site == nil {
		return true // an HTTP handler's starter is not known: any
	}
	// The starters of c, and theirs in turn: a go statement in a closure
	// that captured the variable from the function declaring it (a
	// goroutine that starts goroutines, a range-over-func body) has the
	// store made by its starter's starter.
	seen := map[*goroutines.Context]bool{c: true}
	starters := []*goroutines.Context{c}
	for range ssavalue.MaxDepth {
		var next []*goroutines.Context
		for _, x := range starters {
			if x.Site == nil {
				continue
			}
			for _, s := range gr.Of(x.Site.Parent()) {
				if slices.Contains(w.in, s) {
					return true
				}
				if !seen[s] {
					seen[s] = true
					next = append(next, s)
				}
			}
		}
		if len(next) == 0 {
			break
		}
		starters = next
	}
	return false
}

// spawnObjects returns the objects handed to the goroutines of c when they
// start: the arguments (receiver included) of the `go` statement or
// spawning call, and the variables captured by the function they run,
// with what is stored to them (see cellStore); for an HTTP handler, its
// receiver. Values that hold no pointer (numbers, strings) hand nothing.
func (e *Env) spawnObjects(c *goroutines.Context) *spawnInfo {
	if s, ok := e.spawned[c]; ok {
		return s
	}
	var out objSet
	info := &spawnInfo{}
	var handed []ssa.Value
	if c.Site != nil {
		handed = append(handed, c.Site.Common().Args...)
		if c.Site.Common().IsInvoke() {
			handed = append(handed, c.Site.Common().Value)
		} else {
			// A method value called (`f := s.Stop; go f()`): its
			// receiver. (A literal's captures are its FreeVars'.)
			for _, src := range ssavalue.Sources(c.Site.Common().Value) {
				if mc, ok := src.(*ssa.MakeClosure); ok && ssavalue.BoundMethod(mc.Fn.(*ssa.Function)) != nil {
					handed = append(handed, mc.Bindings...)
				}
			}
		}
	}
	for _, fv := range c.Entry.FreeVars {
		if b := ssavalue.Binding(fv); b != nil {
			handed = append(handed, b)
		}
	}
	if c.Kind == goroutines.Handler && c.Site == nil && c.Entry.Signature.Recv() != nil && len(c.Entry.Params) > 0 {
		out.add([]pointsto.Obj{{Site: c.Entry.Params[0]}})
	}
	stored := make(map[ssa.Value]bool) // cells with stores of pointers
	// A closure handed over, or stored in a captured variable, hands
	// over what it captured: the goroutine may call it (`fn := func() {
	// ... s.m ... }; go func() { fn() }()` shares s with the goroutine,
	// as `go fn()` does).
	closures := make(map[*ssa.MakeClosure]bool)
	bindings := func(v ssa.Value) {
		if mc, ok := v.(*ssa.MakeClosure); ok && !closures[mc] {
			closures[mc] = true
			handed = append(handed, mc.Bindings...)
		}
	}
	for i := 0; i < len(handed); i++ {
		v := handed[i]
		bindings(v)
		if cell := ssavalue.Cell(v); cell != nil {
			// A captured variable: the cell, and what is stored to it.
			// Also when the go statement is in a closure that captured
			// it in turn (a range-over-func body, a t.Run literal): the
			// binding is that closure's FreeVar, and the cell is the
			// declaring function's. Such a cell stays a root as well:
			// the goroutines of sibling closures may store to it (one
			// stores nil to s.stop while another, started in a body,
			// calls it), which no store's starter chain shows.
			_, direct := v.(*ssa.Alloc)
			out.add([]pointsto.Obj{{Site: cell}})
			for _, st := range ssavalue.Stores(cell) {
				sv := st.Val
				bindings(sv)
				if sharedloc.PointerFree(sv.Type()) {
					// A number reaches no object, whatever the points-to
					// analysis names for the memory it was loaded from
					// (the shim's TestHanded storing cur().id to a
					// variable its goroutine captures was taken as
					// handing that goroutine the state cur() returns).
					continue
				}
				stored[cell] = stored[cell] || direct
				var objs objSet
				for _, pc := range e.contextsFor(sv, c) {
					objs.add(e.Objects(sv, pc))
				}
				if len(objs.list) > 0 {
					info.stores = append(info.stores, &cellStore{cell: cell, in: e.Goroutines.Of(st.Parent()), objs: objs.list})
				}
			}
			continue
		}
		if sharedloc.PointerFree(v.Type()) {
			continue
		}
		var fn *ssa.Function
		if c.Site != nil {
			fn = c.Site.Parent()
		}
		for _, pc := range e.Goroutines.Of(fn) {
			out.add(e.Objects(v, pc))
		}
	}
	info.objs = out.list
	// The cells' contents are followed per store (stores), not through
	// the cell.
	for _, k := range out.list {
		if !stored[k.Site] {
			info.roots = append(info.roots, k)
		}
	}
	e.spawned[c] = info
	return info
}

// onceTogether reports whether f and g both run only inside the Do of one
// sync.Once: they run once, on one goroutine.
func (e *Env) onceTogether(f, g *ssa.Function) bool {
	for _, x := range e.Order.OnceGuards(f) {
		for _, y := range e.Order.OnceGuards(g) {
			if x == y {
				return true
			}
		}
	}
	return false
}

// Ordered is a Safe predicate: the two accesses are ordered one way or the
// other, or ordered whenever they touch one object (see joinedInCall: a
// goroutine's access to the object the invocation that started it made,
// and that invocation's access after it joined its goroutines).
func (e *Env) Ordered(p Pair) bool {
	if _, ok := e.Order.Ordered(p.A.Instr, p.CA, p.B.Instr, p.CB); ok {
		return true
	}
	if e.joinedInCall(p.A, p.B) || e.joinedInCall(p.B, p.A) {
		return true
	}
	// An access seen through a call of its function runs within that
	// call: what orders the call orders it (a callee ranging over a map
	// after the caller's wg.Wait, or where the goroutines never started).
	// (A deferred call runs at the return, not where it is deferred.)
	a, b := p.A.Instr, p.B.Instr
	if site, ok := p.VA.Site.(*ssa.Call); ok {
		a = site
	}
	if site, ok := p.VB.Site.(*ssa.Call); ok {
		b = site
	}
	if a == p.A.Instr && b == p.B.Instr {
		return false
	}
	_, ok := e.Order.Ordered(a, p.CA, b, p.CB)
	return ok
}

// Apart is a Safe predicate: every goroutine of one side is started
// after the other access on its goroutine, or by code that never runs
// with it (ordering.Result.StartedApart: an HTTP handler that the
// package's API entry serves after filling what it reads, and its tests
// serve on test servers of their own). It orders nothing, so conuninit,
// which asks whether a write comes before a read, does not use it.
func (e *Env) Apart(p Pair) bool {
	return e.Order.StartedApart(p.A.Instr, p.CA, p.CB) || e.Order.StartedApart(p.B.Instr, p.CB, p.CA)
}

// ABefore is a Safe predicate: A happens before B (or, for joinedInCall,
// whenever the two touch one object).
func (e *Env) ABefore(p Pair) bool {
	_, ok := e.Order.Before(p.A.Instr, p.CA, p.B.Instr, p.CB)
	return ok || e.joinedInCall(p.A, p.B)
}

// Excluded reports whether a mutex is held at both accesses of p, in write
// mode at one of them at least.
func (e *Env) Excluded(p Pair) bool {
	_, ok := p.VA.Locks.Excludes(p.VB.Locks)
	return ok
}

// Unprotected is the Safe predicate of most checks: the accesses hold a
// common mutex, they are ordered, both run only on the winner of one
// election (see Elected) or on goroutines that take turns on the object
// (see Turns), or one goes through a container its goroutine took out of
// the other's reach under that mutex (see Taken), or both touch what
// belongs to an element their goroutines removed from a container under
// one mutex (see Removed), or one runs only in a phase of the object that
// the other's goroutine left for good before it (see Phased), or both run
// in runs of one function that a state field lets in one at a time (see
// OneRun).
func (e *Env) Unprotected(p Pair) bool {
	return e.Excluded(p) || e.Ordered(p) || e.Apart(p) || e.Elected(p) || e.Turns(p) || e.Taken(p) || e.Removed(p) || e.Phased(p) || e.OneRun(p)
}

// Related returns the evidence for a pair to attach to a diagnostic
// reported at one side: the other access, described by what, and the
// roots that start the goroutines, and locks held at one side only.
func (e *Env) Related(p Pair, what string) []analysis.RelatedInformation {
	var rel []analysis.RelatedInformation
	rel = append(rel, analysis.RelatedInformation{Pos: p.B.Pos(), Message: what})
	if p.CB == p.CA {
		rel = append(rel, e.RootInfo(p.CA)...)
	} else {
		// Two roots: each says which side runs there (held-out
		// rehearsal 57: two "goroutine running ... started here" lines
		// under a send on a closed channel left the reader to guess
		// which one sends).
		rel = append(rel, side(e.RootInfo(p.CA), "the reported access")...)
		rel = append(rel, side(e.RootInfo(p.CB), "the other access")...)
	}
	rel = append(rel, e.LockInfo(p.VA.Locks, p.VB.Locks)...)
	return rel
}

// side appends to each root's message which access of a pair runs there.
func side(roots []analysis.RelatedInformation, access string) []analysis.RelatedInformation {
	for i := range roots {
		roots[i].Message += ": " + access + " runs there"
	}
	return roots
}

// RootInfo describes where the goroutines of c come from.
func (e *Env) RootInfo(c *goroutines.Context) []analysis.RelatedInformation {
	var msg string
	switch c.Kind {
	case goroutines.Caller:
		return nil
	case goroutines.Go:
		msg = fmt.Sprintf("goroutine running %s started here", source.FuncName(c.Entry))
	case goroutines.Task, goroutines.Detached:
		msg = fmt.Sprintf("%s handed to another goroutine here", source.FuncName(c.Entry))
	case goroutines.Handler:
		msg = fmt.Sprintf("%s handles HTTP requests, each on its own goroutine", source.FuncName(c.Entry))
	case goroutines.ParallelTest:
		msg = fmt.Sprintf("%s runs in parallel with other tests", source.FuncName(c.Entry))
	}
	if c.Multi && c.Kind != goroutines.Handler {
		msg += ", possibly many times"
	}
	return []analysis.RelatedInformation{{Pos: c.Pos(), Message: msg}}
}

// LockInfo reports mutexes held at one side of a pair but not the other.
func (e *Env) LockInfo(sa, sb locksets.Set) []analysis.RelatedInformation {
	var rel []analysis.RelatedInformation
	for _, h := range sa {
		if _, ok := sb.Lookup(h.Mutex); !ok && h.Pos.IsValid() {
			rel = append(rel, analysis.RelatedInformation{Pos: h.Pos, Message: fmt.Sprintf("%s is held here, but not at the other access", h.Mutex)})
		}
	}
	for _, h := range sb {
		if _, ok := sa.Lookup(h.Mutex); !ok && h.Pos.IsValid() {
			rel = append(rel, analysis.RelatedInformation{Pos: h.Pos, Message: fmt.Sprintf("%s is held here, but not at the reported access", h.Mutex)})
		}
	}
	return rel
}

// Expr renders the user's expression at pos, or fallback.
func (e *Env) Expr(pos token.Pos, fallback string) string {
	if s := source.Expr(e.Pass, pos); s != "" {
		return s
	}
	return fallback
}
