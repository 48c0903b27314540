// Package ringnoclear is a negative control of validation: a prediction
// no run can make happen, which precog test must not confirm.
//
// A producer counts a task in its WaitGroup, then pushes it into a ring
// of *Task under a mutex; a worker pops it under the same lock, runs it
// and counts it done. The ring does not clear the slot it pops (many ring
// buffers do not), so detect/hb sees no take (a read of the slot and a
// clearing write in one section) and does not order the worker after the
// producer's push: it predicts the worker's Done before the producer's
// Add, a Done-before-Add con-uninit. That order cannot happen: the worker
// gets the task only from the push, which comes after the Add.
//
// Validation forces it anyway: it holds the producer at its Add until the
// worker's Done has passed. The worker then pops an empty ring, gets nil,
// and Run dereferences it: a nil pointer dereference in (*Task).Run, the
// function of the Done, before the Done is reached. That crash
// "confirmed" the finding (genericring's did the same before its slots
// were recorded): validation took any panic in the Done's function for
// the Done's effect. Now a crash counts only after the order's first
// steps happened (here the Done, never reached), only a crash in a
// site's function at or after the site's line stands for a deferred call
// (the dereference is above the Done), and a Done's crash must be the
// WaitGroup's own panic. precog test reports the con-uninit, diverged.
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
