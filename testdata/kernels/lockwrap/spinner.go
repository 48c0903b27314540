package lockwrap

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// Spinner is pterm's spinner (held-out rehearsal 53): an animation
// goroutine draws frames of the text that UpdateText sets, under a
// mutex that the helpers take. Each critical section is a whole
// operation: UpdateText's sets the text and reads the frame to redraw
// with, the animation's reads the text and sets the frame, and isActive
// and Stop read and set the flag the animation runs on. Whichever runs
// first, the spinner shows the new text at once or on the next frame:
// precog test must report nothing (with the sections recorded at the
// helpers' lines, OSCS reported the animation's read of the text against
// UpdateText's write and isActive's read of the flag against Stop's, as
// order violations: two of pterm's 4 false findings).
type Spinner struct {
	mu     *sync.RWMutex
	text   string
	frame  string
	active bool
	stop   chan struct{}
	done   chan struct{}
	w      io.Writer
}

// frames are the spinner's frames.
var frames = []string{"|", "/", "-", `\`}

// lock locks the spinner's mutex, allocating it on first use.
func (s *Spinner) lock() {
	if s.mu == nil {
		s.mu = &sync.RWMutex{}
	}
	s.mu.Lock()
}

func (s *Spinner) unlock()  { s.mu.Unlock() }
func (s *Spinner) rlock()   { s.mu.RLock() }
func (s *Spinner) runlock() { s.mu.RUnlock() }

// StartSpinner starts a spinner writing to w.
func StartSpinner(w io.Writer, text string) *Spinner {
	s := &Spinner{text: text, active: true, stop: make(chan struct{}), done: make(chan struct{}), w: w}
	s.lock()
	s.unlock()
	go s.run()
	return s
}

// isActive reports whether the spinner runs.
func (s *Spinner) isActive() bool {
	s.rlock()
	defer s.runlock()
	return s.active
}

// run draws a frame every millisecond until Stop.
func (s *Spinner) run() {
	defer close(s.done)
	for s.isActive() {
		for _, f := range frames {
			s.lock()
			text := s.text
			s.frame = f
			s.unlock()
			fmt.Fprintf(s.w, "\r%s %s", f, text)
			select {
			case <-s.stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}
}

// UpdateText sets the text, and redraws the current frame with it.
func (s *Spinner) UpdateText(text string) {
	s.lock()
	s.text = text
	frame := s.frame
	s.unlock()
	fmt.Fprintf(s.w, "\r%s %s", frame, text)
}

// Stop stops the animation and waits for it.
func (s *Spinner) Stop() {
	s.lock()
	s.active = false
	s.unlock()
	close(s.stop)
	<-s.done
}
