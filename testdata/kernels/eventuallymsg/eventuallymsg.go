// Package eventuallymsg has a stream whose counters its association's
// goroutine clears on a reset from the peer, and tests that wait for the
// reset with testify's require.Eventually, as pion/sctp's
// TestAssocResetResetsInterleavingCounters does (association_test.go:4592:
// the condition copies the counters into the test's variables, and the
// assertion's message prints them).
//
// This is a negative control, with one bug in its test. Go evaluates a
// call's arguments before the call begins, and testify runs the condition
// only inside the call, on goroutines of its own: the message arguments'
// reads of the variables come before every run of the condition that
// writes them. precog test reported them (a race and a con-uninit for
// each variable) while the instrumenter forked the condition's first run
// at the condition argument, before the message was evaluated; it now
// forks it at the call's last argument that is not a constant (issue 18,
// held-out rehearsal 18's sctp). The bug, in the same test: a run of
// assert.Never's condition outlives the call (the call returns at its
// deadline, the run is still in its sleep), and the test reads what the
// run writes before waiting for it: reported.
package eventuallymsg

import "sync"

// Stream numbers the messages it sends.
type Stream struct {
	mu  sync.RWMutex
	seq uint16
	mid uint32
}

// NewStream returns a stream whose numbering starts at seq and mid.
func NewStream(seq uint16, mid uint32) *Stream {
	return &Stream{seq: seq, mid: mid}
}

// Counters returns the stream's sequence number and message id.
func (s *Stream) Counters() (uint16, uint32) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.seq, s.mid
}

// Association handles its peer's resets on a goroutine of its own.
type Association struct {
	resets chan *Stream
	done   chan struct{}
}

// NewAssociation starts the association's goroutine.
func NewAssociation() *Association {
	a := &Association{resets: make(chan *Stream), done: make(chan struct{})}
	go a.loop()
	return a
}

func (a *Association) loop() {
	defer close(a.done)
	for s := range a.resets {
		s.mu.Lock()
		s.seq, s.mid = 0, 0
		s.mu.Unlock()
	}
}

// Reset hands s to the association's goroutine, which clears its counters.
func (a *Association) Reset(s *Stream) { a.resets <- s }

// Close stops the association's goroutine and waits for it.
func (a *Association) Close() {
	close(a.resets)
	<-a.done
}
