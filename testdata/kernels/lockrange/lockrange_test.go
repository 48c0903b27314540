package lockrange

import (
	"sync"
	"testing"
	"time"
)

// TestNotify closes the hub 10ms after it starts notifying, by
// when the notification is usually done.
func TestNotify(t *testing.T) {
	h := NewHub("a")
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); h.Notify() }()
	time.Sleep(10 * time.Millisecond)
	go func() { defer wg.Done(); h.Close() }()
	wg.Wait()
}

func TestBroadcast(t *testing.T) {
	h := NewHub("a", "b")
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); h.Broadcast() }()
	go func() { defer wg.Done(); h.Close() }()
	wg.Wait()
}
