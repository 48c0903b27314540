package genericring

import (
	"sync"
	"testing"
)

// TestRing uses the ring and the queue on one goroutine, as pond's
// linkedbuffer tests do.
func TestRing(t *testing.T) {
	r := NewRing[*int](2)
	for i := range 3 {
		if ok := r.Push(&i); ok != (i < 2) {
			t.Errorf("push %d: %v", i, ok)
		}
	}
	for i := range 2 {
		if v, ok := r.Pop(); !ok || *v != i {
			t.Errorf("pop %d: %v %v", i, v, ok)
		}
	}
	if _, ok := r.Pop(); ok {
		t.Error("pop from an empty ring")
	}
	q := NewQueue()
	var wg sync.WaitGroup
	task := Submit(q, &wg, []int{1, 2})
	q.Pop().Run()
	wg.Wait()
	if task.Sum != 3 || q.Pop() != nil {
		t.Errorf("sum %d, want 3, and an empty queue", task.Sum)
	}
}
