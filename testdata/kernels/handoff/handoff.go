// Package handoff is a hand-off through a container under a mutex
// (issue 18; pond's task queue, github.com/alitto/pond/v2: a ring buffer
// under the pool's mutex that submitters write and workers read): a
// producer counts a task in its WaitGroup and pushes it into a slot under
// the queue's lock; a worker pops it under the same lock (reads the slot
// and clears it), runs it outside the lock and counts it done.
//
// The worker can only run a task it found in a slot, so everything the
// producer did before its push comes before the worker's pop (right.go's
// Submit: nothing is reported there; before detect/hb ordered takes, the
// worker's Done was a false con-uninit against the producer's Add, as
// pond's was). The bug, SubmitLate: the producer pushes the task and only
// then adds it to the WaitGroup. The worker may pop and finish it first:
//
//	producer                          worker
//	q.Push(t)
//	                                  t := q.Pop(); t.Run()
//	                                  t.wg.Done()
//	panic: sync: negative WaitGroup counter
//	wg.Add(1)
//
// The test's normal schedule hides it: the worker pops 20 ms later.
package handoff

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

// SubmitLate pushes the task before counting it: the bug.
func SubmitLate(q *Queue, wg *sync.WaitGroup, in []int) *Task {
	t := &Task{Input: in, wg: wg}
	q.Push(t)
	wg.Add(1)
	return t
}
