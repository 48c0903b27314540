// Package copyinit is gocron's singleton runner: a job passed by value
// whose copy a goroutine takes by pointer, and which that goroutine sets
// again only when its context ends. The copy holds what its source held
// when the function began (the queue that the job's option made), so the
// starter's read after the go statement is no read before an
// initialization; nor is a read of a copy taken with `c := *f` before
// the go statement. The control reads the queue of the job a pointer
// reaches, which no code sets but the goroutine.
package copyinit

import "sync"

type job struct {
	mu    *sync.Mutex
	queue chan struct{}
	done  chan struct{}
}

func (j *job) runner() {
	for {
		select {
		case <-j.done:
			j.mu.Lock()
			j.queue = make(chan struct{}, 10)
			j.mu.Unlock()
			return
		case <-j.queue:
		}
	}
}

// Run sends to the queue of its copy of f, which f brought.
func Run(f job) {
	go f.runner()
	f.mu.Lock()
	f.queue <- struct{}{}
	f.mu.Unlock()
}

// Ptr sends to the queue of the job f points to, which no code sets but
// the goroutine.
func Ptr(f *job) {
	go f.runner()
	f.mu.Lock()
	f.queue <- struct{}{} // want `f.queue may be read before it is set: \(\*job\).runner sets it on the goroutine started at line 43, which may not have run yet`
	f.mu.Unlock()
}

// Copy sends to the queue of its copy of *f, taken before the go
// statement.
func Copy(f *job) {
	c := *f
	go c.runner()
	c.mu.Lock()
	c.queue <- struct{}{}
	c.mu.Unlock()
}
