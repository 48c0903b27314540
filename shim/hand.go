package shim

import "sync/atomic"

// Handed literals. A function literal handed to code precog does not
// instrument (a handler given to net/http's ServeMux.HandleFunc) may be
// kept and run later on a goroutine that code started before the
// handing: neither EvBelow (the goroutine's start) nor a mark's EvAfter
// (its creation during a call) orders the run after what the caller did
// before handing it. Yet the literal's value exists only from its
// evaluation in the caller, so every run of it comes after that. The
// rewriter wraps such a literal LIT as shim.Hand(&h, S, LIT'), h a Handle
// the enclosing function declares, with LIT' the literal calling
// shim.Handed(&h, S) first: Hand records the
// caller's first mark at S (EvMark, without the pc that tracebacks match:
// the literal's line is not a call's) and keeps the caller's id in the
// handle; Handed, on another goroutine than the caller's, records EvAfter
// naming the caller and S, once per goroutine and site, so the run is
// after the caller's first mark at S, which is before this handing (in a
// loop too). On the caller's own goroutine (sort.Slice's less) it records
// nothing.

// A Handle is the handings at one site of one invocation of a function:
// its caller's logical id (one invocation runs on one goroutine). The
// atomic: a loop hands the literal again while a run of the previous one
// reads it.
type Handle struct {
	caller atomic.Uint64
	// gid is the caller's runtime id, stored before caller: a run on the
	// caller's own goroutine (a comparator's, called n·log n times by
	// slices.SortFunc) tells so from the goroutine's runtime id, which
	// the runtime never gives again, without looking its state up (cur
	// was 2.2% of raft's recorded CPU, Handed 1.3%).
	gid atomic.Uint64
}

// Hand returns f, a literal handed at site, after recording the handing
// by the running goroutine.
func Hand[F any](h *Handle, site uint32, f F) F {
	if enabled {
		h.hand(site)
	}
	return f
}

func (h *Handle) hand(site uint32) {
	g := cur()
	h.gid.Store(g.goid.Load())
	h.caller.Store(g.id)
	if !g.marks.first(site) {
		return
	}
	g.prepare()
	g.buf = g.enc.AppendMark(g.buf, seqs.n.Add(1), site)
	g.commit()
	g.synced()
}

// Handed runs first in a handed literal: on another goroutine than the
// one that handed it, the run is after the caller's first mark at site.
func Handed(h *Handle, site uint32) {
	if enabled && h.gid.Load() != goid() {
		h.handed(site)
	}
}

// handed is Handed on another goroutine than the caller's, or before any
// handing.
func (h *Handle) handed(site uint32) {
	caller := h.caller.Load()
	if caller == 0 {
		return
	}
	g := cur()
	if g.id == caller {
		return
	}
	k := handKey{site, caller}
	if _, ok := g.handed[k]; ok {
		return
	}
	if g.handed == nil {
		g.handed = make(map[handKey]struct{})
	}
	g.handed[k] = struct{}{}
	g.recordAfter(site, caller)
}

// handKey is a site and the caller that handed a literal there.
type handKey struct {
	site   uint32
	caller uint64
}
