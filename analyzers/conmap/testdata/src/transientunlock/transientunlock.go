// Package transientunlock: an association (pion/sctp's) whose read loop
// handles each chunk with the association's lock held, while its write
// loop counts requests under the same lock. The handlers call
// helpers that let the lock go around each callback and take it again:
// one in a loop that may run no iteration (resetIfAny), one where a
// condition says there are callbacks (restart), one by a deferred Lock
// (notify: mu.Unlock(); defer mu.Lock()). The lock is held again
// when each helper returns, so what the handlers do after the call is
// guarded as much as what they did before it. What runs in the window,
// with the lock let go, is not: a callback that writes a map there is
// reported.
package transientunlock

import "sync"

type Assoc struct {
	mu        sync.Mutex
	streams   map[int]*Stream
	requests  map[int]int
	callbacks map[int]func()
	inbox     chan int
}

type Stream struct {
	id    int
	reset func(id int)
}

func New() *Assoc {
	a := &Assoc{
		streams:   map[int]*Stream{},
		requests:  map[int]int{},
		callbacks: map[int]func(){},
		inbox:     make(chan int),
	}
	go a.readLoop()
	go a.writeLoop()
	return a
}

// Open, Close and Restart are the user's, each in one section of a.mu.
func (a *Assoc) Open(id int, reset func(int)) {
	a.mu.Lock()
	a.streams[id] = &Stream{id: id, reset: reset}
	a.requests[id] = 0
	a.mu.Unlock()
}

func (a *Assoc) Close(id int) {
	a.mu.Lock()
	delete(a.streams, id)
	delete(a.requests, id)
	a.mu.Unlock()
}

func (a *Assoc) OnRestart(id int, f func()) {
	a.mu.Lock()
	a.callbacks[id] = f
	a.mu.Unlock()
}

func (a *Assoc) readLoop() {
	for id := range a.inbox {
		a.handle(id)
	}
}

// writeLoop counts the requests of each stream, in a section of a.mu.
func (a *Assoc) writeLoop() {
	for {
		a.mu.Lock()
		for id := range a.streams {
			a.requests[id]++ // want `concurrent map writes: a.requests is written here and by \(\*Assoc\).recount`
		}
		a.mu.Unlock()
	}
}

func (a *Assoc) handle(id int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.handleParam(id)
	a.handleParam(id + 1)
	a.restart(id)
	a.requests[id]++
	a.notify(id)
	delete(a.requests, id)
}

// notify lets the lock go while the stream's reset callback runs.
func (a *Assoc) notify(id int) {
	s := a.streams[id]
	a.mu.Unlock()
	defer a.mu.Lock()
	if s != nil {
		s.reset(id)
	}
}

func (a *Assoc) handleParam(id int) {
	a.requests[id] = 1
	a.resetIfAny([]int{id, id + 1})
	if s, ok := a.streams[id]; ok {
		a.requests[s.id] = 2
	}
}

// resetIfAny lets the lock go around each stream's reset callback.
func (a *Assoc) resetIfAny(ids []int) {
	for _, id := range ids {
		s, ok := a.streams[id]
		if !ok {
			continue
		}
		a.mu.Unlock()
		s.reset(id)
		a.mu.Lock()
		delete(a.streams, id)
	}
}

// restart runs the restart callbacks without the lock, when there are any.
func (a *Assoc) restart(id int) {
	var cbs []func()
	for _, f := range a.callbacks {
		cbs = append(cbs, f)
	}
	if len(cbs) != 0 {
		a.mu.Unlock()
		for _, f := range cbs {
			f()
		}
		a.recount(id)
		a.mu.Lock()
	}
	delete(a.requests, id)
}

// recount runs in restart's window, without the lock.
func (a *Assoc) recount(id int) {
	a.requests[id] = len(a.streams) // want `concurrent map read and map write: a.requests is written here and read by \(\*Assoc\).writeLoop`
}

// Registry's buckets are read under their read lock; a helper upgrades
// it to the write lock to delete an entry and gives the read lock back
// by deferred calls (uber-go/tally's removeWithRLock), so Get's last
// read still holds it, and Purge's deletes under the write lock cannot
// come between.
type Registry struct {
	buckets []*bucket
}

type bucket struct {
	mu sync.RWMutex
	m  map[string]int
}

func NewRegistry() *Registry {
	r := &Registry{buckets: []*bucket{{m: map[string]int{}}}}
	go func() {
		for {
			r.Purge()
		}
	}()
	go func() {
		for {
			r.Get(0, "x")
		}
	}()
	return r
}

func (r *Registry) Get(i int, k string) int {
	b := r.buckets[i%len(r.buckets)]
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.m[k] == 0 {
		r.removeWithRLock(b, k)
	}
	return b.m[k+"/default"]
}

func (r *Registry) removeWithRLock(b *bucket, k string) {
	b.mu.RUnlock()
	defer b.mu.RLock()
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.m, k)
}

func (r *Registry) Purge() {
	for _, b := range r.buckets {
		b.mu.Lock()
		for k := range b.m {
			delete(b.m, k)
		}
		b.mu.Unlock()
	}
}
