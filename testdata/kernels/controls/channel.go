package controls

import (
	"sync"
	"time"
)

// Bandwidth is the rate limiter of package transmission.
type Bandwidth struct{ bytes int }

// ReadySession is the session of package transmission whose event loop waits
// for ready, closed after h.band is set, before its first pulse.
type ReadySession struct {
	band  *Bandwidth
	ready chan struct{}
	done  chan struct{}
}

// NewReadySession starts the event loop before it creates the bandwidth
// object, as Transmission does, but publishes it through ready.
func NewReadySession() *ReadySession {
	h := &ReadySession{ready: make(chan struct{}), done: make(chan struct{})}
	go h.eventLoop()
	h.band = &Bandwidth{}
	close(h.ready)
	return h
}

func (h *ReadySession) eventLoop() {
	defer close(h.done)
	<-h.ready
	h.band.bytes = 1024
}

// Wait waits for the event loop's pulse and returns the allocated bytes.
func (h *ReadySession) Wait() int {
	<-h.done
	return h.band.bytes
}

// CompressClosedAfterSenders is the pipeline of package pbzip2queue with
// out closed by a goroutine that first waits for every consumer.
func CompressClosedAfterSenders(blocks []string, workers int) []string {
	in := make(chan string)
	out := make(chan string, workers)
	var consumers sync.WaitGroup
	for i := 0; i < workers; i++ {
		consumers.Add(1)
		go func() {
			defer consumers.Done()
			for b := range in {
				out <- b
			}
		}()
	}
	go func() {
		consumers.Wait()
		close(out)
	}()
	go func() {
		for _, b := range blocks {
			in <- b
		}
		close(in)
	}()
	var got []string
	for b := range out {
		got = append(got, b)
	}
	return got
}

// Router is a router configuration run by a StopThread.
type Router struct{ tasks []string }

// StopThread is the router thread of package click whose master drops the
// router only after it has received the driver's exit.
type StopThread struct {
	router *Router
	fired  int
	stop   chan struct{}
	exited chan struct{}
}

// RunAndKill starts the driver, lets it run for d and kills it.
func RunAndKill(r *Router, d time.Duration) int {
	t := &StopThread{router: r, stop: make(chan struct{}), exited: make(chan struct{})}
	go func() {
		defer close(t.exited)
		for {
			t.fired += len(t.router.tasks)
			select {
			case <-t.stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	time.Sleep(d)
	close(t.stop)
	<-t.exited
	t.router = nil
	return t.fired
}
