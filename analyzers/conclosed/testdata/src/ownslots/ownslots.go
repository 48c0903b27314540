// Package ownslots: goroutines started in a loop, each with the loop's
// counter, that make, fill and close the channel at their own index of a
// slice the spawner made (concurrent-map's snapshot): two goroutines touch
// two elements (Fan, FanRange: silent; reported before, every element of
// the slice being one location). Reported beside them: one element closed
// by every goroutine (Same), a counter of an outer loop handed to the
// goroutines of an inner one (Nested) and an index the goroutine computes
// (Halves).
package ownslots

import "sync"

func Fan(n int) []chan int {
	chans := make([]chan int, n)
	var wg sync.WaitGroup
	wg.Add(n)
	for i := 0; i < n; i++ {
		go func(i int) {
			chans[i] = make(chan int, 1)
			wg.Done()
			chans[i] <- i
			close(chans[i])
		}(i)
	}
	wg.Wait()
	return chans
}

func FanRange(xs []int) (chans []chan int) {
	chans = make([]chan int, len(xs))
	var wg sync.WaitGroup
	wg.Add(len(xs))
	for idx, x := range xs {
		go func(idx, x int) {
			chans[idx] = make(chan int, 1)
			wg.Done()
			chans[idx] <- x
			close(chans[idx])
		}(idx, x)
	}
	wg.Wait()
	return chans
}

func Same(n int) []chan int {
	chans := make([]chan int, n)
	for i := 0; i < n; i++ {
		chans[i] = make(chan int)
	}
	for i := 0; i < n; i++ {
		go func(i int) {
			close(chans[0]) // want `close of closed channel: chans\[0\] may also be closed by func literal in Same`
		}(i)
	}
	return chans
}

func Nested(n int) []chan int {
	chans := make([]chan int, n)
	for i := 0; i < n; i++ {
		chans[i] = make(chan int)
	}
	for i := 0; i < n; i++ {
		for j := 0; j < 2; j++ {
			go func(i int) {
				close(chans[i]) // want `close of closed channel: chans\[i\] may also be closed by func literal in Nested`
			}(i)
		}
	}
	return chans
}

func Halves(n int) []chan int {
	chans := make([]chan int, 2)
	for i := range chans {
		chans[i] = make(chan int)
	}
	for i := 0; i < n; i++ {
		go func(i int) {
			close(chans[i%2]) // want `close of closed channel: chans\[i % 2\] may also be closed by func literal in Halves`
		}(i)
	}
	return chans
}
