package fixes

import (
	"cmp"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"slices"
	"testing"

	"golang.org/x/tools/go/analysis"
)

// apply applies edits, which do not overlap, to src.
func apply(fset *token.FileSet, src []byte, edits []analysis.TextEdit) string {
	out := string(src)
	// From the last edit to the first, so offsets stay true.
	slices.SortFunc(edits, func(a, b analysis.TextEdit) int { return cmp.Compare(a.Pos, b.Pos) })
	for i := len(edits) - 1; i >= 0; i-- {
		e := edits[i]
		from, to := fset.Position(e.Pos).Offset, fset.Position(e.End).Offset
		out = out[:from] + string(e.NewText) + out[to:]
	}
	return out
}

// TestMoveBefore moves the statement after each go statement above it,
// where the layout allows.
func TestMoveBefore(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{"\tgo f()\n\tg()\n", "\tg()\n\tgo f()\n"},
		{"\tgo f()\n\tg() // why\n\th()\n", "\tg() // why\n\tgo f()\n\th()\n"},
		{"\tswitch {\n\tcase true:\n\t\tgo f()\n\t\tg()\n\t}\n", "\tswitch {\n\tcase true:\n\t\tg()\n\t\tgo f()\n\t}\n"},
		{"\tgo f()\n\tg(\n\t\t1)\n", "\tg(\n\t\t1)\n\tgo f()\n"},
		{"\tgo f(); g()\n", ""},            // not on lines of their own
		{"\tgo f()\n\tg(); h()\n", ""},     // another statement follows on its line
		{"\tgo f()\n\tg() /* c */ \n", ""}, // a block comment is not moved
	} {
		src := []byte("package p\n\nfunc f()            {}\nfunc g(...int)      {}\nfunc h()            {}\nfunc x() {\n" + tc.body + "}\n")
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, "p.go", src, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		pass := &analysis.Pass{Fset: fset, ReadFile: func(name string) ([]byte, error) {
			if name != "p.go" {
				return nil, os.ErrNotExist
			}
			return src, nil
		}}
		var goStmt *ast.GoStmt
		ast.Inspect(file, func(n ast.Node) bool {
			if g, ok := n.(*ast.GoStmt); ok {
				goStmt = g
			}
			return true
		})
		next := Next(file, goStmt)
		if next == nil {
			t.Fatalf("%q: no statement after the go statement", tc.body)
		}
		edits, ok := MoveBefore(pass, next, goStmt)
		if !ok {
			if tc.want != "" {
				t.Errorf("%q: refused, want %q", tc.body, tc.want)
			}
			continue
		}
		got := apply(fset, src, edits)
		want := string(src[:len(src)-len(tc.body)-2]) + tc.want + "}\n"
		if tc.want == "" || got != want {
			t.Errorf("%q: moved to\n%s\nwant\n%s", tc.body, got, want)
		}
	}
}
