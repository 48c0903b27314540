// Package queuehandoff is the negative control of handoff (issue 18): a
// producer counts a task in its WaitGroup, then pushes it into a slot of a
// queue under a mutex (submit.go); a worker pops it under the same lock
// (reads the slot and clears it), runs it and counts it done. detect/hb
// orders the producer's pushing section before the worker's take, so the
// Done is ordered after the Add: precog test reports nothing (before hb
// ordered takes, a false con-uninit, as in pond).
package queuehandoff

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

// Queue is a bounded queue of tasks under a mutex.
type Queue struct {
	mu         sync.Mutex
	slots      [8]*Task
	head, tail int
}

// Push puts t in the next free slot; it reports false when the queue is
// full.
func (q *Queue) Push(t *Task) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.tail-q.head == len(q.slots) {
		return false
	}
	q.slots[q.tail%len(q.slots)] = t
	q.tail++
	return true
}

// Pop takes the oldest task out of its slot, or returns nil.
func (q *Queue) Pop() *Task {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.head == q.tail {
		return nil
	}
	t := q.slots[q.head%len(q.slots)]
	q.slots[q.head%len(q.slots)] = nil
	q.head++
	return t
}
