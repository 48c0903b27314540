package condq

import (
	"testing"
	"time"
)

// run starts consumer 1 at once and consumer 2 150 ms later, and puts an
// item at 50 ms and another at 250 ms: each consumer normally waits alone
// and takes the item put while it waited (consumer 1 has 100 ms to lock
// the mutex again after the first Broadcast, before consumer 2 comes).
// The detection wants a consumer that checked the queue before the Put
// it waited for: each has 50 ms or more to get there, since a recorded
// run under CI's load (TestKernels) once started both late (margins of
// 20 ms: the kernel's OSCS was not reported).
func run(t *testing.T, get func(*Queue) string) {
	q := NewQueue()
	got := make(chan string, 2)
	go func() { got <- get(q) }()
	go func() { time.Sleep(150 * time.Millisecond); got <- get(q) }()
	time.Sleep(50 * time.Millisecond)
	q.Put("a")
	time.Sleep(200 * time.Millisecond)
	q.Put("b")
	if s := <-got + <-got; s != "ab" && s != "ba" {
		t.Errorf("consumers got %q, want a and b", s)
	}
}

// TestGet runs the WRONG Get.
func TestGet(t *testing.T) { run(t, (*Queue).Get) }

// TestGetLoop runs the RIGHT GetLoop.
func TestGetLoop(t *testing.T) { run(t, (*Queue).GetLoop) }
