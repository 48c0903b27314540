// Package nilclose: a goroutine per substream closes the substream's
// channel and sets the field to nil; the run goroutine sends on the field
// only after it waited for those goroutines and found the field not nil
// (etcd's waitCancelSubstreams and the resume after it). The send reads
// the nil, or a channel made later, never the closed one: silent. Near
// misses are reported: the nil stored on one path only, a field that is
// also given a channel made elsewhere or one make's channel twice, a struct copied by value, and a
// send not ordered after the nil store.
package nilclose

import "sync"

type sub struct{ outc chan int }

type Watcher struct {
	reqc chan bool
	subs []*sub
}

func New() *Watcher {
	w := &Watcher{reqc: make(chan bool)}
	go w.run()
	return w
}

func (w *Watcher) Cancel(all bool) { w.reqc <- all }

func (w *Watcher) run() {
	for all := range w.reqc {
		w.subs = append(w.subs, &sub{outc: make(chan int, 1)})
		w.cancel(all)
	}
}

func (w *Watcher) cancel(all bool) {
	var wg sync.WaitGroup
	for _, s := range w.subs {
		wg.Add(1)
		go func(s *sub) {
			defer wg.Done()
			if all {
				close(s.outc)
				s.outc = nil
			}
		}(s)
	}
	wg.Wait()
	for _, s := range w.subs {
		if s.outc != nil {
			select {
			case s.outc <- 1:
			default:
			}
		}
	}
}

// OnePath sets the field to nil on one path after the close only.
type onePath struct{ outc chan int }

type OnePath struct {
	reqc chan bool
	subs []*onePath
}

func NewOnePath() *OnePath {
	w := &OnePath{reqc: make(chan bool)}
	go w.run()
	return w
}

func (w *OnePath) Cancel(all bool) { w.reqc <- all }

func (w *OnePath) run() {
	for all := range w.reqc {
		w.subs = append(w.subs, &onePath{outc: make(chan int, 1)})
		w.cancel(all)
	}
}

func (w *OnePath) cancel(all bool) {
	var wg sync.WaitGroup
	for _, s := range w.subs {
		wg.Add(1)
		go func(s *onePath) {
			defer wg.Done()
			close(s.outc)
			if all {
				s.outc = nil
			}
		}(s)
	}
	wg.Wait()
	for _, s := range w.subs {
		if s.outc != nil {
			s.outc <- 1 // want `send on closed channel: s\.outc may be closed concurrently by func literal in \(\*OnePath\)\.cancel`
		}
	}
}

// Shared gives its field a channel that another substream holds too.
type shared struct{ outc chan int }

type Shared struct {
	reqc chan bool
	subs []*shared
}

func NewShared() *Shared {
	w := &Shared{reqc: make(chan bool)}
	go w.run()
	return w
}

func (w *Shared) Cancel(all bool) { w.reqc <- all }

func (w *Shared) run() {
	for all := range w.reqc {
		s := &shared{outc: make(chan int, 1)}
		w.subs = append(w.subs, s, &shared{outc: s.outc})
		w.cancel(all)
	}
}

func (w *Shared) cancel(all bool) {
	var wg sync.WaitGroup
	for _, s := range w.subs {
		wg.Add(1)
		go func(s *shared) {
			defer wg.Done()
			if all {
				close(s.outc)
				s.outc = nil
			}
		}(s)
	}
	wg.Wait()
	for _, s := range w.subs {
		if s.outc != nil {
			s.outc <- 1 // want `send on closed channel: s\.outc may be closed concurrently by func literal in \(\*Shared\)\.cancel`
		}
	}
}

// Copied copies a substream by value: the copy's field holds the channel
// the original's close closed.
type copied struct{ outc chan int }

type Copied struct {
	reqc chan bool
	subs []*copied
}

func NewCopied() *Copied {
	w := &Copied{reqc: make(chan bool)}
	go w.run()
	return w
}

func (w *Copied) Cancel(all bool) { w.reqc <- all }

func (w *Copied) run() {
	for all := range w.reqc {
		s := &copied{outc: make(chan int, 1)}
		c := *s
		w.subs = append(w.subs, s, &c)
		w.cancel(all)
	}
}

func (w *Copied) cancel(all bool) {
	var wg sync.WaitGroup
	for _, s := range w.subs {
		wg.Add(1)
		go func(s *copied) {
			defer wg.Done()
			if all {
				close(s.outc)
				s.outc = nil
			}
		}(s)
	}
	wg.Wait()
	for _, s := range w.subs {
		if s.outc != nil {
			s.outc <- 1 // want `send on closed channel: s\.outc may be closed concurrently by func literal in \(\*Copied\)\.cancel`
		}
	}
}

// Looped stores one make's channel in two substreams: a store in a loop
// that the make is outside of.
type looped struct{ outc chan int }

type Looped struct {
	reqc chan bool
	subs []*looped
}

func NewLooped() *Looped {
	w := &Looped{reqc: make(chan bool)}
	go w.run()
	return w
}

func (w *Looped) Cancel(all bool) { w.reqc <- all }

func (w *Looped) run() {
	for all := range w.reqc {
		ch := make(chan int, 1)
		for range 2 {
			w.subs = append(w.subs, &looped{outc: ch})
		}
		w.cancel(all)
	}
}

func (w *Looped) cancel(all bool) {
	var wg sync.WaitGroup
	for _, s := range w.subs {
		wg.Add(1)
		go func(s *looped) {
			defer wg.Done()
			if all {
				close(s.outc)
				s.outc = nil
			}
		}(s)
	}
	wg.Wait()
	for _, s := range w.subs {
		if s.outc != nil {
			s.outc <- 1 // want `send on closed channel: s\.outc may be closed concurrently by func literal in \(\*Looped\)\.cancel`
		}
	}
}

// Twice stores one make's channel in two substreams, by two stores.
type twice struct{ outc chan int }

type Twice struct {
	reqc chan bool
	subs []*twice
}

func NewTwice() *Twice {
	w := &Twice{reqc: make(chan bool)}
	go w.run()
	return w
}

func (w *Twice) Cancel(all bool) { w.reqc <- all }

func (w *Twice) run() {
	for all := range w.reqc {
		ch := make(chan int, 1)
		w.subs = append(w.subs, &twice{outc: ch}, &twice{outc: ch})
		w.cancel(all)
	}
}

func (w *Twice) cancel(all bool) {
	var wg sync.WaitGroup
	for _, s := range w.subs {
		wg.Add(1)
		go func(s *twice) {
			defer wg.Done()
			if all {
				close(s.outc)
				s.outc = nil
			}
		}(s)
	}
	wg.Wait()
	for _, s := range w.subs {
		if s.outc != nil {
			s.outc <- 1 // want `send on closed channel: s\.outc may be closed concurrently by func literal in \(\*Twice\)\.cancel`
		}
	}
}

// Unjoined sends without waiting for the goroutines: the send may read
// the channel before the close.
type unjoined struct{ outc chan int }

type Unjoined struct {
	reqc chan bool
	subs []*unjoined
}

func NewUnjoined() *Unjoined {
	w := &Unjoined{reqc: make(chan bool)}
	go w.run()
	return w
}

func (w *Unjoined) Cancel(all bool) { w.reqc <- all }

func (w *Unjoined) run() {
	for all := range w.reqc {
		w.subs = append(w.subs, &unjoined{outc: make(chan int, 1)})
		w.cancel(all)
	}
}

func (w *Unjoined) cancel(all bool) {
	var wg sync.WaitGroup
	for _, s := range w.subs {
		wg.Add(1)
		go func(s *unjoined) {
			defer wg.Done()
			if all {
				close(s.outc)
				s.outc = nil
			}
		}(s)
	}
	for _, s := range w.subs {
		if s.outc != nil {
			s.outc <- 1 // want `send on closed channel: s\.outc may be closed concurrently by func literal in \(\*Unjoined\)\.cancel`
		}
	}
	wg.Wait()
}

// Pointed puts one substream's channel into another's field through a
// pointer to that field: the send through the second substream's field
// goes on the channel the first one's close closed.
type pointed struct{ outc chan int }

type Pointed struct {
	reqc chan bool
	subs []*pointed
}

func NewPointed() *Pointed {
	w := &Pointed{reqc: make(chan bool)}
	go w.run()
	return w
}

func (w *Pointed) Cancel(all bool) { w.reqc <- all }

func setc(p *chan int, c chan int) { *p = c }

func (w *Pointed) run() {
	for all := range w.reqc {
		s0, s1 := &pointed{outc: make(chan int, 1)}, &pointed{}
		setc(&s1.outc, s0.outc)
		w.subs = append(w.subs, s0, s1)
		w.cancel(all)
	}
}

func (w *Pointed) cancel(all bool) {
	var wg sync.WaitGroup
	for i, s := range w.subs {
		wg.Add(1)
		go func(s *pointed) {
			defer wg.Done()
			if all && i%2 == 0 {
				close(s.outc)
				s.outc = nil
			}
		}(s)
	}
	wg.Wait()
	for _, s := range w.subs {
		if s.outc != nil {
			s.outc <- 1 // want `send on closed channel: s\.outc may be closed concurrently by func literal in \(\*Pointed\)\.cancel`
		}
	}
}
