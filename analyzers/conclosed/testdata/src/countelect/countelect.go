// Package countelect: a channel closed by whichever goroutine's atomic
// Add brings a counter to a known total (go-libp2p-kad-dht's
// putProvDone): the value the Add returns is converted before the
// comparison, and still elects one closer. A closer elected by a plain
// counter, read and written without a lock, is reported.
package countelect

import "sync/atomic"

type state struct {
	doneChan chan struct{}
	done     atomic.Int32
}

func (s *state) consume(n int) {
	<-s.doneChan
	if int(s.done.Add(1)) == n {
		close(s.doneChan)
	}
}

func (s *state) drain(n int) {
	for range n {
		go s.consume(n)
	}
	if int64(s.done.Add(1)) == int64(n) {
		close(s.doneChan)
	}
}

type plain struct {
	ch   chan struct{}
	done int
}

func (p *plain) consume(n int) {
	p.done++
	if p.done == n {
		close(p.ch) // want `close of closed channel: p.ch may also be closed by \(\*plain\).consume`
	}
}

func (p *plain) drain(n int) {
	for range n {
		go p.consume(n)
	}
}
