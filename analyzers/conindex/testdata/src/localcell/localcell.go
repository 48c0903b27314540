// Package localcell: a local variable that a closure captures lives in a
// cell each invocation of its function makes. The function's own reads
// and writes of it are that invocation's, on its goroutine, even when the
// function also runs on other goroutines (hedgedhttp's RoundTrip, which a
// worker pool's goroutines call through a wrapped transport, keeps the
// index of the winning request in such a variable, read by a closure it
// hands the pool at its return). Only a closure that runs on another
// goroutine and writes the cell makes a conflict.
package localcell

import "time"

var queue = make(chan func())

// run hands task to an idle worker, or starts one that then serves the
// queue until it has been idle for a while.
func run(task func()) {
	select {
	case queue <- task:
	default:
		go func() {
			task()
			idle := time.NewTicker(10 * time.Second)
			for {
				select {
				case t := <-queue:
					t()
				case <-idle.C:
					return
				}
			}
		}()
	}
}

type Doer interface{ Do() int }

// T fans a call out to n calls of next and keeps the first answer.
type T struct {
	next Doer
	n    int
}

// Wrap puts a T in front of h's Doer, which may be another T.
func Wrap(h *Holder, n int) { h.D = &T{next: h.D, n: n} }

type Holder struct{ D Doer }

// Do's index is its own: the closure handed to the pool only reads it.
func (t *T) Do() int {
	results := make(chan int, t.n)
	winner := -1
	cancels := make([]func(), t.n)
	defer run(func() {
		for i, cancel := range cancels {
			if i != winner {
				cancel()
			}
		}
	})
	for i := 0; i < t.n; i++ {
		cancels[i] = func() {}
		run(func() { t.next.Do(); results <- i })
	}
	winner = <-results
	cancels[winner]()
	return winner
}

// U is T whose closure handed to the pool also writes the index.
type U struct {
	next Doer
	n    int
}

func WrapU(h *Holder, n int) { h.D = &U{next: h.D, n: n} }

func (u *U) Do() int {
	results := make(chan int, u.n)
	winner := -1
	cancels := make([]func(), u.n)
	for i := 0; i < u.n; i++ {
		cancels[i] = func() {}
		run(func() { u.next.Do(); results <- i; winner = i + 1 })
	}
	winner = <-results
	cancels[winner]() // want `may be out of range`
	return winner
}
