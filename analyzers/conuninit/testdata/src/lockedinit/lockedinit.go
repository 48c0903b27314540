// Package lockedinit holds goroutines that read what their starter sets
// after starting them, with the starter and the goroutine holding one
// mutex: silent when the starter holds it in one critical section from
// the start through the write (the goroutine cannot take it before the
// write), reported when the starter releases it between the two or the
// goroutine reads without it.
package lockedinit

import (
	"sync"
	"time"
)

type pool struct {
	mu    sync.Mutex
	idle  int
	timer *time.Timer
	other *time.Timer
	late  *time.Timer
}

// Put arms the idle timer and stores it in one critical section; the
// callback takes the lock before it reads the timer: silent.
func (p *pool) Put() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.idle++
	p.timer = time.AfterFunc(time.Second, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.timer.Stop()
		p.idle = 0
	})
}

// Arm stores the timer after releasing the lock it started the callback
// under: the callback can take the lock first and read nil.
func (p *pool) Arm() {
	p.mu.Lock()
	t := time.AfterFunc(time.Second, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.other.Stop() // want `p.other may be read before it is set`
	})
	p.mu.Unlock()
	p.other = t
}

// Start holds the lock through the write, but its goroutine reads
// without the lock.
func (p *pool) Start() {
	p.mu.Lock()
	defer p.mu.Unlock()
	go func() {
		p.late.Stop() // want `p.late may be read before it is set`
	}()
	p.late = time.NewTimer(time.Second)
}
