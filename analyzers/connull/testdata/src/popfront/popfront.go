// Package popfront: a queue that drops its first element by clearing it
// and slicing past it, q[0] = nil; q = q[1:] (or append(q[1:], x), a
// sliding window), as rabbitmq/amqp091-go's stateListener does, read
// under the same mutex by another goroutine that dereferences what it
// took after the unlock: the nil is never visible at or above the new
// start, silent. A clear that the slice does not cut off (q[1] = nil
// before q = q[1:], or q[0] = nil before q = q[0:]) is reported.
package popfront

import "sync"

type Item struct{ n int }

type Queue struct {
	mu      sync.Mutex
	window  []*Item
	fifo    []*Item
	late    []*Item
	kept    []*Item
	pending chan struct{}
}

func New() *Queue {
	q := &Queue{pending: make(chan struct{}, 1)}
	go q.produce()
	go q.consume()
	return q
}

func (q *Queue) produce() {
	for i := 0; ; i++ {
		q.mu.Lock()
		q.push(&Item{n: i})
		q.mu.Unlock()
	}
}

// push keeps the last 50 items: the oldest is cleared and cut off.
func (q *Queue) push(it *Item) {
	if len(q.window) < 50 {
		q.window = append(q.window, it)
	} else {
		q.window[0] = nil
		q.window = append(q.window[1:], it)
	}
	q.fifo = append(q.fifo, it)
	if len(q.late) > 2 {
		q.late[1] = nil
		q.late = q.late[1:]
	}
	q.late = append(q.late, it)
	if len(q.kept) > 2 {
		q.kept[0] = nil
		q.kept = q.kept[0:]
	}
	q.kept = append(q.kept, it)
}

func (q *Queue) consume() {
	for {
		q.mu.Lock()
		if len(q.window) == 0 || len(q.fifo) == 0 || len(q.late) == 0 || len(q.kept) == 0 {
			q.mu.Unlock()
			continue
		}
		w := q.window[0]
		f := q.fifo[0]
		q.fifo[0] = nil
		q.fifo = q.fifo[1:]
		l := q.late[0]
		k := q.kept[0]
		q.mu.Unlock()
		_ = w.n
		_ = f.n
		_ = l.n // want `^q\.late\[0\] may be nil when dereferenced here: \(\*Queue\)\.push stores nil to it concurrently$`
		_ = k.n // want `^q\.kept\[0\] may be nil when dereferenced here: \(\*Queue\)\.push stores nil to it concurrently$`
	}
}
