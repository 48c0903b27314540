// Package prodcons is a negative control: the producer-consumer queue of
// ConMem's Fig. 12(b) (conmem.txt §7.4, MySQL's trx list), a custom
// synchronization that detect/hb does not model as order.
//
// The producer resets a transaction's query (S1: trx.query = nil), sets it
// for the next statement (S2) and puts the transaction on a queue (S3). The
// consumer takes it off the queue (S4) and prints the query (S5:
// *trx.query). S1's nil can never reach S5: S2 overwrites it before S3
// makes the transaction visible, and S5 runs only after S4 has found it.
//
//	producer goroutine            consumer goroutine
//	S1 trx.query = nil
//	S2 trx.query = &q
//	S3 q.push(trx)                S4 trx := q.pop()   (polls until non-empty)
//	                              S5 *trx.query
//
// The queue is a slice under a mutex, which the consumer polls: the mutex
// orders nothing, so without the spin-loop inference (conmem's default) a
// checker finds S2 not ordered before S5 and reports S1 and S5 as a
// Con-NULL bug. With it, the poll loop left on the value S3 stored orders
// S3 before S4, hence S2 before S5.
package prodcons

import (
	"runtime"
	"sync"
)

// Trx is a transaction, reused across statements.
type Trx struct {
	id    int
	query *string
}

// Queue is a FIFO of transactions under a mutex.
type Queue struct {
	mu    sync.Mutex
	items []*Trx
}

func (q *Queue) push(t *Trx) {
	q.mu.Lock()
	q.items = append(q.items, t) // S3
	q.mu.Unlock()
}

// pop polls the queue until it holds a transaction and takes the first.
func (q *Queue) pop() *Trx {
	for {
		q.mu.Lock()
		if len(q.items) > 0 { // S4
			t := q.items[0]
			q.items = q.items[1:]
			q.mu.Unlock()
			return t
		}
		q.mu.Unlock()
		runtime.Gosched()
	}
}

// Run passes one statement of trx from a producer to a consumer and
// returns what the consumer printed.
func Run(trx *Trx, stmt string) string {
	var q Queue
	out := make(chan string)
	go func() { // producer
		trx.query = nil // S1: the previous statement is done
		s := stmt
		trx.query = &s // S2
		q.push(trx)
	}()
	go func() { // consumer
		t := q.pop()
		out <- *t.query // S5 // want `may be nil when`
	}()
	return <-out
}
