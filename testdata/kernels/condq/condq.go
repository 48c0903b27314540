// Package condq is a queue on a sync.Cond whose Get waits with `if`
// rather than `for`: an atomicity violation (OSCS, oscs.txt §2.2, Fig. 3c)
// hidden inside one critical section of the source. Cond.Wait unlocks the
// queue's mutex while it sleeps and locks it again before it returns, so
// Get's check of the queue and its use of it are two critical sections,
// and another consumer woken by the same Broadcast can take the item
// between them.
//
// Crashing interleaving:
//
//	consumer 1           consumer 2           producer
//	Get: len == 0
//	q.cond.Wait()
//	                     Get: len == 0
//	                     q.cond.Wait()
//	                                          Put("a"): append
//	                                          q.cond.Broadcast()
//	items[0] ("a")
//	items = items[1:]
//	                     items[0]
//	                     panic: runtime error: index out of range [0] with length 0
//
// The test's normal schedule hides it: consumer 2 asks 80 ms after the
// first item was put and taken, and finds the queue empty until the
// second one. (A consumer that locks the mutex between the Broadcast and
// the woken waiter's relock does the same without waiting: consumer 1's
// relock must come within those 80 ms.)
package condq

import "sync"

// Queue is a work queue whose consumers wait for items on a sync.Cond.
type Queue struct {
	mu    sync.Mutex
	cond  *sync.Cond
	items []string
}

// NewQueue returns an empty queue.
func NewQueue() *Queue {
	q := &Queue{}
	q.cond = sync.NewCond(&q.mu)
	return q
}

// Put adds an item and wakes every waiting consumer.
func (q *Queue) Put(s string) {
	q.mu.Lock()
	q.items = append(q.items, s) // S2
	q.mu.Unlock()
	q.cond.Broadcast()
}

// Get is WRONG: it waits once if the queue is empty and then takes the
// first item, although another consumer woken by the same Broadcast may
// have taken it while Wait was locking the mutex again.
func (q *Queue) Get() string {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.items) == 0 { // S1
		q.cond.Wait()
	}
	s := q.items[0] // S3
	q.items = q.items[1:]
	return s
}
