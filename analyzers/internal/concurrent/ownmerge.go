package concurrent

import "golang.org/x/tools/go/ssa"

// maxMergeEdges bounds the values ownMerge follows through phis.
const maxMergeEdges = 64

// ownMerge reports whether the phi v merges, through phis, only objects
// that its own function makes (new or &T{...}, make) and nil: a local
// re-pointed at a new object as a loop goes (go-libp2p-pubsub's
// (*RPC).split literal: `nextRPC := &RPC{...}`, written, yielded, then
// `nextRPC = &RPC{...}` before it is written again). Whatever object
// such a value holds in a run of the function, that run made it, so the
// run's accesses through it touch its own objects (see ownObject); a
// merge with a parameter, a load or a call's result is not one.
func ownMerge(v *ssa.Phi) bool {
	home := v.Parent()
	seen := map[*ssa.Phi]bool{v: true}
	work := []*ssa.Phi{v}
	for n := 0; len(work) > 0; {
		phi := work[len(work)-1]
		work = work[:len(work)-1]
		for _, x := range phi.Edges {
			if n++; n > maxMergeEdges {
				return false
			}
			switch x := x.(type) {
			case *ssa.Phi:
				if !seen[x] {
					seen[x] = true
					work = append(work, x)
				}
			case *ssa.Const:
				if !x.IsNil() {
					return false
				}
			default:
				if !isMade(x) || x.(ssa.Instruction).Parent() != home {
					return false
				}
			}
		}
	}
	return true
}

// oneInvocation reports whether two accesses' ownKeys name objects that
// invocations of one function made, the accesses running on the
// invocation's goroutine (or both on the one goroutine each invocation
// starts, via): two goroutines running them run two invocations and
// touch two objects, whichever allocations of the function made them,
// and one invocation runs on one goroutine. A merge's key (ownMerge)
// and an allocation's of the same function are one invocation's. So are
// the goroutines of two `go` statements that no invocation runs both of
// (one on each branch of an if: eapache/channels' constructor starts
// either a direct or a buffered pump with its new channel): each
// goroutine's object is that of the invocation that started it.
func (e *Env) oneInvocation(a, b ownKey) bool {
	if a.root == nil || b.root == nil {
		return false
	}
	if a.via != b.via {
		flow := e.Goroutines.Flow
		if a.via == nil || b.via == nil || a.via.Parent() != b.via.Parent() ||
			flow.MayFollow(a.via, b.via) || flow.MayFollow(b.via, a.via) {
			return false
		}
	}
	if a.root == b.root {
		return true
	}
	ia, oka := a.root.(ssa.Instruction)
	ib, okb := b.root.(ssa.Instruction)
	return oka && okb && ia.Parent() == ib.Parent()
}

// enclosing returns the object that the address v lies in: v itself, or,
// for the address of a struct field (an embedded struct's, as in
// pubsub's nextRPC.Control, which is nextRPC.RPC.Control), the object
// that holds the field, field by field. A field of an object is part of
// its memory, so whoever holds one holds the other.
func enclosing(v ssa.Value) ssa.Value {
	for range maxMergeEdges {
		fa, ok := v.(*ssa.FieldAddr)
		if !ok {
			break
		}
		v = fa.X
	}
	return v
}
