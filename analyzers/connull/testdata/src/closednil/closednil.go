// Package closednil: a flusher sets its queue field to nil once a receive
// finds the queue closed (go-metrics' statsd sink); Shutdown closes the
// queue. Shutdown's close crashes on that nil only where it would crash
// anyway (the queue was closed before), so Sink is silent: each sink's
// field holds one channel in its life. A sink whose queue is made again
// for the same object (Reopen), a nil store on a path that no closed
// receive leads to, or one after another channel's closed receive is
// reported.
package closednil

import "time"

type Sink struct{ queue chan string }

func NewSink() *Sink {
	s := &Sink{queue: make(chan string, 8)}
	go s.flush()
	return s
}

func (s *Sink) Shutdown() { close(s.queue) }

func (s *Sink) flush() {
	wait := time.After(time.Second)
	for {
		select {
		case m, ok := <-s.queue:
			if !ok {
				goto QUIT
			}
			_ = m
		case <-wait:
			for {
				m, ok := <-s.queue
				if !ok {
					goto QUIT
				}
				_ = m
			}
		}
	}
QUIT:
	s.queue = nil
}

type Reopen struct{ queue chan string }

func NewReopen() *Reopen {
	s := &Reopen{queue: make(chan string, 8)}
	go s.flush()
	return s
}

func (s *Reopen) Shutdown() { close(s.queue) } // want `s\.queue may be nil`

// Restart makes a new queue for the same sink: the old flusher may store
// nil over it.
func (s *Reopen) Restart() {
	s.queue = make(chan string, 8)
	go s.flush()
}

func (s *Reopen) flush() {
	wait := time.After(time.Second)
	for {
		select {
		case _, ok := <-s.queue:
			if !ok {
				goto QUIT
			}
		case <-wait:
			for {
				if _, ok := <-s.queue; !ok {
					goto QUIT
				}
			}
		}
	}
QUIT:
	s.queue = nil
}

type Early struct{ queue chan string }

func NewEarly(quit bool) *Early {
	s := &Early{queue: make(chan string, 8)}
	go s.flush(quit)
	return s
}

func (s *Early) Shutdown() { close(s.queue) } // want `s\.queue may be nil`

func (s *Early) flush(quit bool) {
	if !quit {
		for {
			if _, ok := <-s.queue; !ok {
				break
			}
		}
	}
	s.queue = nil
}

type Other struct {
	queue chan string
	stop  chan struct{}
}

func NewOther() *Other {
	s := &Other{queue: make(chan string, 8), stop: make(chan struct{})}
	go s.flush()
	return s
}

func (s *Other) Shutdown() { close(s.queue) } // want `s\.queue may be nil`

func (s *Other) Stop() { close(s.stop) }

func (s *Other) flush() {
	for {
		select {
		case <-s.queue:
		case _, ok := <-s.stop:
			if !ok {
				s.queue = nil
				return
			}
		}
	}
}

// Use runs each sink and shuts it down, as the sinks' tests do.
func Use(quit bool) {
	s := NewSink()
	defer s.Shutdown()
	r := NewReopen()
	defer r.Shutdown()
	e := NewEarly(quit)
	defer e.Shutdown()
	o := NewOther()
	defer o.Shutdown()
	o.Stop()
}
