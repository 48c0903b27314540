package rewrite

import (
	"bytes"
	"cmp"
	"go/scanner"
	"go/token"
	"slices"
	"strconv"
	"strings"
)

// The rewriter never reprints the syntax tree: it splices text into the
// original bytes of the file at known offsets. Everything that was in the
// file (comments, blank lines, formatting) stays, and every original token
// stays on its line, because inserted text contains no newlines and a
// replaced range keeps the newlines it had (they follow the replacement).
// So the line numbers of stacks, panics and the site table stay true
// without //line directives.

// An edit is one splice: it replaces the bytes [pos, end) of the original
// with text, or inserts text at pos when end == pos. Every edit belongs to
// a syntax node, whose span [npos, nend) orders the insertions at one
// offset: text closing a node comes before text closing its parent, text
// opening a node after text opening its parent. Two edits of one node are
// ordered by creation: a later edit belongs further out.
type edit struct {
	pos, end   int
	npos, nend int
	kind       editKind
	seq        int
	text       []piece
}

type editKind int

// At one offset, closings come first, then openings, then a replacement
// starting there: an opening at a replaced range's start belongs to a node
// around it (a call whose first argument is the range: PassLocal's
// `&precog_g, ` before `<-ch` replaced by a shim call), and rendered after
// the replacement it fell inside the range and was lost (fasthttp's
// releasePipelineWork(<-chs.chW) did not compile).
const (
	closing editKind = iota // text after a node ending at pos
	opening                 // text before a node starting at pos
	replace                 // text replacing [pos, end)
)

// A piece of an edit's text: a literal string, or a copy of the original
// range [lo, hi) rendered with the edits of the nodes inside it (for
// operands the rewritten code evaluates twice, such as x.f in x.f += 1).
type piece struct {
	s      string
	lo, hi int
	isCopy bool
}

func lit(s string) piece        { return piece{s: s} }
func copyOf(lo, hi int) piece   { return piece{lo: lo, hi: hi, isCopy: true} }
func texts(ps ...piece) []piece { return ps }
func strs(ss ...string) (ps []piece) {
	for _, s := range ss {
		ps = append(ps, lit(s))
	}
	return ps
}

// An editor collects the edits of one file and renders the result.
type editor struct {
	src   []byte
	edits []edit
}

func (e *editor) add(ed edit) {
	ed.seq = len(e.edits)
	e.edits = append(e.edits, ed)
}

// open inserts text before the node [npos, nend).
func (e *editor) open(npos, nend int, text ...piece) {
	e.add(edit{pos: npos, end: npos, npos: npos, nend: nend, kind: opening, text: text})
}

// close inserts text after the node [npos, nend).
func (e *editor) close(npos, nend int, text ...piece) {
	e.add(edit{pos: nend, end: nend, npos: npos, nend: nend, kind: closing, text: text})
}

// closeAt inserts text at pos on behalf of the node [npos, nend), which
// contains pos; it is ordered as a closing of that node.
func (e *editor) closeAt(pos, npos, nend int, text ...piece) {
	e.add(edit{pos: pos, end: pos, npos: npos, nend: nend, kind: closing, text: text})
}

// insert inserts text at pos on behalf of the node [npos, nend), which
// contains pos; it is ordered as an opening of that node.
func (e *editor) insert(pos, npos, nend int, text ...piece) {
	e.add(edit{pos: pos, end: pos, npos: npos, nend: nend, kind: opening, text: text})
}

// replace replaces [pos, end), which contains no node with edits, with
// text on behalf of the node [npos, nend). The newlines of the replaced
// bytes follow the text; see canReplace.
func (e *editor) replace(pos, end, npos, nend int, text ...piece) {
	if n := bytes.Count(e.src[pos:end], []byte("\n")); n > 0 {
		text = append(slices.Clone(text), lit(strings.Repeat("\n", n)))
	}
	e.add(edit{pos: pos, end: end, npos: npos, nend: nend, kind: replace, text: text})
}

// canReplace reports whether replacing [pos, end) by text, followed by
// the range's newlines, cannot end a statement early: the range has no
// newline, or text ends with a token after which Go inserts no semicolon.
func (e *editor) canReplace(pos, end int, text string) bool {
	if !bytes.Contains(e.src[pos:end], []byte("\n")) {
		return true
	}
	t := strings.TrimRight(text, " \t")
	return t != "" && strings.ContainsAny(t[len(t)-1:], ",(&|=+-*/%<>![{:^.")
}

func (e *editor) sort() {
	slices.SortStableFunc(e.edits, func(a, b edit) int {
		if c := cmp.Compare(a.pos, b.pos); c != 0 {
			return c
		}
		if c := cmp.Compare(a.kind, b.kind); c != 0 {
			return c
		}
		switch a.kind {
		case closing: // inner nodes first
			if c := cmp.Compare(b.npos, a.npos); c != 0 {
				return c
			}
			if c := cmp.Compare(a.nend, b.nend); c != 0 {
				return c
			}
			return cmp.Compare(a.seq, b.seq)
		default: // outer nodes first
			if c := cmp.Compare(b.nend, a.nend); c != 0 {
				return c
			}
			if c := cmp.Compare(a.npos, b.npos); c != 0 {
				return c
			}
			return cmp.Compare(b.seq, a.seq)
		}
	})
}

// render returns the rewritten file.
func (e *editor) render() []byte {
	e.sort()
	var buf bytes.Buffer
	e.renderRange(&buf, 0, len(e.src), false)
	return buf.Bytes()
}

// renderRange writes the original bytes [lo, hi) with the edits that fall
// in it; when inner, only with the edits of nodes within [lo, hi).
func (e *editor) renderRange(buf *bytes.Buffer, lo, hi int, inner bool) {
	at := lo
	for _, ed := range e.edits {
		if ed.pos < lo || ed.pos > hi || ed.pos < at {
			continue
		}
		if inner && (ed.npos < lo || ed.nend > hi) {
			continue
		}
		if ed.kind == replace && ed.end > hi {
			continue
		}
		buf.Write(e.src[at:ed.pos])
		at = ed.pos
		for _, p := range ed.text {
			if p.isCopy {
				var b bytes.Buffer
				e.renderRange(&b, p.lo, p.hi, true)
				buf.Write(oneLine(b.Bytes()))
			} else {
				buf.WriteString(p.s)
			}
		}
		if ed.kind == replace {
			at = ed.end
		}
	}
	if at < hi {
		buf.Write(e.src[at:hi])
	}
}

// oneLine returns the Go text b (a copied range, rendered) on one line
// with the same meaning, since inserted text holds no newlines: a newline
// that ends a statement (one where Go inserts a semicolon, in a copied
// function literal) becomes "; ", a line comment is blanked (it ran to
// the end of its line and would swallow the code after it: ttrpc's
// `case responses <- response{ // a comment ...}:` copied into a select's
// forcing prelude did not parse), a raw string holding a newline becomes
// the quoted string of its value, and every other newline a space.
func oneLine(b []byte) []byte {
	if bytes.IndexByte(b, '\n') < 0 {
		return b
	}
	var s scanner.Scanner
	fset := token.NewFileSet()
	f := fset.AddFile("", -1, len(b))
	bad := false
	s.Init(f, b, func(token.Position, string) { bad = true }, scanner.ScanComments)
	var out bytes.Buffer
	at := 0
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		off := f.Offset(pos)
		switch {
		case tok == token.SEMICOLON && lit == "\n":
			if off >= len(b) {
				continue // the end of the copy: the code around it goes on
			}
			out.Write(b[at:off])
			out.WriteString(";")
			at = off
			if b[off] == '\n' {
				out.WriteString(" ")
				at++
			}
		case tok == token.COMMENT && strings.HasPrefix(lit, "//"):
			out.Write(b[at:off])
			out.WriteString(strings.Repeat(" ", len(lit)))
			at = off + len(lit)
		case tok == token.STRING && strings.HasPrefix(lit, "`") && strings.Contains(lit, "\n"):
			out.Write(b[at:off])
			out.WriteString(strconv.Quote(strings.ReplaceAll(lit[1:len(lit)-1], "\r", "")))
			at = off + len(lit)
		}
	}
	if bad {
		return bytes.ReplaceAll(b, []byte("\n"), []byte(" "))
	}
	out.Write(b[at:])
	return bytes.ReplaceAll(out.Bytes(), []byte("\n"), []byte(" "))
}
