package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// A Progress line shows what a long command is doing on a terminal: one
// line, rewritten in place. When the writer is not a terminal (or TERM is
// dumb) the line is off, so that a CI log does not fill with carriage
// returns; Every prints a plain line there instead, now and then.
type Progress struct {
	mu   sync.Mutex
	w    io.Writer
	on   bool
	last int // length of the line shown

	stop chan struct{} // closed by Clear or Off to end Every's ticker
	done chan struct{} // closed when the ticker has ended
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
	p.mu.Lock()
	p.on = false
	p.mu.Unlock()
}

// Status shows s, cut to 100 bytes, in place of the line shown before.
func (p *Progress) Status(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
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

// Every prints line() on a line of its own every d, until Clear or Off,
// when the writer is not a terminal: the progress of a run in a CI log,
// where the line that Status rewrites is off. It does nothing on a
// terminal, or if d is not positive. line is called from another
// goroutine.
func (p *Progress) Every(d time.Duration, line func() string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.on || d <= 0 || p.stop != nil {
		return
	}
	p.stop, p.done = make(chan struct{}), make(chan struct{})
	go func(stop, done chan struct{}) {
		defer close(done)
		t := time.NewTicker(d)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				s := line()
				p.mu.Lock()
				fmt.Fprintln(p.w, s)
				p.mu.Unlock()
			}
		}
	}(p.stop, p.done)
}

// Clear removes the line, and ends the plain lines of Every.
func (p *Progress) Clear() {
	p.mu.Lock()
	stop, done := p.stop, p.done
	p.stop, p.done = nil, nil
	if p.on && p.last > 0 {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.last))
		p.last = 0
	}
	p.mu.Unlock()
	if stop != nil {
		close(stop)
		<-done
	}
}

// A Status is the last line a command showed and when the command began,
// for Every's plain lines: "progress at 1m30s: <the line>".
type Status struct {
	start time.Time
	mu    sync.Mutex
	last  string
}

// NewStatus returns a Status that began at start and shows line.
func NewStatus(start time.Time, line string) *Status { return &Status{start: start, last: line} }

// Set replaces the line.
func (s *Status) Set(line string) {
	s.mu.Lock()
	s.last = line
	s.mu.Unlock()
}

// Line is the plain line of the status now.
func (s *Status) Line() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return fmt.Sprintf("progress at %s: %s", time.Since(s.start).Round(time.Second), s.last)
}
