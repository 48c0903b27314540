// Package lockhandoff: a summary whose asyncFlush locks mtx and starts a
// goroutine that flushes and then unlocks it, as prometheus's summary
// does. The flush runs with mtx held, as Write's does, so nothing is
// reported. Near misses, reported: a goroutine that the starter does not
// hand the lock to (the starter unlocks it itself), and a mutex that
// another function unlocks without having locked it.
package lockhandoff

import "sync"

type Summary struct {
	mtx     sync.Mutex
	streams map[int]int
}

func New() *Summary {
	s := &Summary{streams: map[int]int{}}
	go s.loop()
	return s
}

func (s *Summary) loop() {
	for i := range 10 {
		s.asyncFlush()
		s.Write(i)
	}
}

func (s *Summary) asyncFlush() {
	s.mtx.Lock()
	go func() {
		s.flush()
		s.mtx.Unlock()
	}()
}

func (s *Summary) flush() {
	s.streams[0]++
}

func (s *Summary) Write(i int) {
	s.mtx.Lock()
	s.streams[i] = 0
	s.mtx.Unlock()
}

// Unhanded's starter unlocks the mutex itself after the go statement.
type Unhanded struct {
	mtx     sync.Mutex
	streams map[int]int
}

func NewUnhanded() *Unhanded {
	s := &Unhanded{streams: map[int]int{}}
	go s.loop()
	return s
}

func (s *Unhanded) loop() {
	for i := range 10 {
		s.asyncFlush()
		s.Write(i)
	}
}

func (s *Unhanded) asyncFlush() {
	s.mtx.Lock()
	go func() {
		s.streams[0]++ // want `concurrent map writes: s.streams is written here and by \(\*Unhanded\).Write`
	}()
	s.mtx.Unlock()
}

func (s *Unhanded) Write(i int) {
	s.mtx.Lock()
	s.streams[i] = 0 // want `concurrent map read and map write: s.streams is written here and read by func literal in \(\*Unhanded\).asyncFlush`
	s.mtx.Unlock()
}

// Aborted's mutex is also unlocked by Abort, which did not lock it.
type Aborted struct {
	mtx     sync.Mutex
	streams map[int]int
}

func NewAborted() *Aborted {
	s := &Aborted{streams: map[int]int{}}
	go s.loop()
	return s
}

func (s *Aborted) loop() {
	for i := range 10 {
		s.asyncFlush()
		s.Abort()
		s.Write(i)
	}
}

func (s *Aborted) asyncFlush() {
	s.mtx.Lock()
	go func() {
		s.streams[0]++ // want `concurrent map writes: s.streams is written here and by \(\*Aborted\).Write`
		s.mtx.Unlock()
	}()
}

func (s *Aborted) Abort() { s.mtx.Unlock() }

func (s *Aborted) Write(i int) {
	s.mtx.Lock()
	s.streams[i] = 0 // want `concurrent map read and map write: s.streams is written here and read by func literal in \(\*Aborted\).asyncFlush`
	s.mtx.Unlock()
}

// Deferred's goroutine unlocks the handed mutex by a deferred call, and a
// subscriber's own goroutine locks it with a deferred unlock too, as
// watermill's GoChannel.Subscribe does: silent like Summary.
type Deferred struct {
	mtx  sync.RWMutex
	subs map[string][]int
	done chan struct{}
}

func (d *Deferred) Subscribe(topic string, s int) {
	d.mtx.Lock()
	go func() {
		<-d.done
		d.mtx.Lock()
		defer d.mtx.Unlock()
		delete(d.subs, topic)
	}()
	go func() {
		defer d.mtx.Unlock()
		d.subs[topic] = append(d.subs[topic], s)
	}()
}

func (d *Deferred) Count(topic string) int {
	d.mtx.RLock()
	defer d.mtx.RUnlock()
	return len(d.subs[topic])
}

// DeferAborted's mutex is also unlocked by a deferred call in Abort,
// which did not lock it.
type DeferAborted struct {
	mtx  sync.Mutex
	subs map[string]int
}

func NewDeferAborted() *DeferAborted {
	d := &DeferAborted{subs: map[string]int{}}
	go d.loop()
	return d
}

func (d *DeferAborted) loop() {
	for range 10 {
		d.Subscribe("t")
		d.Abort()
		d.Write("t")
	}
}

func (d *DeferAborted) Subscribe(topic string) {
	d.mtx.Lock()
	go func() {
		defer d.mtx.Unlock()
		d.subs[topic]++ // want `concurrent map writes: d.subs is written here and by \(\*DeferAborted\).Write`
	}()
}

func (d *DeferAborted) Abort() {
	defer d.mtx.Unlock()
}

func (d *DeferAborted) Write(topic string) {
	d.mtx.Lock()
	d.subs[topic] = 0 // want `concurrent map read and map write: d.subs is written here and read by func literal in \(\*DeferAborted\).Subscribe`
	d.mtx.Unlock()
}
