// Package source renders the user's own code in diagnostics: the source
// text of the expression at a position, and short names of functions.
package source

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/internal/ssaflow"
	"github.com/precog-dev/precog/analyzers/internal/ssavalue"
)

// MaxExprLen bounds the length of rendered expressions; longer ones are
// elided in the middle.
const MaxExprLen = 60

// Expr returns the source text of the smallest expression of kind
// selector, index, slice, star, call or identifier that encloses pos, or
// "" if there is none.
func Expr(pass *analysis.Pass, pos token.Pos) string {
	if e := Node(pass, pos); e != nil {
		return Render(e)
	}
	return ""
}

// Render returns the source text of e, shortened to MaxExprLen.
func Render(e ast.Expr) string {
	return render(types.ExprString(e))
}

// Node returns the smallest selector, index, slice, star, call or
// identifier expression that encloses pos, or nil.
func Node(pass *analysis.Pass, pos token.Pos) ast.Expr {
	if !pos.IsValid() {
		return nil
	}
	for _, f := range pass.Files {
		if f.FileStart > pos || pos >= f.FileEnd {
			continue
		}
		path, _ := astutil.PathEnclosingInterval(f, pos, pos)
		for i, n := range path {
			switch n := n.(type) {
			case *ast.SelectorExpr, *ast.IndexExpr, *ast.SliceExpr, *ast.StarExpr, *ast.CallExpr:
				return n.(ast.Expr)
			case *ast.Ident:
				// An identifier is rendered with its selector when it is
				// the selected name (x.f), and alone otherwise.
				if i+1 < len(path) {
					if sel, ok := path[i+1].(*ast.SelectorExpr); ok && sel.Sel == n {
						continue
					}
				}
				return n
			case ast.Stmt, ast.Decl:
				return nil
			}
		}
	}
	return nil
}

// Innermost returns the innermost node of type T that encloses pos.
func Innermost[T ast.Node](pass *analysis.Pass, pos token.Pos) (T, bool) {
	var zero T
	if !pos.IsValid() {
		return zero, false
	}
	for _, f := range pass.Files {
		if f.FileStart > pos || pos >= f.FileEnd {
			continue
		}
		path, _ := astutil.PathEnclosingInterval(f, pos, pos)
		for _, n := range path {
			if t, ok := n.(T); ok {
				return t, true
			}
		}
	}
	return zero, false
}

func render(s string) string {
	if len(s) <= MaxExprLen {
		return s
	}
	half := (MaxExprLen - 3) / 2
	return s[:half] + "..." + s[len(s)-half:]
}

// Call returns the call expression of the call, go or defer statement
// at pos.
func Call(pass *analysis.Pass, pos token.Pos) (*ast.CallExpr, bool) {
	if d, ok := Innermost[*ast.DeferStmt](pass, pos); ok && d.Defer == pos {
		return d.Call, true
	}
	if g, ok := Innermost[*ast.GoStmt](pass, pos); ok && g.Go == pos {
		return g.Call, true
	}
	return Innermost[*ast.CallExpr](pass, pos)
}

// End returns the position of the closing brace of fn's body, where an
// implicit return happens, or fn's position if it has no syntax.
func End(fn *ssa.Function) token.Pos {
	switch syn := fn.Syntax().(type) {
	case *ast.FuncDecl:
		if syn.Body != nil {
			return syn.Body.Rbrace
		}
	case *ast.FuncLit:
		return syn.Body.Rbrace
	}
	return fn.Pos()
}

// FuncName returns a short, readable name for fn: "f", "(*T).m", "T.m",
// "func literal in f" for a closure declared in f, or "range-over-func
// body in f" for the body of such a loop in f, which go/ssa makes a
// closure though the source has no func literal there.
func FuncName(fn *ssa.Function) string {
	if fn == nil {
		return "?"
	}
	if ssaflow.RangeBody(fn) {
		return "range-over-func body in " + FuncName(Outermost(fn))
	}
	if m := ssavalue.BoundMethod(fn); m != nil {
		return FuncName(m) // a method value's wrapper
	}
	if fn.Parent() != nil {
		return "func literal in " + FuncName(Outermost(fn))
	}
	name := fn.Name()
	if recv := fn.Signature.Recv(); recv != nil {
		t := recv.Type()
		ptr := ""
		if p, ok := t.(*types.Pointer); ok {
			t, ptr = p.Elem(), "*"
		}
		tn := types.TypeString(t, func(*types.Package) string { return "" })
		if i := strings.IndexByte(tn, '['); i >= 0 {
			tn = tn[:i]
		}
		if ptr != "" {
			return "(*" + tn + ")." + name
		}
		return tn + "." + name
	}
	return name
}

// Outermost returns the function declaration that fn is, or that
// declares the function literal fn (at any depth).
func Outermost(fn *ssa.Function) *ssa.Function {
	for fn.Parent() != nil {
		fn = fn.Parent()
	}
	return fn
}

// Within reports whether fn is a function literal declared in outer, at
// any depth.
func Within(fn, outer *ssa.Function) bool {
	for p := fn.Parent(); p != nil; p = p.Parent() {
		if p == outer {
			return true
		}
	}
	return false
}

// InTestFile reports whether pos is in a _test.go file.
func InTestFile(fset *token.FileSet, pos token.Pos) bool {
	return pos.IsValid() && strings.HasSuffix(fset.File(pos).Name(), "_test.go")
}
