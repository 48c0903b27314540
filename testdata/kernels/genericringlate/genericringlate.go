// Package genericringlate is the bug of the genericring kernels: a
// hand-off through a generic ring buffer under a mutex, as pond's task
// queue (github.com/alitto/pond/v2), where the producer pushes the task
// and only then adds it to the WaitGroup. The worker may pop and finish it
// first:
//
//	producer                          worker
//	q.Push(t)
//	                                  t := q.Pop(); t.Run()
//	                                  t.wg.Done()
//	panic: sync: negative WaitGroup counter
//	wg.Add(1)
//
// With the ring's slots recorded, detect/hb orders the push before the
// worker's take; the take must not hide the Add that comes after the
// push. The test's normal schedule hides the bug: the worker pops 20 ms
// later. As in genericring, the package's own test uses its API on one
// goroutine and the goroutines are in the external test.
package genericringlate

import "sync"

// Ring is a bounded FIFO of values without a lock of its own (pond's
// linkedbuffer.buffer); Pop clears the slot it took.
type Ring[T any] struct {
	data       []T
	head, tail int
	zero       T
}

// NewRing returns an empty ring of n slots.
func NewRing[T any](n int) *Ring[T] {
	return &Ring[T]{data: make([]T, n)}
}

// Push appends v, or reports false when the ring is full.
func (r *Ring[T]) Push(v T) bool {
	if r.tail-r.head == len(r.data) {
		return false
	}
	r.data[r.tail%len(r.data)] = v
	r.tail++
	return true
}

// Pop takes the oldest value out of its slot, or reports false when the
// ring is empty.
func (r *Ring[T]) Pop() (T, bool) {
	if r.head == r.tail {
		return r.zero, false
	}
	i := r.head % len(r.data)
	v := r.data[i]
	r.data[i] = r.zero
	r.head++
	return v, true
}

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

// Queue is a ring of tasks under a mutex.
type Queue struct {
	mu    sync.Mutex
	tasks *Ring[*Task]
}

// NewQueue returns an empty queue of eight slots.
func NewQueue() *Queue {
	return &Queue{tasks: NewRing[*Task](8)}
}

// Push puts t in the next free slot; it reports false when the queue is
// full.
func (q *Queue) Push(t *Task) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.tasks.Push(t)
}

// Pop takes the oldest task out of its slot, or returns nil.
func (q *Queue) Pop() *Task {
	q.mu.Lock()
	defer q.mu.Unlock()
	t, _ := q.tasks.Pop()
	return t
}

// SubmitLate pushes the task before counting it: the bug.
func SubmitLate(q *Queue, wg *sync.WaitGroup, in []int) *Task {
	t := &Task{Input: in, wg: wg}
	q.Push(t)
	wg.Add(1)
	return t
}
