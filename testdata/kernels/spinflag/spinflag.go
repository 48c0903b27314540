// Package spinflag is a negative control: the spin-loop synchronization of
// ConMem's Fig. 10 (conmem.txt §4.6), which orders a dereference before a
// nil store without any primitive that detect/hb models as order.
//
// A worker uses the shared session object (S1: w.sess.rows++) and then
// raises the stop flag (S2). The cleaner spins until the flag is up (S3)
// and only then drops the session (S4: w.sess = nil). The nil store can
// never come before the dereference, because the cleaner cannot leave its
// loop before S2, which follows S1.
//
//	worker goroutine            cleaner goroutine
//	S1 w.sess.rows++            S3 for !w.stop { runtime.Gosched() }
//	S2 w.stop = true            S4 w.sess = nil
//
// Fig. 10(a)'s flag is a C volatile; Go has no volatile, and a plain bool
// polled by another goroutine is a data race the compiler may hoist out of
// the loop, so the Go form of (a) is an atomic.Bool (RunAtomic), which
// detect/hb orders by itself (an atomic store before the load that read
// it). Fig. 10(b) guards the flag with a lock (RunLocked): the cleaner
// polls the flag in a critical section of each iteration. The lock orders
// nothing, and only the spin-loop inference (conmem's default) sees the
// order: without it, a checker reports S1 and S4 as a Con-NULL bug.
package spinflag

import (
	"runtime"
	"sync"
	"sync/atomic"
)

type session struct{ rows int }

// Worker is the object the two goroutines share.
type Worker struct {
	sess *session

	atomicStop atomic.Bool // Fig. 10(a)

	mu   sync.Mutex // Fig. 10(b)
	stop bool
}

// RunAtomic runs Fig. 10(a) and returns the rows the worker counted.
func RunAtomic() int {
	w := &Worker{sess: &session{}}
	rows := make(chan int)
	done := make(chan struct{})
	go func() { // worker
		w.sess.rows++            // S1 // want `may be nil when`
		rows <- w.sess.rows      // want `may be nil when`
		w.atomicStop.Store(true) // S2
	}()
	go func() { // cleaner
		defer close(done)
		for !w.atomicStop.Load() { // S3
			runtime.Gosched()
		}
		w.sess = nil // S4
	}()
	n := <-rows
	<-done
	return n
}

// RunLocked runs Fig. 10(b) and returns the rows the worker counted.
func RunLocked() int {
	w := &Worker{sess: &session{}}
	rows := make(chan int, 1)
	done := make(chan struct{})
	go func() { // worker
		w.sess.rows++       // S1 // want `may be nil when`
		rows <- w.sess.rows // want `may be nil when`
		w.mu.Lock()
		w.stop = true // S2
		w.mu.Unlock()
	}()
	go func() { // cleaner
		defer close(done)
		for {
			w.mu.Lock()
			stop := w.stop // S3
			w.mu.Unlock()
			if stop {
				break
			}
			runtime.Gosched()
		}
		w.sess = nil // S4
	}()
	<-done
	return <-rows
}
