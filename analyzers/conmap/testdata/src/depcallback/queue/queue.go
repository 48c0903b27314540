// Package queue is a dependency of depcallback: a generic queue (as
// creachadair/mds's) whose Each calls the function it is given on the
// caller's goroutine before it returns, directly or through a helper of
// its own; whose OnPush keeps the function for later; and whose Async
// hands it to a goroutine.
package queue

type Queue[T any] struct {
	vs   []T
	hook func(T)
}

// Each calls f on each value, oldest first, until f returns false.
func (q *Queue[T]) Each(f func(T) bool) {
	if f == nil {
		return
	}
	for _, v := range q.vs {
		if !f(v) {
			return
		}
	}
}

// Visit calls f on each value through Each: it hands f on to a function
// that calls it synchronously.
func (q *Queue[T]) Visit(f func(T)) {
	q.Each(func(v T) bool { f(v); return true })
}

// Last calls f on the newest value, deferred to Last's return.
func (q *Queue[T]) Last(f func(T)) {
	if len(q.vs) > 0 {
		defer f(q.vs[len(q.vs)-1])
	}
}

// Add appends v and calls the hook OnPush installed, if any.
func (q *Queue[T]) Add(v T) {
	q.vs = append(q.vs, v)
	if q.hook != nil {
		q.hook(v)
	}
}

// OnPush keeps f, to call it on each later Add.
func (q *Queue[T]) OnPush(f func(T)) { q.hook = f }

// Async calls f on each value on a goroutine of its own.
func (q *Queue[T]) Async(f func(T)) {
	vs := q.vs
	go func() {
		for _, v := range vs {
			f(v)
		}
	}()
}
