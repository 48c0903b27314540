package stackhandoff

import (
	"sync"
	"testing"
	"time"
)

// TestSubmit submits one task while a worker pops it 5 ms later (or as
// soon after as it is there) and runs it.
func TestSubmit(t *testing.T) {
	s := new(Stack)
	var wg sync.WaitGroup
	go func() { // the worker
		time.Sleep(5 * time.Millisecond)
		task := s.Pop()
		for task == nil {
			time.Sleep(time.Millisecond)
			task = s.Pop()
		}
		task.Run()
	}()
	task := Submit(s, &wg, []int{1, 2, 3})
	wg.Wait()
	if task.Sum != 6 {
		t.Errorf("sum %d, want 6", task.Sum)
	}
}
