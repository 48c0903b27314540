// Package fixes builds the text edits of precog's suggested fixes, the
// repairs that go vet -fix and golangci-lint --fix apply. A fix is
// offered only where the repair is mechanical: the edits must leave a
// program that compiles and means what the author meant, the bug aside.
// The checks decide when that holds; this package only moves text, and
// refuses layouts it cannot move cleanly.
package fixes

import (
	"bytes"
	"go/ast"
	"go/token"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/astutil"
)

// Next returns the statement that follows s in the statement list that
// holds it (a block, a case or a select clause), or nil.
func Next(file *ast.File, s ast.Stmt) ast.Stmt {
	path, _ := astutil.PathEnclosingInterval(file, s.Pos(), s.End())
	var list []ast.Stmt
	for _, n := range path {
		if n == ast.Node(s) {
			continue
		}
		switch n := n.(type) {
		case *ast.BlockStmt:
			list = n.List
		case *ast.CaseClause:
			list = n.Body
		case *ast.CommClause:
			list = n.Body
		default:
			continue
		}
		break
	}
	for i, x := range list {
		if x == s && i+1 < len(list) {
			return list[i+1]
		}
	}
	return nil
}

// MoveBefore returns the edits that move stmt, whole lines with its
// trailing comment, to the line of before, at before's indentation. Both
// must start their lines, and stmt must end its line (a comment may
// follow); otherwise it returns false.
func MoveBefore(pass *analysis.Pass, stmt, before ast.Stmt) ([]analysis.TextEdit, bool) {
	tf := pass.Fset.File(stmt.Pos())
	if tf == nil || pass.Fset.File(before.Pos()) != tf || pass.ReadFile == nil {
		return nil, false
	}
	src, err := pass.ReadFile(tf.Name())
	if err != nil || tf.Size() != len(src) {
		return nil, false
	}
	off := func(p token.Pos) int { return tf.Offset(p) }
	lineStart := func(p token.Pos) int { return off(tf.LineStart(tf.Line(p))) }
	blank := func(b []byte) bool { return len(bytes.TrimLeft(b, " \t")) == 0 }

	from, start, end := lineStart(stmt.Pos()), off(stmt.Pos()), off(stmt.End())
	to, at := lineStart(before.Pos()), off(before.Pos())
	if !blank(src[from:start]) || !blank(src[to:at]) {
		return nil, false
	}
	// The rest of stmt's last line: blanks, then at most a // comment.
	eol := bytes.IndexByte(src[end:], '\n')
	if eol < 0 {
		return nil, false
	}
	rest := bytes.TrimLeft(src[end:end+eol], " \t")
	if len(rest) > 0 && !bytes.HasPrefix(rest, []byte("//")) {
		return nil, false
	}
	through := end + eol + 1
	moved := append(append([]byte(nil), src[to:at]...), src[start:through]...)
	pos := func(o int) token.Pos { return tf.Pos(o) }
	return []analysis.TextEdit{
		{Pos: pos(to), End: pos(to), NewText: moved},
		{Pos: pos(from), End: pos(through)},
	}, true
}
