package rewrite

import (
	"go/ast"
	"go/types"
)

// bufferMethods are the methods of bytes.Buffer and strings.Builder, whose
// code is not instrumented, as a read (false) or a write (true) of the
// receiver. A call of one is recorded as that access of the receiver, at
// the call:
//
//	buf.String()          precog_rt.Reading(S, &buf).String()
//	buf.WriteString(s)    precog_rt.Writing(S, &buf).WriteString(s)
//
// The access's site names no variable (its expression is the call), so it
// matches any access to the buffer's address: the writes shim/rt/exec.go
// records for os/exec's copying goroutines, at the user's Start or Run.
var bufferMethods = map[string]bool{}

func init() {
	for _, m := range []string{"Bytes", "String", "Len", "Cap", "Available", "AvailableBuffer"} {
		bufferMethods["bytes.Buffer."+m] = false
	}
	for _, m := range []string{"Write", "WriteString", "WriteByte", "WriteRune", "ReadFrom", "WriteTo",
		"Grow", "Reset", "Truncate", "Read", "ReadByte", "ReadRune", "ReadBytes", "ReadString", "Next",
		"UnreadByte", "UnreadRune"} {
		bufferMethods["bytes.Buffer."+m] = true
	}
	for _, m := range []string{"String", "Len", "Cap"} {
		bufferMethods["strings.Builder."+m] = false
	}
	for _, m := range []string{"Write", "WriteString", "WriteByte", "WriteRune", "Grow", "Reset"} {
		bufferMethods["strings.Builder."+m] = true
	}
}

// bufferCall rewrites the call c of a bytes.Buffer or strings.Builder
// method (key) into an access of its receiver followed by the call, when
// the buffer is one this file hands to os/exec as a command's Stdout or
// Stderr (execOutputs), or when every access is recorded (Options.Shared
// nil). It reports whether it did; its arguments are left to the caller.
//
// The shared-location analysis does not see these buffers: the goroutine
// that writes them runs in os/exec. A buffer that only the program's own
// goroutines share is not modeled yet.
func (r *rewriter) bufferCall(c *ast.CallExpr, se *ast.SelectorExpr, sel *types.Selection, key string) bool {
	write, ok := bufferMethods[key]
	if !ok {
		return false
	}
	if r.opts.Shared != nil && !r.execOutputs()[r.rootObj(se.X)] {
		return false
	}
	amp, suffix, ok := r.recvPath(se.X, sel, false)
	if !ok {
		return false
	}
	if amp == "" {
		r.expr(se.X)
	} else {
		r.addr(se.X)
	}
	kind, fn := "read", "Reading"
	if write {
		kind, fn = "write", "Writing"
	}
	s := r.site(se.Sel.Pos(), kind, c)
	lo, hi := r.span(se.X)
	r.ed.open(lo, hi, lit(r.rt(fn)+"("+s+", "+amp))
	r.ed.close(lo, hi, lit(suffix+")"))
	return true
}

// execOutputs returns the objects (variables, fields) whose value or
// address the file stores into the Stdout or Stderr of an os/exec.Cmd:
// cmd.Stdout = &buf, cmd.Stderr = b, exec.Cmd{Stdout: &s.out}. Computed
// once per file.
func (r *rewriter) execOutputs() map[types.Object]bool {
	if r.execOut != nil {
		return r.execOut
	}
	r.execOut = map[types.Object]bool{}
	isOutput := func(obj types.Object) bool {
		v, ok := obj.(*types.Var)
		return ok && v.IsField() && v.Pkg() != nil && v.Pkg().Path() == "os/exec" &&
			(v.Name() == "Stdout" || v.Name() == "Stderr")
	}
	add := func(e ast.Expr) {
		if obj := r.rootObj(e); obj != nil {
			r.execOut[obj] = true
		}
	}
	ast.Inspect(r.file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if len(n.Lhs) != len(n.Rhs) {
				return true
			}
			for i, l := range n.Lhs {
				if se, ok := ast.Unparen(l).(*ast.SelectorExpr); ok {
					if sel := r.info.Selections[se]; sel != nil && sel.Kind() == types.FieldVal && isOutput(sel.Obj()) {
						add(n.Rhs[i])
					}
				}
			}
		case *ast.KeyValueExpr:
			if id, ok := n.Key.(*ast.Ident); ok {
				if obj := r.info.Uses[id]; obj != nil && isOutput(obj) {
					add(n.Value)
				}
			}
		}
		return true
	})
	return r.execOut
}

// rootObj returns the variable or field an expression names, through
// parentheses, & and *: buf for &buf, out for &s.out and s.out. Nil if it
// names none.
func (r *rewriter) rootObj(e ast.Expr) types.Object {
	for {
		switch x := ast.Unparen(e).(type) {
		case *ast.UnaryExpr:
			if x.Op.String() != "&" {
				return nil
			}
			e = x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.Ident:
			if v, ok := r.info.Uses[x].(*types.Var); ok {
				return v
			}
			return nil
		case *ast.SelectorExpr:
			if sel := r.info.Selections[x]; sel != nil && sel.Kind() == types.FieldVal {
				return sel.Obj()
			}
			if v, ok := r.info.Uses[x.Sel].(*types.Var); ok { // a qualified package variable
				return v
			}
			return nil
		default:
			return nil
		}
	}
}
