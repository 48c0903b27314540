package genericringlate_test

import (
	"sync"
	"testing"
	"time"

	"precog.example/kernels/genericringlate"
)

// TestSubmitLate submits one task while a worker pops it 20 ms later and runs
// it.
func TestSubmitLate(t *testing.T) {
	q := genericringlate.NewQueue()
	var wg sync.WaitGroup
	go func() { // the worker
		time.Sleep(20 * time.Millisecond)
		q.Pop().Run()
	}()
	task := genericringlate.SubmitLate(q, &wg, []int{1, 2, 3})
	wg.Wait()
	if task.Sum != 6 {
		t.Errorf("sum %d, want 6", task.Sum)
	}
}
