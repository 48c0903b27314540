package queuehandoff

import (
	"sync"
	"testing"
	"time"
)

// work submits one task while a worker pops it 20 ms later and runs it.
func work(t *testing.T, submit func(*Queue, *sync.WaitGroup, []int) *Task) {
	q := new(Queue)
	var wg sync.WaitGroup
	go func() { // the worker
		time.Sleep(20 * time.Millisecond)
		q.Pop().Run()
	}()
	task := submit(q, &wg, []int{1, 2, 3})
	wg.Wait()
	if task.Sum != 6 {
		t.Errorf("sum %d, want 6", task.Sum)
	}
}

func TestSubmit(t *testing.T) { work(t, Submit) }
