package uses

import (
	"container/heap"
	"sync"
)

type entry struct {
	prio  int
	index int
}

// queue implements container/heap.Interface: its Swap, Push and Pop keep
// each entry's index (trace.UseHeap).
type queue []*entry

func (q queue) Len() int           { return len(q) }
func (q queue) Less(i, j int) bool { return q[i].prio < q[j].prio }
func (q queue) Swap(i, j int) {
	q[i], q[j] = q[j], q[i]
	q[i].index = i // writes:"heap"
	q[j].index = j // writes:"heap"
}

func (q *queue) Push(x any) {
	e := x.(*entry)
	e.index = len(*q) // writes:"heap"
	*q = append(*q, e)
}

func (q *queue) Pop() any {
	old := *q
	e := old[len(old)-1]
	func() {
		e.index = -1 // writes:"heap"
	}()
	*q = old[:len(old)-1]
	return e
}

// stack has a Push and a Pop but no Less or Swap: no heap.
type stack struct{ top *entry }

func (s *stack) Push(e *entry) {
	e.index = 0 // writes:""
	s.top = e
}

func (s *stack) Pop() *entry {
	e := s.top
	e.index = -1 // writes:""
	return e
}

// Heap runs heap operations and a stack's on two goroutines each.
func Heap() {
	var mu sync.Mutex
	var q queue
	var s stack
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			heap.Push(&q, &entry{prio: i})
			s.Push(&entry{})
			s.Pop()
			if q.Len() > 1 {
				q.Swap(0, 1)
				heap.Pop(&q)
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
}
