package condq

import (
	"testing"
	"time"
)

// run starts consumer 1 at once and consumer 2 100 ms later, and puts an
// item at 20 ms and another at 120 ms: each consumer normally waits alone
// and takes the item put while it waited (consumer 1 has 80 ms to lock
// the mutex again after the first Broadcast, before consumer 2 comes).
func run(t *testing.T, get func(*Queue) string) {
	q := NewQueue()
	got := make(chan string, 2)
	go func() { got <- get(q) }()
	go func() { time.Sleep(100 * time.Millisecond); got <- get(q) }()
	time.Sleep(20 * time.Millisecond)
	q.Put("a")
	time.Sleep(100 * time.Millisecond)
	q.Put("b")
	if s := <-got + <-got; s != "ab" && s != "ba" {
		t.Errorf("consumers got %q, want a and b", s)
	}
}

// TestGet runs the WRONG Get.
func TestGet(t *testing.T) { run(t, (*Queue).Get) }

// TestGetLoop runs the RIGHT GetLoop.
func TestGetLoop(t *testing.T) { run(t, (*Queue).GetLoop) }
