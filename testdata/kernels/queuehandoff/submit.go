package queuehandoff

import "sync"

// Submit counts the task, then pushes it: the worker that pops it finds
// it counted.
func Submit(q *Queue, wg *sync.WaitGroup, in []int) *Task {
	t := &Task{Input: in, wg: wg}
	wg.Add(1)
	q.Push(t)
	return t
}
