// Package onevalue: a channel that carries one result, received once.
package onevalue

import (
	"context"
	"sync"
)

func a(string) {}
func b(string) {}

// Local: the result channel of a goroutine, received once.
func Local() {
	ch := make(chan int, 1)
	go func() {
		a("local")
		ch <- 1
	}()
	<-ch
	b("local") // want `^local: a before b by channel$`
}

type result struct {
	ch chan int
	v  int
}

func start() *result {
	r := &result{ch: make(chan int, 1)}
	go func() {
		a("field")
		r.ch <- 1
	}()
	return r
}

// Field: the channel sits in a field of what a function returns.
func Field() {
	r := start()
	<-r.ch
	b("field") // want `^field: a before b by channel$`
}

func run() <-chan int {
	ch := make(chan int, 1)
	go func() {
		a("returned")
		ch <- 1
	}()
	return ch
}

// Returned: the channel is returned from the function that starts the
// goroutine.
func Returned() {
	<-run()
	b("returned") // want `^returned: a before b by channel$`
}

// Relay is fx's signal relayer: the goroutine's deferred send is the
// channel's one value, and the receiver closes the channel only once it
// received a value from it.
type Relay struct {
	mu       sync.Mutex
	finished chan struct{}
	shutdown chan struct{}
	signals  chan int
}

func (r *Relay) Start() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.finished != nil {
		return
	}
	r.finished = make(chan struct{}, 1)
	go r.loop()
}

func (r *Relay) loop() {
	defer func() {
		r.finished <- struct{}{}
	}()
	select {
	case <-r.shutdown:
		return
	case <-r.signals:
		a("closedafter")
	}
}

// Stop closes the channel after its receive: a receive that returned
// because of a close follows a close that followed a receive of a value,
// the first of them a value that the loop sent.
func (r *Relay) Stop(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.finished == nil {
		return nil
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-r.finished:
		close(r.finished)
		b("closedafter") // want `^closedafter: a before b by channel$`
		r.finished = nil
		return nil
	}
}

// Negative: a second sender that does not run a first.
func TwoSenders() {
	ch := make(chan int, 1)
	go func() {
		a("two senders")
		ch <- 1
	}()
	go func() {
		ch <- 2
	}()
	<-ch
	b("two senders") // want `^two senders: unordered$`
}

// Negative: the read comes before the receive.
func ReadBefore() {
	ch := make(chan int, 1)
	go func() {
		a("read before")
		ch <- 1
	}()
	b("read before") // want `^read before: unordered$`
	<-ch
}

// Negative: a select with a default may not receive at all.
func SelectDefault() {
	ch := make(chan int, 1)
	go func() {
		a("select default")
		ch <- 1
	}()
	select {
	case <-ch:
	default:
	}
	b("select default") // want `^select default: unordered$`
}

// Negative: a close that no receive precedes lets the receive return
// before the goroutine sent.
func CloseFirst(quit bool) {
	ch := make(chan int, 1)
	go func() {
		a("close first")
		ch <- 1
	}()
	if quit {
		close(ch)
	}
	<-ch
	b("close first") // want `^close first: unordered$`
}

type Twice struct{ ch chan int }

// Negative: the receiver's close after its receive on one channel object
// lets a receive of another call go on: still, that receive follows a
// receive of a value, here sent by a goroutine that does not run a first.
func (t *Twice) Other() {
	go func() { t.ch <- 1 }()
}

func (t *Twice) Recv() {
	go func() {
		a("close after other")
		t.ch <- 1
	}()
	<-t.ch
	close(t.ch)
	b("close after other") // want `^close after other: unordered$`
}
