// Package lockrange is the kernel of a lock held by a caller around the
// code that makes the access (issue 10, item 5): the body of a range over
// a function (maps.Keys) runs while its range statement does, so the
// mutex locked before the loop is held inside it. precog vet's lock sets
// gave such a body no caller, and reported its accesses as unlocked: a
// false con-null on Broadcast in right.go.
//
// Bug (this file): Notify ranges over the subscribers without the lock
// while Close stores nil to the hub's sink under it. The sink is checked
// and then dereferenced; Close's store between the two panics with a nil
// pointer dereference. RIGHT version: right.go, Broadcast holds the lock
// around the range.
package lockrange

import (
	"maps"
	"sync"
)

// Sink receives notifications.
type Sink struct{ n int }

// Hub fans notifications out to its subscribers through its sink.
type Hub struct {
	mu   sync.Mutex
	sink *Sink
	subs map[string]bool
}

// NewHub returns a hub with subscribers names.
func NewHub(names ...string) *Hub {
	h := &Hub{sink: &Sink{}, subs: make(map[string]bool)}
	for _, n := range names {
		h.subs[n] = true
	}
	return h
}

// Notify hands one notification per subscriber to the sink, unlocked.
func (h *Hub) Notify() {
	for name := range maps.Keys(h.subs) {
		if h.sink != nil {
			h.sink.n += len(name) // want `may be nil when`
		}
	}
}

// Close drops the sink.
func (h *Hub) Close() {
	h.mu.Lock()
	h.sink = nil
	h.mu.Unlock()
}
