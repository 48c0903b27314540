package conuninit

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/goroutines"
	"github.com/precog-dev/precog/analyzers/internal/model"
	"github.com/precog-dev/precog/analyzers/internal/source"
	"github.com/precog-dev/precog/analyzers/internal/ssaflow"
	"github.com/precog-dev/precog/analyzers/internal/ssavalue"
	"github.com/precog-dev/precog/analyzers/sharedloc"
)

// A pipeEOF is a hand-off through an io.Pipe that may order a starter's
// read after its goroutine's write (see handOff).
type pipeEOF struct {
	close  ssa.CallInstruction // the writer's Close, after the write
	call   *ssa.Call           // the call handed the reader, before the read
	pr, pw string              // the reader and the writer as the source names them
	callee string              // call's function as the source names it
	handed types.Type          // the interface type the goroutine hands the writer to other code as, or nil
}

// pipeHandOff returns an io.Pipe hand-off that may order one of writes
// before the starter's read r (see handOff): then r is ordered after a
// write if the call handed the pipe's reader reads it to its end.
func (c *checker) pipeHandOff(r *sharedloc.Access, writes []*sharedloc.Access) (pipeEOF, bool) {
	for _, w := range writes {
		for _, x := range c.env.Goroutines.Of(w.Fn()) {
			if x.Site == nil || x.Site.Parent() != r.Fn() {
				continue
			}
			if h, ok := handOff(c.env.Pass, r, w, x); ok {
				return h, true
			}
		}
	}
	return pipeEOF{}, false
}

// handOff reports whether the starter's read r of what the goroutines
// of x set at w (in x's entry function) follows the end of an io.Pipe
// that the goroutine closes only after w: the goroutine closes the
// pipe's writer with Close only where w dominates the Close, and with
// CloseWithError elsewhere only with an error known not to be nil (a nil
// one closes with EOF too); the starter hands the pipe's reader to a
// call whose return dominates r. A consumer that read the reader to its
// end saw the Close, which io.Pipe orders after w (its Close and Read
// synchronize through its mutex and channels), so r is ordered if that
// call returns only after reading the reader to its end: io.Copy into a
// buffer does, an HTTP client sending the reader as a body does once the
// server needs the body's end, but whether a call (an interface method,
// another package's function) does so cannot be checked in general, and a
// report of r rests on it not doing so: low confidence.
//
// The writer must not be used other than by the goroutine, which may
// only Write and close it, or hand it to other code as an interface
// without a Close method (an encoder's io.Writer): code handed it that
// way is taken to write to it, not to close it (the report then assumes
// it does). Calls that evidently return before the end are not taken:
// one that may return something holding the reader (bufio.NewReader,
// http.NewRequest: a pointer, an interface other than error, a map, a
// channel, a function), a method of the reader itself, and io.ReadFull,
// io.ReadAtLeast and io.CopyN, which read a given amount.
func handOff(pass *analysis.Pass, r, w *sharedloc.Access, x *goroutines.Context) (pipeEOF, bool) {
	g, ok := x.Site.(*ssa.Go)
	if !ok || x.Entry == nil || w.Fn() != x.Entry {
		return pipeEOF{}, false
	}
	for _, b := range bindings(g, x.Entry) {
		pipe, pws, ok := writerOf(b, g)
		if !ok {
			continue
		}
		close, handed, ok := closedAfter(w.Instr, pws)
		if !ok {
			continue
		}
		call := readCall(pipe, r.Instr)
		if call == nil {
			continue
		}
		h := pipeEOF{close: close, call: call, pr: "the pipe's reader", pw: "the pipe's writer", callee: "the call", handed: handed}
		if as, ok := source.Innermost[*ast.AssignStmt](pass, pipe.Pos()); ok && len(as.Lhs) == 2 && len(as.Rhs) == 1 {
			h.pr, h.pw = source.Render(as.Lhs[0]), source.Render(as.Lhs[1])
		}
		if ce, ok := source.Call(pass, call.Pos()); ok {
			h.callee = source.Render(ce.Fun)
		}
		return h, true
	}
	return pipeEOF{}, false
}

// assumption is what a report of the read of expr rests on.
func (h pipeEOF) assumption(expr string) string {
	s := fmt.Sprintf("that %s returns before it has read %s to its end, which %s.Close makes only after %s is set", h.callee, h.pr, h.pw, expr)
	if h.handed != nil {
		s += fmt.Sprintf(", or that code given %s as %s closes it", h.pw, types.TypeString(h.handed, nil))
	}
	return s
}

// related returns the evidence of the hand-off.
func (h pipeEOF) related() []analysis.RelatedInformation {
	return []analysis.RelatedInformation{
		{Pos: h.close.Pos(), Message: fmt.Sprintf("%s closed here, after the set", h.pw)},
		{Pos: h.call.Pos(), Message: fmt.Sprintf("%s handed to %s here, before the read", h.pr, h.callee)},
	}
}

// A binding is a value of the starter (outer) that the goroutine's entry
// function has as a free variable or parameter (inner).
type binding struct{ outer, inner ssa.Value }

// bindings returns the values the go statement g hands to entry: the
// bindings of its closure, or the arguments of its call.
func bindings(g *ssa.Go, entry *ssa.Function) []binding {
	var out []binding
	if mc, ok := g.Call.Value.(*ssa.MakeClosure); ok {
		if mc.Fn != entry {
			return nil
		}
		for i, v := range mc.Bindings {
			out = append(out, binding{v, entry.FreeVars[i]})
		}
		return out
	}
	if g.Call.StaticCallee() != entry || len(g.Call.Args) != len(entry.Params) {
		return nil
	}
	for i, v := range g.Call.Args {
		out = append(out, binding{v, entry.Params[i]})
	}
	return out
}

// writerOf returns the io.Pipe call whose writer the go statement g
// hands to its goroutine as b, and the values that are that writer in
// the goroutine's entry function: the parameter, or the loads of the free
// variable. The writer must have no other use in g's function: b alone
// holds it, a variable captured by reference (go/ssa's Alloc) must be
// stored once, with the writer, and neither side may store to it again.
func writerOf(b binding, g *ssa.Go) (*ssa.Call, []ssa.Value, bool) {
	users := []ssa.Instruction{g}
	if mc, ok := g.Call.Value.(*ssa.MakeClosure); ok {
		users = append(users, mc)
	}
	alloc, ok := b.outer.(*ssa.Alloc)
	if !ok {
		pipe, ok := pipeOf(b.outer, 1)
		if !ok || !usedOnlyBy(b.outer, users...) {
			return nil, nil, false
		}
		return pipe, []ssa.Value{b.inner}, true
	}
	var store *ssa.Store
	for _, u := range *alloc.Referrers() {
		if st, ok := u.(*ssa.Store); ok && st.Addr == alloc && store == nil {
			store = st
		} else if _, ok := u.(*ssa.DebugRef); !ok && !slices.Contains(users, u) {
			return nil, nil, false
		}
	}
	if store == nil {
		return nil, nil, false
	}
	pipe, ok := pipeOf(store.Val, 1)
	if !ok || !usedOnlyBy(store.Val, store) {
		return nil, nil, false
	}
	var loads []ssa.Value
	for _, u := range *b.inner.Referrers() {
		switch u := u.(type) {
		case *ssa.DebugRef:
		case *ssa.UnOp:
			if u.Op != token.MUL {
				return nil, nil, false
			}
			loads = append(loads, u)
		default:
			return nil, nil, false
		}
	}
	return pipe, loads, true
}

// pipeOf returns the io.Pipe call whose i-th result (0 the reader, 1 the
// writer) v is.
func pipeOf(v ssa.Value, i int) (*ssa.Call, bool) {
	ex, ok := v.(*ssa.Extract)
	if !ok || ex.Index != i {
		return nil, false
	}
	call, ok := ex.Tuple.(*ssa.Call)
	return call, ok && model.CalleeName(&call.Call) == "io.Pipe"
}

// usedOnlyBy reports whether every use of v but debug references is one
// of users.
func usedOnlyBy(v ssa.Value, users ...ssa.Instruction) bool {
	for _, u := range *v.Referrers() {
		if _, ok := u.(*ssa.DebugRef); !ok && !slices.Contains(users, u) {
			return false
		}
	}
	return true
}

// closedAfter returns a Close of the pipe writer that the instruction set
// dominates, and the interface type the writer is handed to other code as
// (or nil), if every use of the values pws that are the writer (in set's
// function) is a Write, a Close that set dominates, a CloseWithError that
// set dominates or whose error is not nil, or a conversion to an
// interface type without a Close method; otherwise ok is false.
func closedAfter(set ssa.Instruction, pws []ssa.Value) (close ssa.CallInstruction, handed types.Type, ok bool) {
	for _, pw := range pws {
		for _, u := range *pw.Referrers() {
			switch u := u.(type) {
			case *ssa.DebugRef:
			case *ssa.MakeInterface:
				if m, _, _ := types.LookupFieldOrMethod(u.Type(), false, nil, "Close"); m != nil {
					return nil, nil, false
				}
				if handed == nil {
					handed = u.Type()
				}
			case ssa.CallInstruction:
				cc := u.Common()
				if cc.IsInvoke() || len(cc.Args) == 0 || cc.Args[0] != pw || slices.Contains(cc.Args[1:], pw) {
					return nil, nil, false
				}
				switch model.CalleeName(cc) {
				case "(*io.PipeWriter).Write":
				case "(*io.PipeWriter).Close":
					if !ssaflow.Dominates(set, u) {
						return nil, nil, false
					}
					if close == nil {
						close = u
					}
				case "(*io.PipeWriter).CloseWithError":
					if !ssaflow.Dominates(set, u) && !nonNil(cc.Args[1], u) {
						return nil, nil, false
					}
				default:
					return nil, nil, false
				}
			default:
				return nil, nil, false
			}
		}
	}
	return close, handed, close != nil
}

// nonNil reports whether the error v is not nil at the instruction at: a
// conversion of a concrete value, or a value that a branch every path to
// at passes compared unequal to nil.
func nonNil(v ssa.Value, at ssa.Instruction) bool {
	if _, ok := v.(*ssa.MakeInterface); ok {
		return true
	}
	for _, g := range ssaflow.Guards(at) {
		b, ok := g.Cond.(*ssa.BinOp)
		if !ok || !(b.X == v && ssavalue.IsNil(b.Y) || b.Y == v && ssavalue.IsNil(b.X)) {
			continue
		}
		if b.Op == token.NEQ && g.Taken || b.Op == token.EQL && !g.Taken {
			return true
		}
	}
	return false
}

// readCall returns a call, handed the reader of pipe as an argument, that
// dominates read and may be one that reads the reader to its end (see
// consumes), or nil.
func readCall(pipe *ssa.Call, read ssa.Instruction) *ssa.Call {
	for _, u := range *pipe.Referrers() {
		pr, ok := u.(*ssa.Extract)
		if !ok || pr.Index != 0 {
			continue
		}
		vals := []ssa.Value{pr}
		for _, v := range *pr.Referrers() {
			if mi, ok := v.(*ssa.MakeInterface); ok {
				vals = append(vals, mi)
			}
		}
		for _, v := range vals {
			for _, u := range *v.Referrers() {
				if call, ok := u.(*ssa.Call); ok && consumes(&call.Call, v) && ssaflow.Dominates(call, read) {
					return call
				}
			}
		}
	}
	return nil
}

// boundedReads read a given amount of their reader argument.
var boundedReads = map[string]bool{
	"io.ReadFull":    true,
	"io.ReadAtLeast": true,
	"io.CopyN":       true,
}

// consumes reports whether call, handed the reader v as an argument, may
// read it to its end before it returns: it is no method of the reader
// (Read reads once), none of boundedReads, and returns nothing that could
// hold the reader for a later read (see keepsNoReader).
func consumes(call *ssa.CallCommon, v ssa.Value) bool {
	name := model.CalleeName(call)
	if !slices.Contains(call.Args, v) || strings.HasPrefix(name, "(*io.PipeReader).") || boundedReads[name] {
		return false
	}
	res := call.Signature().Results()
	for i := range res.Len() {
		if !keepsNoReader(res.At(i).Type(), 0) {
			return false
		}
	}
	return true
}

// maxTypeDepth bounds keepsNoReader's walk of nested types (a recursive
// type holds a slice of itself); deeper, a type counts as one that may
// hold a reader.
const maxTypeDepth = 8

var errorType = types.Universe.Lookup("error").Type()

// keepsNoReader reports whether a value of type t cannot hold a reader:
// basic values (no unsafe.Pointer), and slices, arrays and structs of
// them. An error is taken to hold none: an error wrapping the reader for
// a later read is not a way code hands a stream on.
func keepsNoReader(t types.Type, depth int) bool {
	if depth > maxTypeDepth {
		return false
	}
	if types.Identical(t, errorType) {
		return true
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		return u.Kind() != types.UnsafePointer
	case *types.Slice:
		return keepsNoReader(u.Elem(), depth+1)
	case *types.Array:
		return keepsNoReader(u.Elem(), depth+1)
	case *types.Struct:
		for f := range u.Fields() {
			if !keepsNoReader(f.Type(), depth+1) {
				return false
			}
		}
		return true
	}
	return false
}
