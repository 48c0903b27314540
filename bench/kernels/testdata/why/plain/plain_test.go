package plain

import (
	"sync"
	"testing"
	"time"
)

// handshake is how long the dial takes; later is when the request comes.
const (
	handshake = time.Millisecond
	later     = 1600 * time.Microsecond
)

type pool interface {
	Dial(addr string, handshake time.Duration)
	Do(req string) (string, error)
}

// request dials p and sends a request a little later, and returns the
// request's error.
func request(p pool) error {
	started := make(chan struct{})
	var wg sync.WaitGroup
	var err error
	wg.Add(2)
	go func() {
		defer wg.Done()
		close(started)
		p.Dial("db1.internal:5432", handshake)
	}()
	go func() {
		defer wg.Done()
		<-started
		time.Sleep(later)
		_, err = p.Do("SELECT 1")
	}()
	wg.Wait()
	return err
}

// TestRequestAfterDial checks that the request finds the connection.
func TestRequestAfterDial(t *testing.T) {
	if err := request(new(Pool)); err != nil {
		t.Fatalf("request: %v", err)
	}
}
