// Package ringnoclear is a negative control of hand-offs through a
// container (detect/hb, Hand-offs), once validation's.
//
// A producer counts a task in its WaitGroup, then pushes it into a ring
// of *Task under a mutex; a worker pops it under the same lock, runs it
// and counts it done. The ring does not clear the slot it pops (many ring
// buffers do not), so there is no take (a read of the slot and a clearing
// write in one section); but the pop's read got the pointer the push's
// section stored, under the same lock, and detect/hb orders what the
// worker does after its section (the Run, the Done) after the push's
// section, and so after the Add. precog test reports nothing.
//
// Before that order, detect/hb predicted the worker's Done before the
// producer's Add, a Done-before-Add con-uninit that no run can make: the
// worker gets the task only from the push. Validation forced it: it held
// the producer at its Add until the worker's Done had passed; the worker
// popped an empty ring, got nil, and Run dereferenced it before the Done.
// That crash once "confirmed" the finding; validation then required the
// order's first steps to have happened before a crash, and reported it
// diverged (pipeline/validate's tests keep that shape).
package ringnoclear

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

// Queue is a bounded FIFO of tasks under a mutex. Pop leaves the slot it
// took as it is; the next Push overwrites it.
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

// Pop returns the oldest task, or nil when the queue is empty.
func (q *Queue) Pop() *Task {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.head == q.tail {
		return nil
	}
	t := q.slots[q.head%len(q.slots)]
	q.head++
	return t
}

// Submit counts the task, then pushes it: the worker that pops it finds
// it counted.
func Submit(q *Queue, wg *sync.WaitGroup, in []int) *Task {
	t := &Task{Input: in, wg: wg}
	wg.Add(1)
	q.Push(t)
	return t
}
