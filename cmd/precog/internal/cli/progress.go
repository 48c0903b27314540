package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
)

// A Progress line shows what a long command is doing on a terminal: one
// line, rewritten in place. When the writer is not a terminal (or TERM is
// dumb) it prints nothing, so logs of CI runs hold only the summary.
type Progress struct {
	w    io.Writer
	on   bool
	last int // length of the line shown
}

// NewProgress returns a Progress line on w.
func NewProgress(w io.Writer) *Progress {
	f, ok := w.(*os.File)
	if !ok {
		return &Progress{w: w}
	}
	fi, err := f.Stat()
	return &Progress{w: w, on: err == nil && fi.Mode()&os.ModeCharDevice != 0 && os.Getenv("TERM") != "dumb"}
}

// Off turns the line off for good: for output, such as the tests' own,
// that it would garble.
func (p *Progress) Off() {
	p.Clear()
	p.on = false
}

// Status shows s, cut to 100 bytes, in place of the line shown before.
func (p *Progress) Status(s string) {
	if !p.on {
		return
	}
	if len(s) > 100 {
		s = s[:97] + "..."
	}
	pad := max(p.last-len(s), 0)
	fmt.Fprintf(p.w, "\r%s%s", s, strings.Repeat(" ", pad))
	p.last = len(s)
}

// Clear removes the line.
func (p *Progress) Clear() {
	if p.on && p.last > 0 {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.last))
		p.last = 0
	}
}
