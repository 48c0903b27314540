// Package stackhandoff is a negative control of handoff (issue 18): a
// producer counts a task in its WaitGroup, then pushes it onto a stack
// that grows by append, under a mutex; a worker pops it under the same
// lock (reads the top slot and clears it), runs it and counts it done.
// The push's store of the slot is inside append, so the trace holds it
// only because the rewriter records the elements an append adds to a
// shared slice; with it, detect/hb orders the pushing section before the
// worker's take and the Done after the Add: precog test reports nothing
// (puddle's idle stack, genstack, has this shape).
package stackhandoff

import "sync"

// A Task is work for a worker: its input, and the WaitGroup that counts
// it until it is done.
type Task struct {
	Input []int
	Sum   int
	wg    *sync.WaitGroup
}

// Run sums the task's input and counts it done.
func (t *Task) Run() {
	for _, v := range t.Input {
		t.Sum += v
	}
	t.wg.Done()
}

// Stack is a stack of tasks under a mutex.
type Stack struct {
	mu    sync.Mutex
	items []*Task
}

// Push puts t on top.
func (s *Stack) Push(t *Task) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.items = append(s.items, t)
}

// Pop takes the top task off the stack, or returns nil.
func (s *Stack) Pop() *Task {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.items)
	if n == 0 {
		return nil
	}
	t := s.items[n-1]
	s.items[n-1] = nil
	s.items = s.items[:n-1]
	return t
}

// Submit counts the task, then pushes it: the worker that pops it finds
// it counted.
func Submit(s *Stack, wg *sync.WaitGroup, in []int) *Task {
	t := &Task{Input: in, wg: wg}
	wg.Add(1)
	s.Push(t)
	return t
}
