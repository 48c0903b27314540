// Package handedfresh: an object that each invocation of a function makes
// afresh, touched by that invocation before it hands the object to a
// goroutine it starts, is touched by the goroutine only after: another
// invocation's goroutine has another object (vbauerster/mpb's Add: each
// operation makes a bState, isQueue may clear its waitFor, then the bar's
// goroutine serves it and clears it too). Silent, also in a loop that
// makes one object per turn; touched after the start, taken from a field,
// kept in a variable declared outside the loop that starts the goroutines,
// or returned by a constructor that may return a cached object, it is
// reported.
package handedfresh

import "sync"

type waiter struct{ done chan struct{} }

type state struct{ waitFor *waiter }

type Bar struct {
	n int
	s *state
}

type pState struct{ queued map[*waiter]*Bar }

type Progress struct {
	ops    chan func(*pState)
	done   chan struct{}
	wg     sync.WaitGroup
	shared *state
	cached *state
}

func New() *Progress {
	p := &Progress{ops: make(chan func(*pState)), done: make(chan struct{}), shared: &state{}, cached: &state{}}
	go p.serve()
	return p
}

func (p *Progress) serve() {
	s := &pState{queued: map[*waiter]*Bar{}}
	for {
		select {
		case op := <-p.ops:
			op(s)
		case <-p.done:
			return
		}
	}
}

func makeState(w *waiter) *state {
	s := &state{waitFor: w}
	return s
}

func (p *Progress) cachedState(w *waiter) *state {
	if p.cached != nil {
		return p.cached
	}
	return &state{waitFor: w}
}

func (s *state) isQueue() bool {
	if s.waitFor == nil {
		return false
	}
	select {
	case <-s.waitFor.done:
		s.waitFor = nil
		return false
	default:
		return true
	}
}

func (b *Bar) run(s *state) {
	defer func() { b.s = s }()
	if s.waitFor != nil {
		<-s.waitFor.done
		s.waitFor = nil
	}
}

// Add hands each operation's fresh state to the bar's goroutine after it
// is done with it.
func (p *Progress) Add(w *waiter) {
	select {
	case p.ops <- func(ps *pState) {
		s := makeState(w)
		b := &Bar{}
		if s.isQueue() {
			ps.queued[s.waitFor] = b
		}
		p.wg.Go(func() {
			b.run(s)
		})
	}:
	case <-p.done:
	}
}

// Start makes a state per turn of its loop, reads it, then starts the
// goroutine that clears it: each goroutine has its turn's state.
func (p *Progress) Start(ws []*waiter) {
	for _, w := range ws {
		s := makeState(w)
		if s.waitFor != nil {
			<-s.waitFor.done
		}
		go func() {
			s.waitFor = nil
		}()
	}
}

// Late reads the state after it started the goroutine that clears it.
func (p *Progress) Late(w *waiter) {
	s := makeState(w)
	go func() {
		s.waitFor = nil
	}()
	if s.waitFor != nil {
		<-s.waitFor.done // want `s\.waitFor may be nil when dereferenced here: func literal in \(\*Progress\)\.Late stores nil to it concurrently`
	}
}

// Shared hands every goroutine the one state of the Progress.
func (p *Progress) Shared(ws []*waiter) {
	for range ws {
		s := p.shared
		if s.waitFor != nil {
			<-s.waitFor.done // want `s\.waitFor may be nil when dereferenced here: func literal in \(\*Progress\)\.Shared stores nil to it concurrently`
		}
		go func() {
			s.waitFor = nil
		}()
	}
}

// Outside keeps the state in a variable declared outside the loop: a
// goroutine may read the variable after the next turn stored the next
// state in it.
func (p *Progress) Outside(ws []*waiter) {
	var s *state
	for _, w := range ws {
		s = makeState(w)
		if s.waitFor != nil {
			<-s.waitFor.done // want `s\.waitFor may be nil when dereferenced here: func literal in \(\*Progress\)\.Outside stores nil to it concurrently`
		}
		go func() {
			s.waitFor = nil
		}()
	}
}

// Cached may return the one cached state to every call.
func (p *Progress) Cached(ws []*waiter) {
	for _, w := range ws {
		s := p.cachedState(w)
		if s.waitFor != nil {
			<-s.waitFor.done // want `s\.waitFor may be nil when dereferenced here: func literal in \(\*Progress\)\.Cached stores nil to it concurrently`
		}
		go func() {
			s.waitFor = nil
		}()
	}
}
