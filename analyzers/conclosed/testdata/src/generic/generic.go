// Package generic: closes in the methods of generic types, called from
// goroutines through go/ssa's instantiation wrappers. Pool's Close closes
// its channel on every call (reported: two goroutines of one loop close
// it twice); OncePool's closes once (silent).
package generic

import "sync"

type Pool[T any] struct {
	items []T
	done  chan struct{}
}

func (p *Pool[T]) Close() {
	close(p.done) // want `close of closed channel: p.done may also be closed by \(\*Pool\).Close`
}

func RunPool() {
	p := &Pool[int]{done: make(chan struct{})}
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.Close()
		}()
	}
	wg.Wait()
}

type OncePool[T any] struct {
	once  sync.Once
	items []T
	done  chan struct{}
}

func (p *OncePool[T]) Close() {
	p.once.Do(func() { close(p.done) })
}

func RunOncePool() {
	p := &OncePool[int]{done: make(chan struct{})}
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.Close()
		}()
	}
	wg.Wait()
}
