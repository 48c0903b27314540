package conclosed

import (
	"go/constant"
	"strings"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/internal/concurrent"
	"github.com/precog-dev/precog/analyzers/internal/model"
	"github.com/precog-dev/precog/analyzers/internal/ssaflow"
	"github.com/precog-dev/precog/analyzers/locksets"
	"github.com/precog-dev/precog/analyzers/sharedloc"
)

// stopped is a Safe predicate for a send (p.A) and a close (p.B) of one
// channel: a stop flag orders the send before the close, or keeps it from
// running, as in
//
//	func (p *Pool) Pause() {
//		p.stopLock.Lock()
//		defer p.stopLock.Unlock()
//		if p.stopped.Load() {
//			return
//		}
//		p.taskQueue <- pause // send
//	}
//
//	func (p *Pool) stop() {
//		p.stopLock.Lock()
//		p.stopped.Store(true)
//		p.stopLock.Unlock()
//		close(p.taskQueue) // close
//	}
//
// (gammazero/workerpool). The send runs only where a read of a boolean
// field of the channel's object found it false, with a mutex L held from
// that read to the send; the close comes, on its goroutine, after a store
// of true to the same field of its own object made with L held in write
// mode; and nothing in the package ever stores false to the field. If the
// closer's section of L came first, the send's read finds the flag set
// and the send does not run; otherwise the send happened before the
// section ended, so before the close.
func (c *checker) stopped(p concurrent.Pair) bool {
	send, cl := p.A, p.B
	if send.Base == nil || cl.Base == nil {
		return false
	}
	locks := c.env.Locks.All()
	for _, g := range c.flagGuards(send) {
		if !c.monotone(g.loc) {
			continue
		}
		for _, h := range locks.At(g.load) {
			if locks.HeldThrough(h.Mutex, g.load, send.Instr) && c.setBefore(locks, cl, g.loc, h.Mutex) {
				return true
			}
		}
	}
	return false
}

// A flagGuard is a read of a boolean flag that must have found it false
// for an instruction to run.
type flagGuard struct {
	loc  sharedloc.Loc
	load ssa.Instruction
}

// flagGuards returns the reads of boolean fields of send's object that
// found them false on every path to send, in send's function.
func (c *checker) flagGuards(send *sharedloc.Access) []flagGuard {
	var out []flagGuard
	for _, g := range ssaflow.Guards(send.Instr) {
		// The flag is false on the way to send.
		if g.Taken {
			continue
		}
		cond := g.Cond
		load, ok := cond.(ssa.Instruction)
		if !ok {
			continue
		}
		for _, a := range c.env.Shared.ByInstr[load] {
			if (a.Op == sharedloc.Load || a.Op == sharedloc.AtomicLoad) && a.Base == send.Base {
				out = append(out, flagGuard{loc: a.Loc, load: load})
			}
		}
	}
	return out
}

// monotone reports whether every write to loc in the package stores true
// (a plain store of the constant, an atomic Store(true), or a
// CompareAndSwap(false, true)), so that a flag once set stays set.
func (c *checker) monotone(loc sharedloc.Loc) bool {
	set := false
	for _, a := range c.env.Shared.ByLoc[loc] {
		if !a.Op.IsWrite() {
			continue
		}
		if !setsTrue(a) {
			return false
		}
		set = true
	}
	return set
}

// setsTrue reports whether the write a stores true.
func setsTrue(a *sharedloc.Access) bool {
	switch a.Op {
	case sharedloc.Store:
		return isTrue(a.Val)
	case sharedloc.AtomicStore:
		call, ok := a.Instr.(*ssa.Call)
		if !ok {
			return false
		}
		name, args := model.CalleeName(&call.Call), call.Call.Args
		switch {
		case strings.HasSuffix(name, ".Store") && len(args) == 2:
			return isTrue(args[1])
		case strings.HasSuffix(name, ".CompareAndSwap") && len(args) == 3:
			return isFalse(args[1]) && isTrue(args[2])
		}
	}
	return false
}

func isTrue(v ssa.Value) bool {
	k, ok := v.(*ssa.Const)
	return ok && k.Value != nil && k.Value.Kind() == constant.Bool && constant.BoolVal(k.Value)
}

func isFalse(v ssa.Value) bool {
	k, ok := v.(*ssa.Const)
	return ok && k.Value != nil && k.Value.Kind() == constant.Bool && !constant.BoolVal(k.Value)
}

// setBefore reports whether, on every path to the close cl in its
// function, a store of true to the flag loc of cl's object came first,
// made with mutex m held in write mode.
func (c *checker) setBefore(locks *locksets.Solution, cl *sharedloc.Access, loc sharedloc.Loc, m sharedloc.Loc) bool {
	for _, a := range c.env.Shared.ByLoc[loc] {
		if a.Fn() != cl.Fn() || a.Base != cl.Base || !a.Op.IsWrite() || !setsTrue(a) || !ssaflow.Dominates(a.Instr, cl.Instr) {
			continue
		}
		if h, ok := locks.At(a.Instr).Lookup(m); ok && h.Mode == locksets.Write {
			return true
		}
	}
	return false
}
