// Package stopflag: a send made with a mutex held from a read of a stop
// flag that found it false, against a close made after the flag was set
// under the same mutex (gammazero/workerpool's Pause and stop): if the
// closer's section came first the send does not run, otherwise the send
// came before the close. Silent. Near misses are reported: a flag that is
// also cleared, a send after the mutex was released, a close before the
// flag is set.
package stopflag

import (
	"sync"
	"sync/atomic"
)

type Pool struct {
	stopLock sync.Mutex
	stopped  atomic.Bool
	tasks    chan func()
}

func (p *Pool) Pause() {
	p.stopLock.Lock()
	defer p.stopLock.Unlock()
	if p.stopped.Load() {
		return
	}
	p.tasks <- func() {}
}

func (p *Pool) Stop() {
	p.stopLock.Lock()
	p.stopped.Store(true)
	p.stopLock.Unlock()
	close(p.tasks)
}

// Plain has a plain bool flag, tested negated.
type Plain struct {
	mu     sync.Mutex
	closed bool
	ch     chan int
}

func (q *Plain) Send(v int) {
	q.mu.Lock()
	if !q.closed {
		q.ch <- v
	}
	q.mu.Unlock()
}

func (q *Plain) Close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	close(q.ch)
}

// Reset clears its flag again: a send may see it clear after a close.
type Reset struct {
	mu     sync.Mutex
	closed bool
	ch     chan int
}

func (q *Reset) Send(v int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return
	}
	q.ch <- v // want `send on closed channel: q\.ch may be closed concurrently by \(\*Reset\)\.Close`
}

func (q *Reset) Close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	close(q.ch)
}

func (q *Reset) Reopen() {
	q.mu.Lock()
	q.closed = false
	q.ch = make(chan int)
	q.mu.Unlock()
}

// Released sends after releasing the mutex it read the flag under.
type Released struct {
	mu     sync.Mutex
	closed bool
	ch     chan int
}

func (q *Released) Send(v int) {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return
	}
	q.mu.Unlock()
	q.ch <- v // want `send on closed channel: q\.ch may be closed concurrently by \(\*Released\)\.Close`
}

func (q *Released) Close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	close(q.ch)
}

// Early closes before it sets the flag.
type Early struct {
	mu     sync.Mutex
	closed bool
	ch     chan int
}

func (q *Early) Send(v int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return
	}
	q.ch <- v // want `send on closed channel: q\.ch may be closed concurrently by \(\*Early\)\.Close`
}

func (q *Early) Close() {
	close(q.ch)
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
}

func Run(p *Pool, a *Plain, r *Reset, l *Released, e *Early) {
	go p.Pause()
	go p.Stop()
	go a.Send(1)
	go a.Close()
	go r.Send(1)
	go r.Close()
	go r.Reopen()
	go l.Send(1)
	go l.Close()
	go e.Send(1)
	go e.Close()
}
