// Package taskparam: a spawner hands its function parameter to one task
// literal of a sync.WaitGroup (Go), which calls it and then closes the channel it
// gave it (`defer close(c2); b(c2)`). The method value the caller
// passes runs on that task's goroutine only, once per call: its sends
// come before the literal's close, and its own close of w.closeCh runs
// once (silent: Sum). Called from two task literals at once (Twice), the
// walker closes w.closeCh on two goroutines: reported.
package taskparam

import "sync"

type walkerFn func(out chan<- int)

type walker struct {
	in      chan int
	closeCh chan struct{}
}

func (w *walker) fill(out chan<- int) {
	for p := range w.in {
		if p < 0 {
			close(w.closeCh)
			return
		}
		out <- p
	}
}

func diff(a, b walkerFn) int {
	var g sync.WaitGroup
	c1 := make(chan int, 8)
	c2 := make(chan int, 8)
	g.Go(func() {
		defer close(c1)
		a(c1)
	})
	g.Go(func() {
		defer close(c2)
		b(c2)
	})
	sum := 0
	g.Go(func() {
		for v := range c1 {
			sum += v
		}
		for v := range c2 {
			sum += v
		}
	})
	g.Wait()
	return sum
}

func empty(out chan<- int) {}

// Sum sends vals through a walker and adds them up on the other side.
func Sum(vals []int) int {
	w := &walker{in: make(chan int), closeCh: make(chan struct{})}
	go func() {
		defer close(w.in)
		for _, v := range vals {
			select {
			case w.in <- v:
			case <-w.closeCh:
				return
			}
		}
	}()
	return diff(empty, w.fill)
}

type twiceWalker struct {
	in      chan int
	closeCh chan struct{}
}

func (w *twiceWalker) fill(out chan<- int) {
	for p := range w.in {
		if p < 0 {
			close(w.closeCh) // want `close of closed channel: w.closeCh may also be closed by \(\*twiceWalker\).fill`
			return
		}
		out <- p
	}
}

func both(b walkerFn) {
	var g sync.WaitGroup
	g.Go(func() {
		c := make(chan int, 8)
		defer close(c)
		b(c)
	})
	g.Go(func() {
		c := make(chan int, 8)
		defer close(c)
		b(c)
	})
	g.Wait()
}

// Twice runs one walker on two goroutines at once.
func Twice(vals []int) {
	w := &twiceWalker{in: make(chan int), closeCh: make(chan struct{})}
	go func() {
		defer close(w.in)
		for _, v := range vals {
			w.in <- v
		}
	}()
	both(w.fill)
}
