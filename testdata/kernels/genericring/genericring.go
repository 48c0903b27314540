// Package genericring is a hand-off through a generic ring buffer under a
// mutex, as pond's task queue is (github.com/alitto/pond/v2: its pool
// pushes tasks into internal/linkedbuffer's ring buffer under the pool's
// mutex, and workers pop them under it): a producer counts a task in its
// WaitGroup, then pushes it into a slot of a Ring[*Task]; a worker pops it
// under the same lock (reads the slot and clears it), runs it and counts
// it done.
//
// This is the negative control of genericringlate: the worker can only
// run a task it found in a slot, so detect/hb orders the producer's
// pushing section before the worker's take, and the Done after the Add.
// precog test reports nothing.
//
// The package's own test (ring_test.go) uses its API on one goroutine;
// the goroutines are in the external test (submit_test.go), as pond's are
// in the package that imports linkedbuffer. precog test analyzes the
// package with its own test, where the test calls the API: before the
// shared-location filter counted what the exported API reaches as
// callable from any goroutine, the ring's slots were not recorded, hb saw
// no take, and the worker's Done was a false Done-before-Add con-uninit,
// as pond's was.
package genericring

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

// Submit counts the task, then pushes it: the worker that pops it finds
// it counted.
func Submit(q *Queue, wg *sync.WaitGroup, in []int) *Task {
	t := &Task{Input: in, wg: wg}
	wg.Add(1)
	q.Push(t)
	return t
}
