// Package unbuffered: a receive from an unbuffered channel happens before
// the send it takes completes, so what the receiving goroutine did before
// its receive happens before the sender's code after the send (the Go
// memory model). Not for a buffered channel, whose send does not wait,
// nor when the receiver goes on running the work after the receive,
// another goroutine may take the send, or the channel leaves the
// package's sight.
package unbuffered

import "time"

func a(string) {}
func b(string) {}

// Sampler is the shape of a profiler's sampler, stopped by a send that
// it returns on.
func Sampler() func() {
	tick := time.NewTicker(time.Millisecond)
	stop := make(chan struct{})
	go func() {
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				a("sampler")
			case <-stop:
				return
			}
		}
	}()
	return func() {
		stop <- struct{}{}
		b("sampler") // want `^sampler: a before b by channel$`
	}
}

func UseSampler() { Sampler()() }

// Buffered is Sampler's twin with a buffered channel: the send returns
// while the sampler may still be sampling.
func Buffered() func() {
	tick := time.NewTicker(time.Millisecond)
	stop := make(chan struct{}, 1)
	go func() {
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				a("buffered")
			case <-stop:
				return
			}
		}
	}()
	return func() {
		stop <- struct{}{}
		b("buffered") // want `^buffered: unordered$`
	}
}

func UseBuffered() { Buffered()() }

func Plain() {
	done := make(chan bool, 0)
	go func() {
		a("plain")
		<-done
	}()
	done <- true
	b("plain") // want `^plain: a before b by channel$`
}

// Looping receives again after the work: a later turn's work runs after
// the send it took.
func Looping() {
	ch := make(chan int)
	go func() {
		for range ch {
			a("looping")
		}
	}()
	ch <- 1
	b("looping") // want `^looping: unordered$`
	ch <- 2
	close(ch)
}

// TwoReceivers: the other goroutine may take the send.
func TwoReceivers() {
	ch := make(chan int)
	go func() {
		a("two receivers")
		<-ch
	}()
	go func() { <-ch }()
	ch <- 1
	b("two receivers") // want `^two receivers: unordered$`
	ch <- 2
}

// Escapes: the channel goes to a function that may hand it to another
// receiver.
func Escapes(hand func(chan int)) {
	ch := make(chan int)
	hand(ch)
	go func() {
		a("escapes")
		<-ch
	}()
	ch <- 1
	b("escapes") // want `^escapes: unordered$`
}

// AfterReceive: the work after the receive is not ordered before the
// completion.
func AfterReceive() {
	ch := make(chan int)
	go func() {
		<-ch
		a("after receive")
	}()
	ch <- 1
	b("after receive") // want `^after receive: unordered$`
}
