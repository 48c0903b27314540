package rewrite

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"go/version"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/shim/trace"
)

// Options says what to instrument in one file.
type Options struct {
	// Shared reports whether the access at pos is to a shared location.
	// pos is the position go/ssa gives the access: the Sel of x.f and of a
	// qualified pkg.V, the Lbrack of a[i] and m[k], the Star of *p, an
	// identifier's own position, the For of a range over a map and the
	// Lparen of delete(m, k) and clear(m). Nil means every access to a heap
	// or package-level location counts (the -all mode). Accesses to local
	// variables that no closure captures and whose address is never taken
	// are never instrumented.
	Shared func(pos token.Pos) bool
	// Uses returns trace.Site.Uses for the read at pos (the position
	// Shared is asked about), and for an atomic load call and an unlock
	// call at its Lparen; nil for none.
	Uses func(pos token.Pos) string
	// WriteUses returns trace.Site.Uses for the write at pos (the
	// position Shared is asked about); nil for none.
	WriteUses func(pos token.Pos) string
	// Guards returns the reads that guard the access at pos (the
	// position Shared is asked about), by their positions as Shared is
	// asked about them: the access's site lists the read sites already
	// made at them (trace.Site.Guards and Switches). Nil for none.
	Guards func(pos token.Pos) []Guard
	Funcs  bool // insert Enter/Exit in function bodies
	// Locals is precog explain's full tracing: accesses to every local
	// variable are instrumented too, as if it escaped, and definitions
	// (x := v, var x = v) of new variables are recorded after the
	// statement with precog_shim.Def, which a suppressing plan can undo.
	// Locals takes the address of every local it instruments, and
	// precog_shim.Def makes the variables it records escape to the heap
	// (a stack that grows would move them): it costs more than any other
	// mode, for the one command that needs every load and store.
	Locals bool
	// SkipFunc reports the functions, by the position of their body's
	// opening brace, whose entry and exit a CFP plan does not log
	// (analyzers/cfpplan); they keep their "func" site, which tells the
	// site table where the function is, without the Enter/Exit calls.
	// Nil skips none.
	SkipFunc func(lbrace token.Pos) bool
	// FirstSite is the first site id this file may use.
	FirstSite uint32
	// FirstFuncSite, if not 0, numbers the "func" sites apart, from this
	// id up: adding or removing a function then moves no other site's id,
	// which force plans and reproducers name (and from which goroutines'
	// logical ids derive).
	FirstFuncSite uint32
	// Instrumented reports whether the package with the given path is
	// instrumented in the same build. The task groups of errgroup and conc
	// are modeled as fork and join only where their own code is not
	// instrumented: where it is, its go statements and WaitGroups are
	// recorded, and a modeled task would start a second logical goroutine
	// inside the group's own. Nil means none is.
	Instrumented func(pkgPath string) bool
	// Starts reports whether the call whose Lparen is at the position
	// may start goroutines in a package that is not instrumented
	// (analyzers/spawnfacts' StartsFact): its function value is then
	// wrapped as precog_shim.MarkF(S, f), when no call on the line can
	// run before the mark (see markAlone). Nil marks none.
	Starts func(lparen token.Pos) bool
	// PassLocal holds the functions of the package that take their
	// caller's shim.Local (LocalCallees, computed over all the package's
	// files: a function's declaration and its calls must agree). Nil
	// passes none.
	PassLocal map[*types.Func]bool
	// LockHelpers holds the lock helpers of the package (LockHelpers,
	// computed over all the package's files), whose lock operation is
	// recorded at the site of each call: each takes the site as its
	// first parameter, precog_site. Nil has none.
	LockHelpers map[*types.Func]*LockHelper
}

// A Guard is a read that guards an access (Options.Guards): the access
// runs only on the edge that a branch on the read's value last took.
// Switches says that the branch's condition is the value itself, its
// negation or its comparison with nil, so that a value the trace records
// otherwise takes the other edge.
type Guard struct {
	Pos      token.Pos
	Switches bool
}

// Import paths and names of what rewritten files call.
const (
	shimPath = "github.com/precog-dev/precog/shim"
	rtPath   = "github.com/precog-dev/precog/shim/rt"
	shimName = "precog_shim"
	rtName   = "precog_rt"
	// rthttp: the client side of the HTTP/1 response edge, a package of
	// its own so that only files that make HTTP requests or import
	// net/http import net/http through it.
	rthttpPath = "github.com/precog-dev/precog/shim/rthttp"
	rthttpName = "precog_rthttp"
	// rtnet: the order of a TCP connection's two ends, a package of its
	// own so that only files that read or write a connection import net
	// through it.
	rtnetPath = "github.com/precog-dev/precog/shim/rtnet"
	rtnetName = "precog_rtnet"
	// rtpipe: the order of an io.Pipe's two halves, a package apart from
	// rtnet so that files that use a pipe and no connection do not
	// import net.
	rtpipePath = "github.com/precog-dev/precog/shim/rtpipe"
	rtpipeName = "precog_rtpipe"
)

// The largest select and multiple assignment that rt's helpers take
// (rt.MaxCases, rt.MaxWrites; TestRTLimits checks that they agree). They
// are copied rather than imported: rt imports the shim, whose init starts
// recording, and the driver must not link it.
const (
	maxCases  = 16
	maxWrites = 8
)

// File returns the instrumented text of one file of pkg (src is its
// original bytes) and the sites it used, numbered from opts.FirstSite
// (and its func sites from opts.FirstFuncSite, if set)
// upwards with no gaps. changed is false when the file has nothing to
// instrument (then out is nil and no overlay entry is needed).
//
// The rewrite keeps every original token on its line (see edit.go), so
// stack traces and positions stay true. Operations are found through
// info (Selections, Uses, Types), never by name alone:
//
//	go f(a, b)            go func() func() { precog_f, precog_a0, precog_a1 := f, a, b; precog_id := precog_shim.Go(S); return func() { precog_shim.Begin(precog_id); defer precog_shim.End(); precog_f(precog_a0, precog_a1) } }()()
//	go func() {...}()     { precog_id := precog_shim.Go(S); go func() { precog_shim.Begin(precog_id); defer precog_shim.End(); ... }() }
//	go func(x T) {...}(a) go func(x T, precog_id uint64) { precog_shim.Begin(precog_id); defer precog_shim.End(); ... }(a, precog_shim.Go(S))
//	mu.Lock()             precog_shim.LockL(&precog_g, S, &mu)   (also promoted, pointer, deferred; RWMutex; Locker, WaitGroup, Once, Cond without L: Lock(S, &mu))
//	f := mu.Lock          f := precog_shim.LockFunc(S, &mu)
//	s.lock()              s.lock(S)   (a lock helper, Options.LockHelpers: func (s *T) lock(precog_site uint32) records its Lock at precog_site)
//	g.Go(f); g.Wait()     g.Go(precog_shim.TaskErr(S, ptr, f)); precog_shim.WaitedErr(S, ptr, g.Wait())   (errgroup, conc)
//	make(chan T, n)       precog_shim.MakeChan(S, make(chan T, n))
//	make(map[K]V), M{...} precog_shim.MakeMap(S, make(map[K]V)), precog_shim.MakeMap(S, M{...})
//	&T{...}; new(T)       precog_shim.New(S, &T{...}); precog_shim.New(S, new(T))   (T a struct of the package, of an instrumented one, a WaitGroup, Once or atomic: newRecorded)
//	ch <- v; <-ch; close  precog_shim.Send(S, ch, v); precog_shim.Recv(S, ch) (Recv2 for comma-ok); precog_shim.Close(S, ch)
//	for v := range ch     for precog_r, v := precog_rt.RangeOf(S, ch); precog_r.Next(&v); {
//	select {...}          { precog_s := precog_rt.Plan(S); if precog_s.Forcing() { precog_rt.TryRecv(...); ... }; select { case v, precog_ok := <-precog_rt.Recv(&precog_s, 0, ch): precog_s.Received(0, precog_ok); ... } }
//	x.f (read)            (*precog_shim.RL(&precog_g, S, &x.f))
//	x.f = v               precog_shim.WL(&precog_g, S, &x.f, v)       (precog_rt.At(S, &x.f).Set(v) if v's type is only assignable)
//	x.f += v; x.f++       precog_shim.WL(&precog_g, S, &x.f, (*precog_shim.RL(&precog_g, S', &x.f)) + (v))
//	a.f, b.g = ...        a.f, b.g = ...; precog_rt.Wrote(S, &a.f); precog_rt.Wrote(S', &b.g)
//	m[k]; m[k] = v        precog_shim.MRL(&precog_g, S, m)[k]; precog_shim.MWL(&precog_g, S, m)[k] = v   (delete, clear, len, range: MWL, MWL, MRL, MIL)
//	atomic.AddInt64(p, d) precog_shim.AtomicAddInt64(S, p, d)   (methods of atomic types: precog_rt.Int64Add(&precog_g, S, &v, d) etc.)
//	m.Load(k)             precog_rt.SyncMapLoad(S, &m, k)   (sync.Map's methods but Clear: atomic loads and stores of a location per key)
//	cmd.Start(); cmd.Wait() precog_rt.CmdStart(S, S', cmd); precog_rt.CmdWait(S, cmd)   (os/exec's copying goroutines as tasks; Run, Output)
//	buf.String()          precog_rt.Reading(S, &buf).String()   (bytes.Buffer, strings.Builder handed to os/exec; Writing for writes)
//
// where precog_g is the function body's shim.Local, declared at its top
// (var precog_g precog_shim.Local), which finds the goroutine's state at
// the body's first recorded access only; a function of opts.PassLocal
// takes its caller's instead, as its first parameter (precog_g
// *precog_shim.Local, see LocalCallees), and its calls pass it
// (f(&precog_g, a)); outside function bodies and in
// the bodies of ranges over functions (which the iterator may run on
// another goroutine) reads and writes are R(S, &x.f) and W(S, &x.f, v), map
// accesses MR, MW and MI, locks Lock(S, &mu) and calls of PassLocal
// functions pass new(precog_shim.Local),
// plus Enter/Exit at the top of function bodies (opts.Funcs) and
// TestStart(t) at the top of TestXxx functions and t.Run literals in
// _test.go files. Whatever the rewriter cannot instrument without risking
// the build or the program's meaning (an operand it would have to
// evaluate twice that has side effects, a receiver path through another
// package's unexported field, an expression of type parameter type whose
// core type it would need) it leaves as it is. Files that import "C" are
// not rewritten (cgo would see the rewritten text), nor are the packages
// the shim is built on (sync, sync/atomic, runtime), nor functions marked
// //go:norace, //go:nosplit and the like.
func File(fset *token.FileSet, file *ast.File, src []byte, pkg *types.Package,
	info *types.Info, opts Options) (out []byte, sites []trace.Site, changed bool, err error) {
	r, out, err := rewriteFile(fset, file, src, pkg, info, opts)
	if r == nil || err != nil {
		return nil, nil, false, err
	}
	return out, r.sites, true, nil
}

// rewriteFile is File; it returns the rewriter, nil if the file is
// unchanged, for tests to look at what it skipped.
func rewriteFile(fset *token.FileSet, file *ast.File, src []byte, pkg *types.Package,
	info *types.Info, opts Options) (*rewriter, []byte, error) {
	for _, im := range file.Imports {
		if p, _ := strconv.Unquote(im.Path.Value); p == "C" {
			return nil, nil, nil
		}
	}
	switch pkg.Path() {
	case "sync", "sync/atomic", "runtime", "unsafe":
		return nil, nil, nil // the shim's own foundations
	}
	if opts.Instrumented == nil {
		opts.Instrumented = func(string) bool { return false }
	}
	tf := fset.File(file.Pos())
	if tf == nil || tf.Size() != len(src) {
		return nil, nil, fmt.Errorf("rewriting %s: source does not match the parsed file", file.Name.Name)
	}
	name := tf.Name()
	if abs, err := filepath.Abs(name); err == nil {
		name = abs
	}
	r := &rewriter{
		fset:       fset,
		tf:         tf,
		file:       file,
		filename:   name,
		pkg:        pkg,
		info:       info,
		opts:       opts,
		ed:         editor{src: src},
		escaped:    map[*types.Var]bool{},
		sharedVars: map[*types.Var]map[string]bool{},
		dropped:    map[types.Object]int{},
		member:     map[types.Object]string{},
		isTest:     strings.HasSuffix(name, "_test.go"),
	}
	v := info.FileVersions[file]
	if v == "" {
		v = pkg.GoVersion()
	}
	r.before120 = v != "" && version.Compare(v, "go1.20") < 0
	r.before122 = v != "" && version.Compare(v, "go1.22") < 0
	// An unknown version (a dependency's copy may not say) may be below
	// go1.23, where a range over a function does not compile.
	r.before123 = v == "" || version.Compare(v, "go1.23") < 0
	r.findEscaped()
	r.localArgs()
	r.fileDecls()
	r.recordDefs()
	// Import what the rendered text uses: a planned call may have been
	// dropped with the operation it belonged to.
	body := r.ed.render()
	uses := func(name string) bool {
		return bytes.Count(body, []byte(name+".")) > bytes.Count(src, []byte(name+"."))
	}
	r.usedShim, r.usedRT, r.usedUnsafe = uses(shimName), uses(rtName), uses("precog_unsafe")
	r.usedRTHTTP, r.usedRTNet, r.usedRTPipe = uses(rthttpName), uses(rtnetName), uses(rtpipeName)
	if !r.usedShim && !r.usedRT && !r.usedRTHTTP && !r.usedRTNet && !r.usedRTPipe && !r.passed {
		return nil, nil, nil
	}
	r.addImports()
	r.keepImports()
	out := r.ed.render()
	if _, perr := parser.ParseFile(token.NewFileSet(), name, out, parser.SkipObjectResolution); perr != nil {
		return nil, nil, fmt.Errorf("rewriting %s produced invalid Go (an instrumenter bug): %w", name, perr)
	}
	return r, out, nil
}

// A rewriter plans the edits of one file.
type rewriter struct {
	fset     *token.FileSet
	tf       *token.File
	file     *ast.File
	filename string
	pkg      *types.Package
	info     *types.Info
	opts     Options
	ed       editor
	sites    []trace.Site
	isTest   bool
	// readAt holds the read sites made so far, by position, for
	// Options.Guards; nil until the first one.
	readAt map[token.Pos]uint32
	// funcSites counts the sites numbered from Options.FirstFuncSite.
	funcSites int
	// callLines holds, per line, the calls of the file and the range
	// statements over functions whose spans cover it (markAlone); nil
	// until a call is marked.
	callLines map[int][]ast.Node
	// callFunc holds the innermost function (declaration or literal)
	// of each node of callLines.
	callFunc map[ast.Node]ast.Node

	// escaped holds the local variables that a closure captures or whose
	// address is taken: accesses to them are instrumented like accesses to
	// heap locations.
	escaped map[*types.Var]bool
	// sharedVars holds the escaped local variables that a recorded
	// access reaches (shared), each with the field paths it reaches them
	// by (".a.b" for s.a.b; none through an index), and defs the
	// declarations of escaped variables, which recordDefs completes once
	// the file's accesses are known.
	sharedVars map[*types.Var]map[string]bool
	// assigned holds the variables of the file that an assignment, an
	// increment or a range statement stores (deferParams), once needed.
	assigned map[types.Object]bool
	defs     []pendingDef

	// before120 is set when the file's language version is below go1.20,
	// where an interface-keyed map type does not satisfy comparable (the
	// constraint of shim.MR and friends).
	before120 bool
	// perLoop holds the variables of range loops below go1.22 that a
	// closure captures (loopVarWrites): all their accesses are recorded.
	perLoop map[types.Object]bool

	// before122 is set below go1.22, where a loop has one variable for
	// all its iterations; before123 below go1.23, which has no range over
	// functions.
	before122, before123 bool

	usedShim, usedRT, usedUnsafe      bool // set from the rendered text
	usedRTHTTP, usedRTNet, usedRTPipe bool //

	// execOut holds what the file hands os/exec as a command's output
	// writer (execOutputs), nil until asked.
	execOut map[types.Object]bool

	// dropped counts the references to imported packages that the
	// rewrite removed (atomic.AddInt64 becomes a shim call), and names
	// one member of each that a removed reference selected (keepImports
	// refers to it).
	dropped map[types.Object]int
	member  map[types.Object]string

	fn   *funcCtx      // the enclosing function
	decl *ast.FuncDecl // the enclosing top-level function declaration

	// exits holds, for a call that is a statement of its own, the end of
	// the return its list reaches after it with no jump between
	// (exitAfter): an Unlock's site records it (trace.Site.ExitLine).
	exits map[*ast.CallExpr]token.Pos

	// skipped counts, by reason, the operations left uninstrumented.
	skipped map[string]int

	// Options.PassLocal (localArgs): passed is set when the file passes
	// a Local or declares a function taking one; takesLocal holds the
	// bodies of the functions that take one, ownsLocal those of the
	// functions that pass their own.
	passed                bool
	takesLocal, ownsLocal map[*ast.BlockStmt]bool
}

// funcCtx is a function being rewritten, for site names.
type funcCtx struct {
	name  string
	lits  int // function literals seen directly inside
	outer *funcCtx
	// results are the named results that a bare return reads, when the
	// function defers nothing (see bareReturn).
	results []*ast.Ident
	// body is set while the function's body is rewritten: its reads and
	// writes go through its precog_g (see accessCall); local is set once
	// one does, and the body then declares it. inRangeFunc counts the
	// bodies of range-over-function loops being rewritten, which the
	// iterator may run on another goroutine: accesses there look their
	// goroutine up themselves.
	body, local bool
	inRangeFunc int
	// loops counts the for and range statements of the function being
	// rewritten around the current node (not those of an enclosing
	// function): a read at an index site inside one is RI (see read).
	loops int
	// takes is set for a function that takes its caller's Local as its
	// parameter precog_g (Options.PassLocal): it declares none.
	takes bool
	// siteOp is the lock operation of a lock helper (Options.LockHelpers),
	// recorded at the site its parameter precog_site names.
	siteOp *ast.CallExpr
	// lo and hi are the offsets of the body's braces, where handLits
	// declares its handles.
	lo, hi int
}

func (r *rewriter) off(p token.Pos) int { return r.tf.Offset(p) }

// span returns the offsets of n.
func (r *rewriter) span(n ast.Node) (int, int) { return r.off(n.Pos()), r.off(n.End()) }

// text returns n's source text.
func (r *rewriter) text(n ast.Node) string {
	lo, hi := r.span(n)
	return string(r.ed.src[lo:hi])
}

func (r *rewriter) skip(reason string) {
	if r.skipped == nil {
		r.skipped = map[string]int{}
	}
	r.skipped[reason]++
}

// site allocates the next site id for an operation at pos. The kinds are
// go (go statements, WaitGroup.Go and the Go of errgroup and conc groups),
// lock, unlock, trylock, rlock, runlock, tryrlock, wg-add, wg-done,
// wg-wait, once, cond-wait, cond-signal, cond-broadcast, pool-put,
// pool-get, wait (a group's Wait), make-chan, send, recv (also a range over a channel), close,
// select, read, write, map-read (also len), map-write (also delete and
// clear), map-range, atomic-load, atomic-store and func (Enter/Exit).
func (r *rewriter) site(pos token.Pos, kind string, expr ast.Node) string {
	p := r.fset.PositionFor(pos, false) // the original file, not //line names
	id := r.opts.FirstSite + uint32(len(r.sites)-r.funcSites)
	if kind == "func" && r.opts.FirstFuncSite != 0 {
		id = r.opts.FirstFuncSite + uint32(r.funcSites)
		r.funcSites++
	}
	s := trace.Site{
		ID:   id,
		File: r.filename,
		Line: p.Line,
		Col:  p.Column,
		Kind: kind,
	}
	if r.fn != nil {
		s.Function = r.fn.name
	}
	if r.decl != nil {
		s.Decl, s.DeclLine = finding.DeclName(r.decl), r.fset.PositionFor(r.decl.Pos(), false).Line
	}
	if expr != nil {
		s.Expr = exprText(r.text(expr))
	}
	if kind == "write" && r.opts.WriteUses != nil {
		s.Uses = r.opts.WriteUses(pos)
	}
	if (kind == "write" || kind == "read") && r.opts.Guards != nil {
		s.Guards, s.Switches = r.guards(pos)
	}
	if kind == "read" && r.opts.Guards != nil {
		if r.readAt == nil {
			r.readAt = make(map[token.Pos]uint32)
		}
		r.readAt[pos] = id
	}
	r.sites = append(r.sites, s)
	return strconv.FormatUint(uint64(s.ID), 10)
}

// guards returns trace.Site.Guards and Switches for the access at pos:
// the ids of the read sites made at the positions Options.Guards gives.
func (r *rewriter) guards(pos token.Pos) (guards, switches string) {
	var all, sw []uint32
	for _, g := range r.opts.Guards(pos) {
		if id, ok := r.readAt[g.Pos]; ok {
			all = append(all, id)
			if g.Switches {
				sw = append(sw, id)
			}
		}
	}
	return idList(all), idList(sw)
}

// idList returns ids sorted, without repeats, separated by spaces.
func idList(ids []uint32) string {
	slices.Sort(ids)
	ids = slices.Compact(ids)
	b := make([]byte, 0, 8*len(ids))
	for i, id := range ids {
		if i > 0 {
			b = append(b, ' ')
		}
		b = strconv.AppendUint(b, uint64(id), 10)
	}
	return string(b)
}

// exprText shortens source text for the site table: one line, at most 80
// bytes.
func exprText(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}

func (r *rewriter) shim(name string) string { return shimName + "." + name }
func (r *rewriter) rt(name string) string   { return rtName + "." + name }

// addImports adds the imports of the shim (and rt, unsafe) to the first
// import declaration, on its line, or after the package clause.
func (r *rewriter) addImports() {
	var specs []string
	if r.usedShim {
		specs = append(specs, shimName+` "`+shimPath+`"`)
	}
	if r.usedRT {
		specs = append(specs, rtName+` "`+rtPath+`"`)
	}
	if r.usedRTHTTP {
		specs = append(specs, rthttpName+` "`+rthttpPath+`"`)
	} else if importsPath(r.file, "net/http") {
		// rthttp's init hooks the requests that code precog did not
		// rewrite sends through http.DefaultTransport (see package
		// rthttp): a test binary that links net/http links it too, by
		// any rewritten file that imports net/http.
		specs = append(specs, `_ "`+rthttpPath+`"`)
	}
	if r.usedRTNet {
		specs = append(specs, rtnetName+` "`+rtnetPath+`"`)
	}
	if r.usedRTPipe {
		specs = append(specs, rtpipeName+` "`+rtpipePath+`"`)
	}
	if r.usedUnsafe {
		specs = append(specs, `precog_unsafe "unsafe"`)
	}
	if len(specs) == 0 {
		return
	}
	for _, d := range r.file.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.IMPORT {
			continue
		}
		if gd.Lparen.IsValid() {
			r.ed.insert(r.off(gd.Lparen)+1, 0, len(r.ed.src), lit(" "+strings.Join(specs, "; ")+";"))
		} else {
			r.ed.insert(r.off(gd.Pos()), 0, len(r.ed.src), lit("import ("+strings.Join(specs, "; ")+"); "))
		}
		return
	}
	r.ed.insert(r.off(r.file.Name.End()), 0, len(r.ed.src), lit("; import ("+strings.Join(specs, "; ")+")"))
}

// importsPath reports whether f imports path.
func importsPath(f *ast.File, path string) bool {
	for _, im := range f.Imports {
		if p, err := strconv.Unquote(im.Path.Value); err == nil && p == path {
			return true
		}
	}
	return false
}

// drop counts the package name of sel, a reference the rewrite removes.
func (r *rewriter) drop(sel *ast.SelectorExpr) {
	obj := r.info.Uses[sel.X.(*ast.Ident)]
	r.dropped[obj]++
	r.member[obj] = sel.Sel.Name
}

// keepImports keeps the imports whose every reference the rewrite
// removed in use, with a blank variable at the end of the file that
// refers to a member one of them selected (time.Sleep, atomic.AddInt64).
func (r *rewriter) keepImports() {
	if len(r.dropped) == 0 {
		return
	}
	uses := map[types.Object]int{}
	for id, obj := range r.info.Uses {
		if _, ok := obj.(*types.PkgName); ok && id.Pos() >= r.file.Pos() && id.Pos() < r.file.End() {
			uses[obj]++
		}
	}
	objs := slices.SortedFunc(maps.Keys(r.dropped), func(a, b types.Object) int { return strings.Compare(a.Name(), b.Name()) })
	var keep []string
	for _, obj := range objs {
		if uses[obj] == r.dropped[obj] {
			keep = append(keep, "var _ = "+obj.Name()+"."+r.member[obj])
		}
	}
	if len(keep) == 0 {
		return
	}
	// A last line without a newline: no other line moves.
	text := strings.Join(keep, "; ")
	if !bytes.HasSuffix(r.ed.src, []byte("\n")) {
		text = "\n" + text
	}
	r.ed.insert(len(r.ed.src), 0, len(r.ed.src), lit(text))
}

// fileDecls rewrites every declaration of the file.
func (r *rewriter) fileDecls() {
	for _, d := range r.file.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			r.fn, r.decl = &funcCtx{name: finding.DeclName(d)}, d
			if d.Body != nil {
				r.fn.results = namedResults(d.Type, d.Body)
				r.fn.takes = r.takesLocal[d.Body]
			}
			if d.Body != nil && !noInstrument(d) {
				r.helperDecl(d)
				r.deferParams(d.Body, d.Recv, d.Type.Params)
				r.funcBody(d.Body, r.served(d.Type), r.testParam(d))
			}
			r.fn, r.decl = nil, nil
		case *ast.GenDecl:
			if d.Tok != token.VAR {
				continue
			}
			r.fn = &funcCtx{name: "init"} // the compiler names closures here init.func1, ...
			for _, s := range d.Specs {
				for _, v := range s.(*ast.ValueSpec).Values {
					r.expr(v)
				}
			}
			r.fn = nil
		}
	}
}

// noInstrument reports whether d has a directive that forbids or
// precludes calls the rewrite would add: //go:norace says "do not
// instrument", //go:nosplit and friends leave no stack for them.
func noInstrument(d *ast.FuncDecl) bool {
	if d.Doc == nil {
		return false
	}
	for _, c := range d.Doc.List {
		switch strings.TrimSpace(c.Text) {
		case "//go:norace", "//go:nosplit", "//go:systemstack", "//go:nowritebarrier",
			"//go:nowritebarrierrec", "//go:yeswritebarrierrec", "//go:uintptrkeepalive", "//go:uintptrescapes":
			return true
		}
	}
	return false
}

// testParam returns the name of t in func TestXxx(t *testing.T) (or b in
// func BenchmarkXxx(b *testing.B), f in func FuzzXxx(f *testing.F)) of a
// _test.go file, or "".
func (r *rewriter) testParam(d *ast.FuncDecl) string {
	if !r.isTest || d.Recv != nil {
		return ""
	}
	switch {
	case isTestName(d.Name.Name, "Test"):
		return r.tbParam(d.Type, "T")
	case isTestName(d.Name.Name, "Benchmark"):
		return r.tbParam(d.Type, "B")
	case isTestName(d.Name.Name, "Fuzz"):
		// A fuzz target is a top-level test: its seed inputs run as
		// its subtests (see fuzzT).
		return r.tbParam(d.Type, "F")
	}
	return ""
}

// isTestName reports whether n is prefix followed by nothing or by a
// character that is not a lower-case letter, as go test requires.
func isTestName(n, prefix string) bool {
	if !strings.HasPrefix(n, prefix) {
		return false
	}
	if len(n) == len(prefix) {
		return true
	}
	c := n[len(prefix)]
	return !('a' <= c && c <= 'z')
}

// tbParam returns the name of the only parameter of ft if it is a
// *testing.<typ>, or "".
func (r *rewriter) tbParam(ft *ast.FuncType, typ string) string {
	if ft.Params == nil || len(ft.Params.List) != 1 || len(ft.Params.List[0].Names) != 1 {
		return ""
	}
	id := ft.Params.List[0].Names[0]
	v, ok := r.info.Defs[id].(*types.Var)
	if !ok || id.Name == "_" || !isNamed(v.Type(), "testing", typ, true) {
		return ""
	}
	return id.Name
}

// litTestParam returns, in a test file, the name of a function literal's
// *testing.T or *testing.B parameter, if it has one, so that the literal
// starts with TestStart: a test helper that runs subtests (such as
// datadriven.Walk) calls it through t.Run on the subtest's goroutine, which
// nothing else would name. Called directly on the test's goroutine, the
// TestStart does nothing.
func (r *rewriter) litTestParam(ft *ast.FuncType) string {
	if !r.isTest || ft.Params == nil {
		return ""
	}
	for _, f := range ft.Params.List {
		for _, id := range f.Names {
			v, ok := r.info.Defs[id].(*types.Var)
			if ok && id.Name != "_" && (isNamed(v.Type(), "testing", "T", true) || isNamed(v.Type(), "testing", "B", true)) {
				return id.Name
			}
		}
	}
	return ""
}

// isNamed reports whether t is (a pointer to, if ptr) the named type
// pkgPath.name.
func isNamed(t types.Type, pkgPath, name string, ptr bool) bool {
	if ptr {
		p, ok := t.(*types.Pointer)
		if !ok {
			return false
		}
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	if !ok {
		return false
	}
	o := n.Obj()
	return o.Pkg() != nil && o.Pkg().Path() == pkgPath && o.Name() == name
}

// funcBody rewrites a function body; prefix (statements ending in ";")
// goes first, then TestStart(tparam) if tparam is set, then Enter/Exit.
func (r *rewriter) funcBody(body *ast.BlockStmt, prefix, tparam string) {
	text := prefix
	if tparam != "" {
		text += " " + r.shim("TestStart") + "(" + tparam + ");"
	}
	if r.opts.Funcs {
		s := r.site(body.Lbrace, "func", nil)
		r.sites[len(r.sites)-1].Expr = r.fn.name
		if r.opts.SkipFunc == nil || !r.opts.SkipFunc(body.Lbrace) {
			text += " " + r.shim("Enter") + "(" + s + "); defer " + r.shim("Exit") + "(" + s + ");"
		}
	}
	lo, hi := r.span(body)
	if text != "" {
		r.ed.insert(lo+1, lo, hi, lit(text))
	}
	r.fn.body = true
	r.fn.lo, r.fn.hi = lo, hi
	r.stmts(body.List)
	if (r.fn.local || r.ownsLocal[body]) && !r.fn.takes {
		r.ed.insert(lo+1, lo, hi, lit(" var precog_g "+r.shim("Local")+"; _ = &precog_g;"))
	}
}

// accessCall returns the text that opens a recorded read (fn "R") or
// write ("W") at site, up to its pointer argument: in a function body,
// precog_shim.RL(&precog_g, SITE, or WL, which look the goroutine's state
// up once per call (shim.Local); elsewhere (package-level initializers, the
// body of a range over a function) precog_shim.R(SITE, or W.
func (r *rewriter) accessCall(fn, site string) string {
	l, ok := r.localRef()
	if !ok {
		return r.shim(fn) + "(" + site + ", "
	}
	return r.shim(fn+"L") + "(" + l + ", " + site + ", "
}

// writeCall is accessCall("W", site) for a location of type t: in a
// function body, a boolean or a number of at most 8 bytes is written with
// WN, which records the value's bits, and a pointer, map, channel,
// function or unsafe.Pointer with WP, which records whether it is nil:
// the value words WL would find through t's class, without the lookup.
func (r *rewriter) writeCall(site string, t types.Type) string {
	call := r.accessCall("W", site)
	if !strings.HasPrefix(call, r.shim("WL")+"(") {
		return call
	}
	fn := ""
	switch u := t.Underlying().(type) {
	case *types.Basic:
		switch {
		case u.Kind() == types.UnsafePointer:
			fn = "WP"
		case u.Info()&(types.IsBoolean|types.IsInteger|types.IsFloat) != 0 && u.Info()&types.IsUntyped == 0:
			fn = "WN"
		}
	case *types.Pointer, *types.Map, *types.Chan, *types.Signature:
		fn = "WP"
	}
	if fn == "" {
		return call
	}
	return r.shim(fn) + strings.TrimPrefix(call, r.shim("WL"))
}

// served returns the text that a function of type ft defers first when
// it is an HTTP handler, its parameters (w http.ResponseWriter, r
// *http.Request) with w named: precog_shim.Served(S, w), whose return on
// an HTTP/1 connection's goroutine httptest.Server.Close joins (see
// "Served handlers" in the shim); "" otherwise. r.fn is the function's.
func (r *rewriter) served(ft *ast.FuncType) string {
	if ft.Params == nil || len(ft.Params.List) == 0 {
		return ""
	}
	var names []*ast.Ident
	var types_ []types.Type
	for _, f := range ft.Params.List {
		t := r.typeOf(f.Type)
		if len(f.Names) == 0 {
			names, types_ = append(names, nil), append(types_, t)
		}
		for _, n := range f.Names {
			names, types_ = append(names, n), append(types_, t)
		}
	}
	if len(names) != 2 || names[0] == nil || names[0].Name == "_" ||
		!isNamed(types_[0], "net/http", "ResponseWriter", false) || !isNamed(types_[1], "net/http", "Request", true) {
		return ""
	}
	s := r.site(ft.Pos(), "served", names[0])
	// Serving, evaluated with the defer statement, runs at the entry.
	return " defer " + r.shim("Served") + "(" + s + ", " + r.shim("Serving") + "(" + s + ", " + names[0].Name + "));"
}

// funcLit rewrites a function literal in a new function context, named
// as the compiler names closures (F.func1, F.func1.1, init.func1).
func (r *rewriter) funcLit(f *ast.FuncLit, prefix, tparam string) {
	outer := r.fn
	outer.lits++
	base := outer.name
	name := base + "." + strconv.Itoa(outer.lits)
	if outer.outer == nil {
		name = base + ".func" + strconv.Itoa(outer.lits)
	}
	r.fn = &funcCtx{name: name, outer: outer, results: namedResults(f.Type, f.Body)}
	r.deferParams(f.Body, f.Type.Params)
	r.funcBody(f.Body, prefix+r.served(f.Type), tparam)
	r.fn = outer
}

// findEscaped fills r.escaped: local variables used inside a function
// literal that does not declare them, and local variables whose address
// is taken (&x, &x.f, x[:] of an array, pointer-method calls on x).
func (r *rewriter) findEscaped() {
	var lits []*ast.FuncLit
	local := func(id *ast.Ident) *types.Var {
		v, ok := r.info.Uses[id].(*types.Var)
		if !ok || v.IsField() || v.Pkg() == nil || v.Parent() == nil || v.Parent() == v.Pkg().Scope() {
			return nil
		}
		return v
	}
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			lits = append(lits, n)
			ast.Inspect(n.Body, visit)
			lits = lits[:len(lits)-1]
			return false
		case *ast.Ident:
			if v := local(n); v != nil && len(lits) > 0 {
				l := lits[len(lits)-1]
				if v.Pos() < l.Pos() || v.Pos() >= l.End() {
					r.escaped[v] = true
				}
			}
		case *ast.UnaryExpr:
			if n.Op == token.AND {
				if id := r.rootVar(n.X); id != nil {
					if v := local(id); v != nil {
						r.escaped[v] = true
					}
				}
			}
		case *ast.SliceExpr:
			if _, ok := r.typeOf(n.X).Underlying().(*types.Array); ok {
				if id := r.rootVar(n.X); id != nil {
					if v := local(id); v != nil {
						r.escaped[v] = true
					}
				}
			}
		case *ast.SelectorExpr:
			if sel := r.info.Selections[n]; sel != nil && sel.Kind() == types.MethodVal {
				if sig, ok := sel.Obj().Type().(*types.Signature); ok && sig.Recv() != nil {
					if _, isPtr := sig.Recv().Type().(*types.Pointer); isPtr {
						if _, xPtr := r.typeOf(n.X).Underlying().(*types.Pointer); !xPtr {
							if id := r.rootVar(n.X); id != nil {
								if v := local(id); v != nil {
									r.escaped[v] = true
								}
							}
						}
					}
				}
			}
		}
		return true
	}
	ast.Inspect(r.file, visit)
}

// A pendingDef is a declaration statement of escaped local variables,
// with their identifiers and the functions it is in, for its sites. The
// stores are recorded after s, in a statement list, or, when into is
// set, at the start of each of into's blocks and case clauses: those
// of an if or switch statement whose init declares the variables, or a
// function's body, whose call stored its parameters (s the body).
type pendingDef struct {
	s    ast.Stmt
	ids  []*ast.Ident
	into []ast.Node
	fn   *funcCtx
	decl *ast.FuncDecl
}

// deferDef notes the escaped variables among ids, declared with a value
// by statement s, for recordDefs, recorded at the start of into's nodes
// if any.
func (r *rewriter) deferDef(s ast.Stmt, ids []*ast.Ident, into ...ast.Node) {
	var esc []*ast.Ident
	for _, id := range ids {
		if v, ok := r.info.Defs[id].(*types.Var); ok && id.Name != "_" && r.escaped[v] {
			esc = append(esc, id)
		}
	}
	if len(esc) > 0 {
		r.defs = append(r.defs, pendingDef{s, esc, into, r.fn, r.decl})
	}
}

// deferParams notes the escaped parameters (and receiver) in lists of
// the function whose body is body that the function assigns: the call
// stored them, before any go statement of the body, and only a later
// store can be taken for their initialization (a parameter only read is
// not recorded: a method's receiver captured by a deferred closure would
// cost an event per call).
func (r *rewriter) deferParams(body *ast.BlockStmt, lists ...*ast.FieldList) {
	if r.opts.Locals {
		return
	}
	if r.assigned == nil {
		r.assigned = make(map[types.Object]bool)
		note := func(e ast.Expr) {
			if id := r.rootVar(e); id != nil {
				r.assigned[r.info.ObjectOf(id)] = true
			}
		}
		ast.Inspect(r.file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				for _, l := range n.Lhs {
					note(l)
				}
			case *ast.IncDecStmt:
				note(n.X)
			case *ast.RangeStmt:
				if n.Tok == token.ASSIGN {
					note(n.Key)
					if n.Value != nil {
						note(n.Value)
					}
				}
			}
			return true
		})
	}
	var ids []*ast.Ident
	for _, l := range lists {
		if l != nil {
			for _, f := range l.List {
				for _, id := range f.Names {
					if r.assigned[r.info.Defs[id]] {
						ids = append(ids, id)
					}
				}
			}
		}
	}
	r.deferDef(body, ids, body)
}

// deferInit notes the escaped variables that init, an if or switch
// statement's init statement, declares (:=), recorded at the
// start of each of into's blocks and case clauses.
func (r *rewriter) deferInit(init ast.Stmt, into []ast.Node) {
	s, ok := init.(*ast.AssignStmt)
	if !ok || s.Tok != token.DEFINE || r.opts.Locals {
		return
	}
	var ids []*ast.Ident
	for _, l := range s.Lhs {
		if id, ok := l.(*ast.Ident); ok {
			ids = append(ids, id)
		}
	}
	r.deferDef(init, ids, into...)
}

// ifBlocks returns the blocks of s and of its else-if chain where the
// names s's init declares are still s's: the chain stops at an else-if
// whose own init declares one of them again (`if s := x; c {} else if s
// := "y"; d {}`), where a record of s would name the new variable, of
// another type or none of the recorded field paths.
func ifBlocks(s *ast.IfStmt) []ast.Node {
	return ifChain(s, declared(s.Init))
}

func ifChain(s *ast.IfStmt, names map[string]bool) []ast.Node {
	ns := []ast.Node{s.Body}
	switch e := s.Else.(type) {
	case *ast.BlockStmt:
		ns = append(ns, e)
	case *ast.IfStmt:
		for name := range declared(e.Init) {
			if names[name] {
				return ns
			}
		}
		ns = append(ns, ifChain(e, names)...)
	}
	return ns
}

// declared returns the names that init, an if or switch statement's init
// statement, declares.
func declared(init ast.Stmt) map[string]bool {
	names := make(map[string]bool)
	if s, ok := init.(*ast.AssignStmt); ok && s.Tok == token.DEFINE {
		for _, l := range s.Lhs {
			if id, ok := l.(*ast.Ident); ok && id.Name != "_" {
				names[id.Name] = true
			}
		}
	}
	return names
}

// recordDefs records each noted declaration's store of each variable
// that a recorded access of the file reaches (sharedVars), with
// precog_shim.Decl: the variable's, and that of each field path by which
// an access reaches it (s := pair{a: 5} read as s.a: hb names a field's
// location by the field). A store before the go statement that starts a
// goroutine reading the variable is that reader's initialization, which
// con-uninit must see: without it, a later store looked like the first
// (neo4j's tests: `bookmark := "x"` read by a fake server's goroutine,
// `bookmark = bolt.Bookmark()` after the round trip). A variable's
// accesses can come after its declaration in the file, hence the wait.
// Under Options.Locals the declarations in statement lists are recorded
// as they come (Def).
func (r *rewriter) recordDefs() {
	fn, decl := r.fn, r.decl
	defer func() { r.fn, r.decl = fn, decl }()
	for _, d := range r.defs {
		r.fn, r.decl = d.fn, d.decl
		var calls [][]piece
		for _, id := range d.ids {
			paths, ok := r.sharedVars[r.info.Defs[id].(*types.Var)]
			if !ok {
				continue
			}
			ilo, ihi := r.span(id)
			for _, p := range append([]string{""}, slices.Sorted(maps.Keys(paths))...) {
				site := r.site(id.Pos(), "write", id)
				r.sites[len(r.sites)-1].Expr += p
				calls = append(calls, []piece{lit(r.shim("Decl") + "(" + site + ", &"), copyOf(ilo, ihi), lit(p + ")")})
			}
		}
		if len(calls) == 0 {
			continue
		}
		if len(d.into) == 0 {
			var text []piece
			for _, c := range calls {
				text = append(append(text, lit("; ")), c...)
			}
			lo, hi := r.span(d.s)
			r.ed.close(lo, hi, text...)
			continue
		}
		var text []piece
		for _, c := range calls {
			text = append(append(append(text, lit(" ")), c...), lit(";"))
		}
		for _, n := range d.into {
			lo, hi := r.span(n)
			var at int
			switch n := n.(type) {
			case *ast.BlockStmt:
				at = r.off(n.Lbrace) + 1
			case *ast.CaseClause:
				at = r.off(n.Colon) + 1
			}
			r.ed.insert(at, lo, hi, text...)
		}
	}
}

// rootVar returns the variable whose storage e denotes a part of (x in
// x, x.f, x[i] of an array, (x)), or nil.
func (r *rewriter) rootVar(e ast.Expr) *ast.Ident {
	for {
		switch x := e.(type) {
		case *ast.Ident:
			return x
		case *ast.ParenExpr:
			e = x.X
		case *ast.SelectorExpr:
			sel := r.info.Selections[x]
			if sel == nil || sel.Kind() != types.FieldVal || sel.Indirect() {
				return nil
			}
			e = x.X
		case *ast.IndexExpr:
			if _, ok := r.typeOf(x.X).Underlying().(*types.Array); !ok {
				return nil
			}
			e = x.X
		default:
			return nil
		}
	}
}

func (r *rewriter) typeOf(e ast.Expr) types.Type {
	if t := r.info.TypeOf(e); t != nil {
		return t
	}
	return types.Typ[types.Invalid]
}

// isPure reports whether evaluating e twice gives the same result and no
// side effects (identifiers, constants, field selections, dereferences and
// indexing of such).
func (r *rewriter) isPure(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.Ident, *ast.BasicLit:
		return true
	case *ast.ParenExpr:
		return r.isPure(x.X)
	case *ast.SelectorExpr:
		return r.isPure(x.X) || r.isPkgName(x.X)
	case *ast.StarExpr:
		return r.isPure(x.X)
	case *ast.IndexExpr:
		if _, isMap := r.typeOf(x.X).Underlying().(*types.Map); isMap {
			return false
		}
		return r.isPure(x.X) && r.isPure(x.Index)
	case *ast.BinaryExpr:
		return r.isPure(x.X) && r.isPure(x.Y)
	case *ast.CompositeLit: // a value such as struct{}{} or T{a, b}
		for _, el := range x.Elts {
			if kv, ok := el.(*ast.KeyValueExpr); ok {
				el = kv.Value
			}
			if !r.isPure(el) {
				return false
			}
		}
		return true
	case *ast.UnaryExpr:
		return x.Op != token.ARROW && r.isPure(x.X)
	case *ast.CallExpr:
		// Conversions and len or cap of pure operands.
		if len(x.Args) != 1 || !r.isPure(x.Args[0]) {
			return false
		}
		if tv, ok := r.info.Types[x.Fun]; ok && tv.IsType() {
			return true
		}
		if id, ok := ast.Unparen(x.Fun).(*ast.Ident); ok {
			if b, ok := r.info.Uses[id].(*types.Builtin); ok {
				return b.Name() == "len" || b.Name() == "cap"
			}
		}
		return false
	}
	if tv, ok := r.info.Types[e]; ok && tv.Value != nil {
		return true
	}
	return false
}

func (r *rewriter) isPkgName(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	if !ok {
		return false
	}
	_, ok = r.info.Uses[id].(*types.PkgName)
	return ok
}

// namedResults returns the named results of a function with type ft and
// body body, or nil if it has none or defers a call: the results are read
// when the function returns, after its deferred calls, which may be what
// orders the read (defer wg.Wait()), and a read recorded at the return
// statement would come before them.
func namedResults(ft *ast.FuncType, body *ast.BlockStmt) []*ast.Ident {
	if ft.Results == nil {
		return nil
	}
	var names []*ast.Ident
	for _, f := range ft.Results.List {
		for _, id := range f.Names {
			if id.Name != "_" {
				names = append(names, id)
			}
		}
	}
	if len(names) == 0 {
		return nil
	}
	defers := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.DeferStmt:
			defers = true
		}
		return !defers
	})
	if defers {
		return nil
	}
	return names
}
