package lazyconn

import (
	"sync"
	"testing"
	"time"
)

// handshake is how long the dial takes; later is when the request comes.
const (
	handshake = time.Millisecond
	later     = 15 * time.Millisecond
)

type pool interface {
	Dial(addr string, handshake time.Duration)
	Do(req string) (string, error)
}

// request dials p in a goroutine of its own and sends a request a little
// later from the caller's, and returns the request's error. Nothing but
// the sleep orders the two: in the trace the request's read carries the
// seq of the go statement, before the dial goroutine's write, the other
// way round from what happened (targeted perturbation tries both).
func request(p pool) error {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		p.Dial("db1.internal:5432", handshake)
	}()
	time.Sleep(later)
	_, err := p.Do("SELECT 1")
	wg.Wait()
	return err
}

// TestRequestAfterDial checks that the request finds the connection.
func TestRequestAfterDial(t *testing.T) {
	if err := request(new(Pool)); err != nil {
		t.Fatalf("request: %v", err)
	}
}

// TestRequestAfterDialReady is the same with the RIGHT version: silent.
func TestRequestAfterDialReady(t *testing.T) {
	if err := request(NewReadyPool()); err != nil {
		t.Fatalf("request: %v", err)
	}
}
