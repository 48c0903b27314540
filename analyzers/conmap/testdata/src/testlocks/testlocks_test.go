package testlocks

import (
	"sync"
	"testing"
)

// TestEvict calls the helper without the lock, on a cache of its own.
func TestEvict(t *testing.T) {
	c := &Cache{items: map[int]int{1: 1}}
	c.evict(1)
}

// TestParallel's goroutines use the cache through its exported methods,
// which hold the lock around evict.
func TestParallel(t *testing.T) {
	c := New()
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Put(i, i)
			c.Remove(i)
		}()
	}
	wg.Wait()
}

// TestJanitor calls the helper without the lock while the janitor runs:
// low confidence.
func TestJanitor(t *testing.T) {
	c := New()
	c.evict(1)
}
