package ordering

import (
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/internal/ssaflow"
)

// nilOnlyAfter reports whether j runs on every path through its function
// that returns a nil error: the function's last result is an error, it
// has no deferred recover, some return gives a constant nil error and j
// dominates each of those, and every other return gives an error that
// cannot be nil (see nonNilError). A caller that goes on only when the
// call's error is nil then runs after j, as in go-coap's
//
//	func (cc *Conn) waitQBlockCapability(ctx context.Context, wait <-chan struct{}) error {
//		select {
//		case <-ctx.Done():
//			return ctx.Err()
//		case <-wait:
//			return nil
//		}
//	}
//
//	if err := cc.waitQBlockCapability(ctx, wait); err != nil {
//		return false, err
//	}
//	return result.supported, result.err // after the close of wait
func (r *Result) nilOnlyAfter(j ssa.Instruction) bool {
	fn := j.Parent()
	if fn == nil || fn.Recover != nil {
		return false
	}
	res := fn.Signature.Results()
	if res.Len() == 0 || !isError(res.At(res.Len()-1).Type()) {
		return false
	}
	nils := 0
	for _, ret := range ssaflow.Returns(fn) {
		if len(ret.Results) != res.Len() {
			return false
		}
		v := ret.Results[len(ret.Results)-1]
		if c, ok := v.(*ssa.Const); ok && c.IsNil() {
			if !r.gr.Flow.Dominates(j, ret) {
				return false
			}
			nils++
			continue
		}
		if !r.nonNilError(v, ret, 2) {
			return false
		}
	}
	return nils > 0
}

// nonNilError reports whether the error v, returned by ret, cannot be nil:
// an interface made from a concrete value, a package-level error variable
// (a sentinel such as io.EOF), an error made by errors.New or fmt.Errorf,
// ctx.Err() returned from the case of a select that received from the same
// ctx's Done(), or a phi of such values (depth levels down).
func (r *Result) nonNilError(v ssa.Value, ret *ssa.Return, depth int) bool {
	switch v := v.(type) {
	case *ssa.MakeInterface:
		return true
	case *ssa.UnOp:
		_, global := v.X.(*ssa.Global)
		return v.Op == token.MUL && global
	case *ssa.Phi:
		if depth == 0 {
			return false
		}
		for _, e := range v.Edges {
			if !r.nonNilError(e, ret, depth-1) {
				return false
			}
		}
		return true
	case *ssa.Call:
		if callee := v.Call.StaticCallee(); callee != nil && callee.Pkg != nil {
			switch callee.Pkg.Pkg.Path() + "." + callee.Name() {
			case "errors.New", "fmt.Errorf":
				return true
			}
		}
		return r.gr.Flow.ErrAfterDone(v, ret)
	}
	return false
}

// nilBranches returns the first instruction of each branch that the
// caller takes only when the error result of call is nil: the block of
// an `if err != nil` test's else (or of `if err == nil`'s then) that the
// test alone leads to.
func nilBranches(call *ssa.Call) []ssa.Instruction {
	res := call.Call.Signature().Results()
	if res.Len() == 0 || !isError(res.At(res.Len()-1).Type()) {
		return nil
	}
	errs := []ssa.Value{call}
	if res.Len() > 1 {
		errs = nil
		for _, ref := range *call.Referrers() {
			if ex, ok := ref.(*ssa.Extract); ok && ex.Index == res.Len()-1 {
				errs = append(errs, ex)
			}
		}
	}
	var out []ssa.Instruction
	for _, e := range errs {
		for _, ref := range *e.Referrers() {
			cmp, ok := ref.(*ssa.BinOp)
			if !ok || (cmp.Op != token.EQL && cmp.Op != token.NEQ) {
				continue
			}
			other := cmp.Y
			if other == ssa.Value(e) {
				other = cmp.X
			}
			if c, ok := other.(*ssa.Const); !ok || !c.IsNil() {
				continue
			}
			for _, u := range *cmp.Referrers() {
				ifi, ok := u.(*ssa.If)
				if !ok {
					continue
				}
				succ := ifi.Block().Succs[1] // err != nil is false
				if cmp.Op == token.EQL {
					succ = ifi.Block().Succs[0] // err == nil is true
				}
				if len(succ.Preds) == 1 && len(succ.Instrs) > 0 {
					out = append(out, succ.Instrs[0])
				}
			}
		}
	}
	return out
}

func isError(t types.Type) bool {
	return types.Identical(t, types.Universe.Lookup("error").Type())
}
