// Package sendclose: a send asked about itself, against a close that
// follows the receive of its value (con-closed's question of fx's signal
// relayer). Relay's goroutine sends once (deferred in its entry), so the
// send happens before Stop's receive, and before the close after it.
// Looping's goroutine sends in a loop: the receive may have taken an
// earlier send, and a later one may follow the close.
package sendclose

import "sync"

// Relay sends once when its goroutine ends.
type Relay struct {
	mu       sync.Mutex
	shutdown chan struct{}
	finished chan struct{}
}

// Start starts the goroutine.
func (r *Relay) Start() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.finished = make(chan struct{}, 1)
	r.shutdown = make(chan struct{}, 1)
	go r.relayer()
}

func (r *Relay) relayer() {
	defer func() {
		r.finished <- struct{}{}
	}()
	<-r.shutdown
}

// Stop stops the goroutine, receives its value and closes.
func (r *Relay) Stop() {
	r.shutdown <- struct{}{}
	<-r.finished
	close(r.finished)
}

// Looping sends in a loop.
type Looping struct {
	signals  chan int
	finished chan struct{}
}

// Start starts the goroutine.
func (l *Looping) Start() {
	l.finished = make(chan struct{}, 1)
	go l.loop()
}

func (l *Looping) loop() {
	for range l.signals {
		l.finished <- struct{}{}
	}
}

// Stop receives one value and closes.
func (l *Looping) Stop() {
	<-l.finished
	close(l.finished)
}
