package p

import "sync"

type C chan int

type Queue[T any] struct {
	mu    sync.Mutex
	items []T
	ready chan T
	seen  map[string]T
}

func NewQueue[T any]() *Queue[T] {
	return &Queue[T]{ready: make(chan T, 1), seen: map[string]T{}}
}

func (q *Queue[T]) Push(v T) {
	q.mu.Lock()
	q.items = append(q.items, v)
	q.seen["last"] = v
	q.mu.Unlock()
	select {
	case q.ready <- v:
	default:
	}
}

func Pop[T any, L sync.Locker](l L, q *Queue[T]) (T, bool) {
	l.Lock()
	defer l.Unlock()
	v, ok := <-q.ready
	return v, ok
}

func Fan[T any](in []chan T, out chan<- T) {
	var wg sync.WaitGroup
	for _, c := range in {
		wg.Add(1)
		go forward(c, out, &wg)
	}
	wg.Wait()
}

func forward[T any](in <-chan T, out chan<- T, wg *sync.WaitGroup) {
	defer wg.Done()
	for v := range in {
		out <- v
	}
}

func named(c C) (n int) {
here:
	for v := range c {
		n += v
		if n > 10 {
			break here
		}
	}
	return n
}

// Slots' slice type is a type parameter: its elements are indexed through
// its core type []E and recorded like a slice's.
type Slots[E any, S ~[]E] struct {
	s S
	n int
}

func (r *Slots[E, S]) Put(v E) E {
	r.s[r.n%len(r.s)] = v
	r.n++
	return r.s[0]
}

// Text's type set has no core type: t.b is read, t.b[i] is not recorded.
type Text[B ~[]byte | ~string] struct{ b B }

func (t *Text[B]) At(i int) byte { return t.b[i] }
