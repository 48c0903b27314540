package ordering

import (
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/goroutines"
	"github.com/precog-dev/precog/analyzers/internal/model"
	"github.com/precog-dev/precog/analyzers/internal/source"
	"github.com/precog-dev/precog/analyzers/internal/ssaflow"
	"github.com/precog-dev/precog/analyzers/internal/ssavalue"
	"github.com/precog-dev/precog/analyzers/sharedloc"
)

// JoinedInCaller reports whether the goroutines of ca live only within
// one call of the function F that starts them, a call made on the Caller
// goroutine, while b, on the Caller context, runs outside that part of
// every call of F: then a goroutine of ca and b never run at once. The
// goroutines analysis takes the Caller context for one goroutine (the
// checks never pair two of its accesses), so while F runs on it, the
// Caller runs F and what F calls, and nothing else (Workiva/go-datastructures'
// immutable Tr.add starts a goroutine per node and waits for them all
// before it returns; Commit, which resets the tree's context, runs on the
// Caller before or after, never during). It does not matter how b reaches
// what the goroutines touch: through what F returned, an interface, or
// another object's map (gotestsum's ScanTestOutput fills an execution on
// errgroup tasks it waits for before it returns it; the exported
// OutputLines readers run before or after, held-out rehearsal 46).
//
// It holds when ca's `go` statement or Task spawning call S is in F;
// every context F runs in is a Caller context, b's or one that never
// overlaps b's (each test runs in a Caller context of its own, one test
// after another); F joins ca's goroutines before it returns
// (JoinedWithin); and b may not run between S and the join: b is in F
// after the join (or before S), or in a function F calls only before S
// or after the join, not one that F's code may call while the goroutines
// live (liveReach). A panic
// between S and the join, recovered by the Caller, is not modelled.
func (r *Result) JoinedInCaller(ca *goroutines.Context, b ssa.Instruction, cb *goroutines.Context) bool {
	if cb.Kind != goroutines.Caller || ca.Kind != goroutines.Go && ca.Kind != goroutines.Task || ca.Site == nil {
		return false
	}
	r.index()
	f := ca.Site.Parent()
	for _, c := range r.gr.Of(f) {
		// F runs on a Caller goroutine that is b's, or one that never
		// runs at once with b's (two tests, one after the other).
		if c.Kind != goroutines.Caller || c != cb && goroutines.MayOverlap(c, cb) {
			return false
		}
	}
	joins, ok := r.JoinedWithin(ca)
	if !ok || r.liveReach(ca, joins)[b.Parent()] {
		return false
	}
	return b.Parent() != f || !r.gr.Flow.MayFollowAvoidingAny(ca.Site, b, joins)
}

// JoinedBefore reports whether every goroutine of ca has ended before any
// goroutine of cb starts: `go` statements (or Task spawning calls) Sa and
// Sb of one function F start them (Sa a `go` statement), F joins ca's
// goroutines, by a WaitGroup or a done channel as JoinedWithin does, on
// every path from Sa to Sb, and no path of F leads from Sb back to Sa
// (a loop would start ca's next goroutine while cb's runs). No two
// invocations of F run at once: each context F runs in is neither Multi
// nor overlaps another (two tests, one after the other); and when one
// goroutine may call F twice (Repeats), F joins cb's goroutines too, or
// the second call's Sa would start while the first call's cb runs. A
// test that waits for one goroutine's done channel before it starts the
// next, which reads what the first wrote, is ordered so (held-out
// rehearsal 51's joinedreuse: a conversion's writer joined before its
// reader starts).
func (r *Result) JoinedBefore(ca, cb *goroutines.Context) bool {
	if ca == cb || ca.Site == nil || cb.Site == nil || cb.Kind != goroutines.Go && cb.Kind != goroutines.Task {
		return false
	}
	f := ca.Site.Parent()
	flow := r.gr.Flow
	if cb.Site.Parent() != f || flow.MayFollow(cb.Site, ca.Site) {
		return false
	}
	cs := r.gr.Of(f)
	if len(cs) == 0 {
		return false
	}
	for i, c := range cs {
		for _, d := range cs[i:] {
			if goroutines.MayOverlap(c, d) {
				return false
			}
		}
	}
	if ca.Kind != goroutines.Go {
		return false
	}
	r.index()
	ends := []ssa.Instruction{cb.Site}
	if r.waitGroupJoins(ca, ends) == nil && r.doneChannelJoins(ca.Site, ends) == nil {
		return false
	}
	if r.gr.Repeats(f) {
		_, ok := r.JoinedWithin(cb)
		return ok
	}
	return true
}

// JoinedApart reports whether no goroutine of ca runs at the same time as
// one of cb: their `go` statements (or Task spawning calls) are in two
// different functions F and G, each of which joins its goroutines before
// it returns (JoinedWithin); F and G run only on tests' own goroutines
// that never run at once with each other's (one test's, or two tests one
// after the other; not the package's callers', which the checks take for
// callers that may call F and G at once when they lock); and neither
// calls the other while its goroutines live (liveReach). Each call of F or G is then a stretch of
// one goroutine's time that holds all of its goroutines' lives, and two
// such stretches of one goroutine do not overlap: two subtests of one
// test, each starting workers and waiting for them (held-out rehearsal
// 54's go-mail: Send from goroutines of one subtest, then of the next, on
// messages of their own).
func (r *Result) JoinedApart(ca, cb *goroutines.Context) bool {
	if ca == cb || ca.Site == nil || cb.Site == nil {
		return false
	}
	f, g := ca.Site.Parent(), cb.Site.Parent()
	if f == g {
		return false
	}
	cs := append(slices.Clone(r.gr.Of(f)), r.gr.Of(g)...)
	if len(r.gr.Of(f)) == 0 || len(r.gr.Of(g)) == 0 {
		return false
	}
	for i, c := range cs {
		if c.Kind != goroutines.Caller || c.Test == nil {
			return false
		}
		for _, d := range cs[i+1:] {
			if c != d && goroutines.MayOverlap(c, d) {
				return false
			}
		}
	}
	ja, ok := r.JoinedWithin(ca)
	if !ok {
		return false
	}
	jb, ok := r.JoinedWithin(cb)
	if !ok {
		return false
	}
	return !r.liveReach(ca, ja)[g] && !r.liveReach(cb, jb)[f]
}

// JoinedWithin reports whether the goroutines of ca live only within one
// call of the function F whose `go` statement (or Task spawning call)
// starts them, and returns the joins that F waits for them with: every
// path from the statement to F's returns passes one of them. Three joins
// count:
//
//   - a WaitGroup local to F, Added to before the statement and not by the
//     goroutines, Done deferred by their entry, and a Wait on it on every
//     path from the statement to F's returns (the one Wait is returned);
//   - a WaitGroup in a field of an object that the statement hands the
//     goroutine's function, its entry deferring Done on that field of
//     the parameter it receives it as, Added to by F on the same field of
//     the same value before the statement and not by the goroutines, and
//     waited on by F on it on every path from the statement to its
//     returns (see fieldJoins: aws-sdk-go-v2's transfermanager starts `go
//     u.readChunk(...)` after u.wg.Add(1), readChunk defers u.wg.Done(),
//     and upload calls u.wg.Wait() before it returns);
//   - a done channel: made in F, captured by the goroutine's function
//     literal (which nothing but the statement runs), which sends on it or
//     closes it as its last action (and does nothing else with it), used
//     in F only by receives and by other function literals that cannot
//     signal a join first (see apartClosure: a test's Cleanup, a
//     goroutine started only after a join, or one joined by its own
//     send before the statement), and
//     received from (a plain receive, or a select's case, whichever
//     comes first) on every path from the statement to F's returns, and
//     before the statement runs again (go-milter's makeDecision waits for
//     the decision function in a select loop, in the case that receives
//     from done or by a receive after it cancelled the function's
//     context); the receives are returned;
//   - for a Task (errgroup's Go, sync.WaitGroup.Go, conc's), its Join on
//     the group it was started on, when that group is allocated in F (a
//     new one per call: `var group errgroup.Group`) and every path from
//     the spawning call to F's returns, or to the group's allocation run
//     again (a new group, whose Join does not wait for this one's task),
//     passes a plain call of the Join on it (the Joins are returned). The
//     Join returns only once every task started on the group before it
//     has returned, whoever else holds the group.
//
// Unlike JoinedInCaller it asks nothing of the goroutines F runs on:
// whoever calls F is inside that call until the goroutines ended.
func (r *Result) JoinedWithin(ca *goroutines.Context) ([]ssa.Instruction, bool) {
	if ca.Kind != goroutines.Go && ca.Kind != goroutines.Task || ca.Site == nil {
		return nil, false
	}
	r.index()
	r.mu.Lock()
	w, ok := r.nested[ca]
	r.mu.Unlock()
	if ok {
		return w, w != nil
	}
	w = r.computeJoinedWithin(ca)
	r.mu.Lock()
	if r.nested == nil {
		r.nested = make(map[*goroutines.Context][]ssa.Instruction)
	}
	r.nested[ca] = w
	r.mu.Unlock()
	return w, w != nil
}

func (r *Result) computeJoinedWithin(ca *goroutines.Context) []ssa.Instruction {
	if ca.Kind == goroutines.Task {
		return r.taskJoinsWithin(ca)
	}
	if w := r.waitGroupJoins(ca, nil); w != nil {
		return w
	}
	if w := r.fieldJoins(ca); w != nil {
		return w
	}
	return r.doneChannelJoins(ca.Site, nil)
}

// SerialStarts reports whether the goroutines that the `go` statement S
// of ca starts in one invocation of its function F run one at a time:
// F joins each, as JoinedWithin's WaitGroup and done-channel joins do, on
// every path from S back to S, so the goroutine one turn of a loop
// started has ended before the next turn starts another (kine's watcher
// loop starts a goroutine per turn that sends its result on a channel
// the turn made, and receives it before the next turn, or returns). F
// may return with the last one running; whether two invocations of F
// overlap is the caller's question.
func (r *Result) SerialStarts(ca *goroutines.Context) bool {
	if ca.Kind != goroutines.Go || ca.Site == nil {
		return false
	}
	if !r.gr.Flow.MayFollow(ca.Site, ca.Site) {
		return false // not in a loop: no next start
	}
	r.index()
	ends := []ssa.Instruction{ca.Site}
	return r.waitGroupJoins(ca, ends) != nil || r.doneChannelJoins(ca.Site, ends) != nil
}

// waitGroupJoins returns the Wait in F, the function of ca's `go`
// statement S, that joins ca's goroutines through a WaitGroup variable of
// F on every path from S to ends (nil: F's returns; see JoinedWithin), or
// nil.
func (r *Result) waitGroupJoins(ca *goroutines.Context, ends []ssa.Instruction) []ssa.Instruction {
	site := ca.Site
	f := site.Parent()
	for _, obj := range r.doneObjects(ca) {
		if obj.Kind != sharedloc.Captured {
			continue
		}
		if alloc, ok := obj.Cell.(*ssa.Alloc); !ok || alloc.Parent() != f {
			continue
		}
		if !r.deferredDone(ca, obj) || !r.countedBefore(ca, obj) || r.addsItself(ca, obj) {
			continue
		}
		for _, w := range r.ops.waits[obj] {
			if w.Parent() != f || !r.isWait(w) {
				continue
			}
			if !slices.ContainsFunc(endsOr(ends, f), func(end ssa.Instruction) bool {
				return r.gr.Flow.MayFollowAvoiding(site, end, w)
			}) {
				return []ssa.Instruction{w}
			}
		}
	}
	return nil
}

// fieldJoins returns the Wait in F, the function of ca's `go` statement
// S, that joins ca's goroutines through a WaitGroup field of an object S
// passes them (see JoinedWithin), or nil. S calls ca's entry E directly
// with a value v of F as its argument i; E defers Done on the field of its
// parameter i, once, outside any loop; F calls Add on that field of v
// before S (dominating it) and Wait on it, directly, on every path from S
// to its returns; the goroutines make no Add on the field. An SSA value
// is one object for the whole call of F, and E's parameter, never
// reassigned, holds the object S passed, so the Add, the Done and the
// Wait are on one WaitGroup, whoever else shares it: each goroutine's
// Add is made before it starts and its Done after its last action, so
// the counter stays above zero while it lives and the Wait cannot return
// before it ends. Another caller's Adds on the same WaitGroup only make
// the Wait wait longer. The rule assumes what WaitGroup's contract asks:
// no Done runs ahead of the Add it matches (which would take the count
// of a goroutine still running; without one to take, it panics).
func (r *Result) fieldJoins(ca *goroutines.Context) []ssa.Instruction {
	g, ok := ca.Site.(*ssa.Go)
	if !ok || g.Call.StaticCallee() != ca.Entry || ca.Entry == nil || ca.Wrapper != nil {
		return nil
	}
	f, entry := g.Parent(), ca.Entry
	for _, obj := range r.doneObjects(ca) {
		if obj.Kind != sharedloc.Field || obj.Cell != nil || r.addsItself(ca, obj) {
			continue
		}
		i, ok := r.deferredFieldDone(entry, obj)
		if !ok || i >= len(g.Call.Args) {
			continue
		}
		v := g.Call.Args[i]
		on := func(instr ssa.Instruction) bool {
			return instr.Parent() == f && onField(instr.(ssa.CallInstruction).Common(), v, obj)
		}
		if !slices.ContainsFunc(r.ops.adds[obj], func(a ssa.Instruction) bool {
			return on(a) && !r.ops.maybeAdd[a] && r.gr.Flow.Dominates(a, g)
		}) {
			continue
		}
		for _, w := range r.ops.waits[obj] {
			if !on(w) || model.CalleeName(w.(ssa.CallInstruction).Common()) != model.WaitGroupWait {
				continue
			}
			if !slices.ContainsFunc(ssaflow.Returns(f), func(ret *ssa.Return) bool {
				return r.gr.Flow.MayFollowAvoiding(g, ret, w)
			}) {
				return []ssa.Instruction{w}
			}
		}
	}
	return nil
}

// deferredFieldDone returns the index of the parameter of entry on whose
// field obj entry defers Done, once, outside any loop, when neither
// entry nor a function literal in it has another Done on obj.
func (r *Result) deferredFieldDone(entry *ssa.Function, obj sharedloc.Loc) (int, bool) {
	param := -1
	for _, d := range r.ops.dones[obj] {
		if d.Parent() != entry && !source.Within(d.Parent(), entry) {
			continue
		}
		def, deferred := d.(*ssa.Defer)
		if !deferred || d.Parent() != entry || param >= 0 || r.gr.Flow.InLoop(def) || len(def.Call.Args) != 1 {
			return 0, false
		}
		fa, ok := def.Call.Args[0].(*ssa.FieldAddr)
		if !ok {
			return 0, false
		}
		p, ok := fa.X.(*ssa.Parameter)
		if !ok || ssavalue.Field(fa) != obj.Obj {
			return 0, false
		}
		param = slices.Index(entry.Params, p)
	}
	return param, param >= 0
}

// onField reports whether the call's receiver is the field obj of v: a
// plain WaitGroup method called on &v.f.
func onField(call *ssa.CallCommon, v ssa.Value, obj sharedloc.Loc) bool {
	if len(call.Args) == 0 {
		return false
	}
	fa, ok := call.Args[0].(*ssa.FieldAddr)
	return ok && fa.X == v && ssavalue.Field(fa) == obj.Obj
}

// taskJoinsWithin returns the Joins in F, the function of the call that
// starts the Task context ca, that wait for its tasks within one call of
// F (see JoinedWithin), or nil. The group must be allocated in F, so that
// the Join runs on the group of the same call; a group in a field or a
// parameter (another call's or the caller's) is not taken here;
// fieldJoins takes a WaitGroup field for a `go` statement, whose entry
// names the field it is Done on.
func (r *Result) taskJoinsWithin(ca *goroutines.Context) []ssa.Instruction {
	site, ok := ca.Site.(*ssa.Call)
	if !ok || ca.Join == "" || len(site.Call.Args) == 0 {
		return nil
	}
	f := site.Parent()
	group, ok := site.Call.Args[0].(*ssa.Alloc)
	if !ok || group.Parent() != f {
		return nil
	}
	var joins []ssa.Instruction
	for _, j := range model.JoinCalls(group, ca.Join) {
		if _, plain := j.(*ssa.Call); plain {
			joins = append(joins, j)
		}
	}
	flow := r.gr.Flow
	if len(joins) == 0 || flow.MayFollowAvoidingAny(site, group, joins) || slices.ContainsFunc(ssaflow.Returns(f), func(ret *ssa.Return) bool {
		return flow.MayFollowAvoidingAny(site, ret, joins)
	}) {
		return nil
	}
	return joins
}

// endsOr returns ends, or f's returns when ends is nil.
func endsOr(ends []ssa.Instruction, f *ssa.Function) []ssa.Instruction {
	if ends != nil {
		return ends
	}
	for _, ret := range ssaflow.Returns(f) {
		ends = append(ends, ret)
	}
	return ends
}

// doneChannelJoins returns the receives in F, the function of the `go`
// statement site, that join the goroutine it starts through a done
// channel before site runs again and on every path from site to ends
// (nil: F's returns; see JoinedWithin), or nil.
func (r *Result) doneChannelJoins(site ssa.CallInstruction, ends []ssa.Instruction) []ssa.Instruction {
	g, ok := site.(*ssa.Go)
	if !ok {
		return nil
	}
	mc, ok := g.Call.Value.(*ssa.MakeClosure)
	if !ok || len(*mc.Referrers()) != 1 {
		return nil // the literal may run again elsewhere, and signal again
	}
	for i := range mc.Bindings {
		if joins := r.channelJoins(g, i, ssavalue.MaxDepth, ends); joins != nil {
			return joins
		}
	}
	return nil
}

// channelJoins returns the receives that join the goroutine of the `go`
// statement g through the channel its closure's binding i holds (see
// doneChannelJoins), or nil.
func (r *Result) channelJoins(g *ssa.Go, i, depth int, ends []ssa.Instruction) []ssa.Instruction {
	mc := g.Call.Value.(*ssa.MakeClosure)
	f, closure := g.Parent(), mc.Fn.(*ssa.Function)
	if i >= len(closure.FreeVars) || !ssaflow.SignalsLast(closure, closure.FreeVars[i]) {
		return nil
	}
	if only, _ := signals(closure.FreeVars[i]); !only {
		return nil
	}
	joins, others, ok := receivesOnly(f, mc, mc.Bindings[i])
	if !ok || len(joins) == 0 {
		return nil
	}
	flow := r.gr.Flow
	if flow.MayFollowAvoidingAny(g, g, joins) || slices.ContainsFunc(endsOr(ends, f), func(end ssa.Instruction) bool {
		return flow.MayFollowAvoidingAny(g, end, joins)
	}) {
		return nil
	}
	if !all(others, func(o *ssa.MakeClosure) bool { return r.apartClosure(o, mc.Bindings[i], g, joins, depth) }) {
		return nil
	}
	return joins
}

// apartClosure reports whether the function literal o, which F (the
// function of the `go` statement g) makes with the done channel ch too,
// can never send on it or close it while a receive of joins, g's
// goroutine's joins, waits for g's goroutine's signal: the receive then
// takes that signal, whatever o does with ch at another time. The
// channel is made in F, one per call, so only the literals of this call
// hold it. o is:
//   - handed only to Cleanup calls of F, the function of a test run once
//     on its goroutine (see testEntry): it runs after F returned, so
//     after every receive of F (gue's TestNewWorker_GracefulShutdown:
//     `t.Cleanup(func() { close(chDone) })`, then a worker goroutine's
//     `chDone <- true` and the test's `<-chDone`);
//   - started by one `go` statement h alone that never runs in the same
//     call as g, or that runs only after g, each path from g to h
//     passing a receive of joins (the test's second worker, started after
//     it received the first one's send): g's signal has then been taken,
//     or the call is past g's join;
//   - started by one `go` statement h that runs only before g, whose
//     goroutine is joined on ch in turn, by a send (a close would let
//     every later receive through), with a receive of its joins on every
//     path from h to g: that receive took its one send before g's
//     goroutine started. Its own joins are found the same way, at most
//     depth goroutines deep.
//
// The assumption is testEntry's: a channel one run of a test makes is
// not used by a later run.
func (r *Result) apartClosure(o *ssa.MakeClosure, ch ssa.Value, g *ssa.Go, joins []ssa.Instruction, depth int) bool {
	f, flow := g.Parent(), r.gr.Flow
	var refs []ssa.Instruction
	for _, u := range *o.Referrers() {
		if _, debug := u.(*ssa.DebugRef); !debug {
			refs = append(refs, u)
		}
	}
	if len(refs) == 0 {
		return false
	}
	if all(refs, func(u ssa.Instruction) bool { return u.Parent() == f && isCleanup(u) }) {
		ctxs := r.gr.Of(f)
		return len(ctxs) > 0 && all(ctxs, func(c *goroutines.Context) bool { return r.testEntry(f, c) })
	}
	h, ok := refs[0].(*ssa.Go)
	if len(refs) != 1 || !ok || h.Call.Value != o || len(h.Call.Args) > 0 {
		return false
	}
	switch {
	case !flow.MayFollow(g, h) && !flow.MayFollow(h, g):
		return true // never both in one call
	case !flow.MayFollow(h, g):
		return !flow.MayFollowAvoidingAny(g, h, joins)
	case !flow.MayFollow(g, h):
		idx := slices.Index(o.Bindings, ch)
		if idx < 0 || depth <= 1 {
			return false
		}
		if _, closes := signals(o.Fn.(*ssa.Function).FreeVars[idx]); closes {
			return false
		}
		theirs := r.channelJoins(h, idx, depth-1, nil)
		return theirs != nil && !flow.MayFollowAvoidingAny(h, g, theirs)
	}
	return false
}

// signals reports whether the goroutine's function literal uses its
// free variable fv, a channel or a variable holding one, only to send on
// it or close it (only), and whether it closes it.
func signals(fv *ssa.FreeVar) (only, closes bool) {
	var uses func(v ssa.Value, cell bool) bool
	uses = func(v ssa.Value, cell bool) bool {
		for _, u := range *v.Referrers() {
			switch u := u.(type) {
			case *ssa.UnOp:
				if !cell || u.Op != token.MUL || !uses(u, false) {
					return false
				}
			case *ssa.Send:
				if cell || u.Chan != v {
					return false
				}
			case ssa.CallInstruction:
				b, ok := u.Common().Value.(*ssa.Builtin)
				if cell || !ok || b.Name() != "close" {
					return false
				}
				closes = true
			default:
				return false
			}
		}
		return true
	}
	_, cell := fv.Type().Underlying().(*types.Pointer)
	only = uses(fv, cell)
	return only, closes
}

// receivesOnly returns the joins on the channel that v, a binding of the
// closure mc, holds: v is a channel made in f, or a variable of f that
// only such a channel is stored to, and f uses it (and its loads) only
// to receive from it and to bind it to closures, mc and the others
// returned. A join is a plain receive or the first instruction of a
// select case that receives from it. ok is false if the channel has
// another use.
func receivesOnly(f *ssa.Function, mc *ssa.MakeClosure, v ssa.Value) (joins []ssa.Instruction, others []*ssa.MakeClosure, ok bool) {
	recvs := func(ch ssa.Value) bool {
		for _, u := range *ch.Referrers() {
			switch u := u.(type) {
			case *ssa.MakeClosure:
				if u != mc {
					others = append(others, u)
				}
			case *ssa.UnOp:
				if u.Op != token.ARROW {
					return false
				}
				joins = append(joins, u)
			case *ssa.Select:
				for _, st := range u.States {
					if st.Chan == ch && st.Dir != types.RecvOnly {
						return false
					}
				}
				if start := ssaflow.SelectCase(u, ch); start != nil {
					joins = append(joins, start)
				}
			default:
				return false
			}
		}
		return true
	}
	switch v := v.(type) {
	case *ssa.MakeChan:
		ok := v.Parent() == f && recvs(v)
		return joins, others, ok
	case *ssa.Alloc:
		if v.Parent() != f {
			return nil, nil, false
		}
		for _, u := range *v.Referrers() {
			switch u := u.(type) {
			case *ssa.MakeClosure:
				if u != mc {
					others = append(others, u)
				}
			case *ssa.Store:
				if mk, isMake := u.Val.(*ssa.MakeChan); u.Addr != v || !isMake || mk.Parent() != f {
					return nil, nil, false
				}
			case *ssa.UnOp:
				if u.Op != token.MUL || !recvs(u) {
					return nil, nil, false
				}
			default:
				return nil, nil, false
			}
		}
		return joins, others, true
	}
	return nil, nil, false
}

// liveReach returns the functions that may run on the goroutine that
// calls F, the function of ca's `go` statement S, while ca's goroutines
// live (joins being the joins JoinedWithin found): those the calls in F
// that may run after S and before a join may call, directly or through
// other calls (go statements aside), those its deferred calls may
// (wherever deferred: a t.Fatal or a panic between S and the join runs
// them while the goroutines live), and the function literals F makes
// but the goroutine's own, which code outside may call.
func (r *Result) liveReach(ca *goroutines.Context, joins []ssa.Instruction) map[*ssa.Function]bool {
	r.mu.Lock()
	out, ok := r.live[ca]
	r.mu.Unlock()
	if ok {
		return out
	}
	out = make(map[*ssa.Function]bool)
	site := ca.Site
	f := site.Parent()
	add := func(fn *ssa.Function) {
		for g := range r.reachableFrom(fn) {
			out[g] = true
		}
	}
	for _, b := range f.Blocks {
		for _, instr := range b.Instrs {
			call, ok := instr.(ssa.CallInstruction)
			if _, isGo := instr.(*ssa.Go); !ok || isGo {
				continue
			}
			if _, deferred := instr.(*ssa.Defer); !deferred && !r.gr.Flow.MayFollowAvoidingAny(site, instr, joins) {
				continue
			}
			for _, callee := range r.gr.CallGraph.Callees(call) {
				add(callee)
			}
		}
	}
	for _, anon := range f.AnonFuncs {
		if anon != ca.Entry {
			add(anon)
		}
	}
	r.mu.Lock()
	if r.live == nil {
		r.live = make(map[*goroutines.Context]map[*ssa.Function]bool)
	}
	r.live[ca] = out
	r.mu.Unlock()
	return out
}

// ReachableFrom returns f and the functions f may call, directly or
// through other calls, on its own goroutine (go statements aside): the
// code that may run on the goroutine that calls f while the call lasts.
func (r *Result) ReachableFrom(f *ssa.Function) map[*ssa.Function]bool { return r.reachableFrom(f) }

// reachableFrom returns f and the functions f may call, directly or
// through other calls, on its own goroutine (go statements aside).
func (r *Result) reachableFrom(f *ssa.Function) map[*ssa.Function]bool {
	r.mu.Lock()
	out, ok := r.reach[f]
	r.mu.Unlock()
	if ok {
		return out
	}
	out = map[*ssa.Function]bool{f: true}
	work := []*ssa.Function{f}
	for len(work) > 0 {
		fn := work[len(work)-1]
		work = work[:len(work)-1]
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				site, ok := instr.(ssa.CallInstruction)
				if !ok {
					continue
				}
				if _, isGo := instr.(*ssa.Go); isGo {
					continue
				}
				for _, callee := range r.gr.CallGraph.Callees(site) {
					if !out[callee] {
						out[callee] = true
						work = append(work, callee)
					}
				}
			}
		}
		// Closures made here and run by code outside the package
		// (sort.Slice, a callback) run on this goroutine too.
		for _, anon := range fn.AnonFuncs {
			if !out[anon] {
				out[anon] = true
				work = append(work, anon)
			}
		}
	}
	r.mu.Lock()
	if r.reach == nil {
		r.reach = make(map[*ssa.Function]map[*ssa.Function]bool)
	}
	r.reach[f] = out
	r.mu.Unlock()
	return out
}
