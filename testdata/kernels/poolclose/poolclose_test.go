package poolclose

import (
	"testing"
	"time"
)

// gap is how long after the create starts the close comes.
const gap = 5 * time.Millisecond

// spin busy-waits for d: work that takes time without instrumented
// accesses or synchronization.
func spin(d time.Duration) {
	for t0 := time.Now(); time.Since(t0) < d; {
	}
}

// run creates a resource with create while another goroutine closes the
// pool a little later, and checks that a closed pool keeps nothing alive.
func run(t *testing.T, create func(*Pool) error) {
	p := new(Pool)
	done := make(chan struct{})
	go func() {
		defer close(done)
		spin(gap)
		p.Close()
	}()
	err := create(p)
	<-done
	if n := p.Live(); n != 0 {
		t.Fatalf("create returned %v; %d resources alive after Close, want 0", err, n)
	}
}

// TestCreateClose runs Create (RIGHT) against Close.
func TestCreateClose(t *testing.T) { run(t, (*Pool).Create) }

// TestUncheckedClose runs CreateUnchecked (WRONG) against Close.
func TestUncheckedClose(t *testing.T) { run(t, (*Pool).CreateUnchecked) }
