// Package goconstlock is kine's Broadcaster: unsub takes the lock only
// when its lock parameter says so; stream calls it with false while it
// holds the lock, and the goroutines that drop a slow subscriber start
// it with true, `go b.unsub(sub, true)`: every write of the map holds
// the lock, not reported. The final drop without the lock, against those
// goroutines, is.
package goconstlock

import "sync"

type Broadcaster struct {
	sync.Mutex
	subs map[chan int]struct{}
}

func (b *Broadcaster) unsub(sub chan int, lock bool) {
	if lock {
		b.Lock()
	}
	if _, ok := b.subs[sub]; ok {
		close(sub)
		delete(b.subs, sub)
	}
	if lock {
		b.Unlock()
	}
}

func (b *Broadcaster) stream(input chan int) {
	for item := range input {
		b.Lock()
		for sub := range b.subs {
			select {
			case sub <- item:
			default:
				go b.unsub(sub, true)
			}
		}
		b.Unlock()
	}
	b.Lock()
	for sub := range b.subs {
		b.unsub(sub, false)
	}
	b.Unlock()
}

func (b *Broadcaster) Start(input chan int) { go b.stream(input) }

type Unlocked struct {
	sync.Mutex
	subs map[chan int]struct{}
}

func (u *Unlocked) unsub(sub chan int, lock bool) {
	if lock {
		u.Lock()
	}
	delete(u.subs, sub) // want `concurrent map writes: u.subs is written here and by \(\*Unlocked\).stream with no common lock`
	if lock {
		u.Unlock()
	}
}

// stream drops its subscribers at the end without the lock, while
// goroutines it started may still delete.
func (u *Unlocked) stream(input chan int) {
	for range input {
		u.Lock()
		for sub := range u.subs {
			go u.unsub(sub, true)
		}
		u.Unlock()
	}
	for sub := range u.subs {
		delete(u.subs, sub) // want `concurrent map writes: u.subs is written here and by \(\*Unlocked\).unsub with no common lock`
	}
}

func (u *Unlocked) Start(input chan int) { go u.stream(input) }
