// Package spawnerjoin: a spawner of the package runs its function
// parameter on a goroutine whose function defers Done (selpub's
// Publisher); the goroutine is rooted where Publisher is called, at the
// literal passed, and the deferred Done of the spawner's own goroutine
// function joins all of the literal's work, also what it runs through a
// function value it was handed. Hub's Close waits: silent. Bus's Close
// does not: reported.
package spawnerjoin

import "sync"

type Hub struct {
	events chan int
	pubs   sync.WaitGroup
}

// Publisher runs f on a goroutine of its own; f publishes through publish.
func (h *Hub) Publisher(f func(publish func(int))) {
	h.pubs.Add(1)
	go func() {
		defer h.pubs.Done()
		f(func(e int) {
			select {
			case h.events <- e:
			default:
			}
		})
	}()
}

// Close waits for the publishers, then closes the channel.
func (h *Hub) Close() {
	h.pubs.Wait()
	close(h.events)
}

func Publish() {
	h := &Hub{events: make(chan int, 4)}
	h.Publisher(func(publish func(int)) { publish(1) })
	h.Close()
}

type Bus struct {
	events chan int
	pubs   sync.WaitGroup
}

func (b *Bus) Publisher(f func(publish func(int))) {
	b.pubs.Add(1)
	go func() {
		defer b.pubs.Done()
		f(func(e int) {
			select {
			case b.events <- e: // want `send on closed channel: b.events may be closed concurrently by \(\*Bus\).Close`
			default:
			}
		})
	}()
}

// Close closes the channel without waiting for the publishers.
func (b *Bus) Close() {
	close(b.events)
}

func PublishBus() {
	b := &Bus{events: make(chan int, 4)}
	b.Publisher(func(publish func(int)) { publish(1) })
	b.Close()
}
