// Package unbufstop: a sampler goroutine writes a map until the stop
// function's send on an unbuffered channel, which it returns on. The send
// completes only once the sampler received it (the Go memory model), so
// the stop function's iteration after the send runs after the sampler's
// last write: silent. Reported: the same with a buffered channel, whose
// send returns while the sampler may still write, and a map that every
// sampler writes, which the other samplers go on writing.
package unbufstop

import "time"

type profile struct{ stacks map[int]int }

func Start() func() int {
	ticker := time.NewTicker(time.Millisecond)
	stopCh := make(chan struct{})
	p := &profile{stacks: map[int]int{}}
	count := 0
	go func() {
		defer ticker.Stop()
		for {
			select {
			case <-ticker.C:
				count++
				p.stacks[count%3]++
			case <-stopCh:
				return
			}
		}
	}()
	return func() int {
		stopCh <- struct{}{}
		n := 0
		for _, v := range p.stacks {
			n += v
		}
		return n + count
	}
}

func StartBuffered() func() int {
	ticker := time.NewTicker(time.Millisecond)
	stopCh := make(chan struct{}, 1)
	p := &profile{stacks: map[int]int{}}
	go func() {
		defer ticker.Stop()
		for {
			select {
			case <-ticker.C:
				p.stacks[1]++
			case <-stopCh:
				return
			}
		}
	}()
	return func() int {
		stopCh <- struct{}{}
		n := 0
		for _, v := range p.stacks { // want `p.stacks is iterated here while func literal in StartBuffered may write it concurrently`
			n += v
		}
		return n
	}
}

var all = map[int]int{}

func StartShared() func() int {
	ticker := time.NewTicker(time.Millisecond)
	stopCh := make(chan struct{})
	go func() {
		defer ticker.Stop()
		for {
			select {
			case <-ticker.C:
				all[1]++
			case <-stopCh:
				return
			}
		}
	}()
	return func() int {
		stopCh <- struct{}{}
		n := 0
		for _, v := range all { // want `all is iterated here while func literal in StartShared may write it concurrently`
			n += v
		}
		return n
	}
}

// Sample runs each sampler for a while, as a test does.
func Sample() int {
	n := 0
	for _, start := range []func() func() int{Start, StartBuffered, StartShared} {
		stop := start()
		time.Sleep(10 * time.Millisecond)
		n += stop()
	}
	return n
}
