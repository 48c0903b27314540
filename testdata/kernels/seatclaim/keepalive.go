package seatclaim

import (
	"sync"
	"sync/atomic"
)

// The keep-alive bookkeeping of a streaming pull (pubsub's
// messageIterator, held-out rehearsal 27) in three shapes whose update
// is half done between two of its steps: Received, on the receiving
// goroutine, looks at a setting under setMu, counts the response, and
// then sets the response's time under pingMu; Healthy, on the test's
// goroutine, reads the count and the time in one section of pingMu. A
// Healthy between the count and the time sees a response counted whose
// time is still the one before. Each Received takes locks at two sites
// of its own (setMu's and pingMu's), so its set of the time is no lone
// setter by the one-Lock-site rule; review A's programs (thirty-first
// stop) showed that passing the other sections of the call when they
// commute with Healthy's is not enough: the count may be taken in a
// callee's section (CalleeCount), outside any section (AtomicCount) or
// by a map write that no footprint of plain accesses holds (MapCount);
// and, as a rule looking at the setter's goroutine alone missed, in a
// section at the set's own Lock site (LoopCount) or on a goroutine the
// update starts and waits for (SpawnedCount).

// CalleeCount counts the response in a section of its own method,
// called by Received between the setting's section and the time's.
type CalleeCount struct {
	setMu sync.RWMutex // guards on
	on    bool

	pingMu    sync.RWMutex // guards responses and last
	responses int64
	last      int64
}

// count counts a response.
func (k *CalleeCount) count() {
	k.pingMu.Lock()
	k.responses++
	k.pingMu.Unlock()
}

// Received notes a response from the server at time now (its count,
// from 1), and reports whether the setting is on.
func (k *CalleeCount) Received(now int64) bool {
	k.setMu.RLock()
	on := k.on
	k.setMu.RUnlock()
	k.count()
	k.pingMu.Lock()
	k.last = now
	k.pingMu.Unlock()
	return on
}

// Healthy returns how many responses came and the time of the last.
func (k *CalleeCount) Healthy() (int64, int64) {
	k.pingMu.RLock()
	defer k.pingMu.RUnlock()
	return k.responses, k.last
}

// AtomicCount counts the response in an atomic, outside any section;
// Healthy loads it inside its section of pingMu.
type AtomicCount struct {
	setMu sync.RWMutex // guards on
	on    bool

	responses atomic.Int64

	pingMu sync.RWMutex // guards last
	last   int64
}

// Received notes a response from the server at time now (its count,
// from 1), and reports whether the setting is on.
func (k *AtomicCount) Received(now int64) bool {
	k.setMu.RLock()
	on := k.on
	k.setMu.RUnlock()
	k.responses.Add(1)
	k.pingMu.Lock()
	k.last = now
	k.pingMu.Unlock()
	return on
}

// Healthy returns how many responses came and the time of the last.
func (k *AtomicCount) Healthy() (int64, int64) {
	k.pingMu.RLock()
	defer k.pingMu.RUnlock()
	return k.responses.Load(), k.last
}

// MapCount notes each response's time in a map, in a section of pingMu
// of its own before the time's; Healthy ranges over the map.
type MapCount struct {
	setMu sync.RWMutex // guards on
	on    bool

	pingMu sync.RWMutex // guards seen and last
	seen   map[int64]bool
	last   int64
}

// Received notes a response from the server at time now (its count,
// from 1), and reports whether the setting is on.
func (k *MapCount) Received(now int64) bool {
	k.setMu.RLock()
	on := k.on
	k.setMu.RUnlock()
	k.pingMu.Lock()
	k.seen[now] = true
	k.pingMu.Unlock()
	k.pingMu.Lock()
	k.last = now
	k.pingMu.Unlock()
	return on
}

// Healthy returns how many responses came and the time of the last.
func (k *MapCount) Healthy() (int64, int64) {
	k.pingMu.RLock()
	defer k.pingMu.RUnlock()
	n := int64(0)
	for range k.seen {
		n++
	}
	return n, k.last
}

// LoopCount counts the response and sets its time in one loop of two
// turns, each turn a section of pingMu at one Lock site: the count is a
// step of the call taken at the set's own site.
type LoopCount struct {
	setMu sync.RWMutex // guards on
	on    bool

	pingMu    sync.RWMutex // guards responses and last
	responses int64
	last      int64
}

// Received notes a response from the server at time now (its count,
// from 1), and reports whether the setting is on.
func (k *LoopCount) Received(now int64) bool {
	k.setMu.RLock()
	on := k.on
	k.setMu.RUnlock()
	for i := range 2 {
		k.pingMu.Lock()
		if i == 0 {
			k.responses++
		} else {
			k.last = now
		}
		k.pingMu.Unlock()
	}
	return on
}

// Healthy returns how many responses came and the time of the last.
func (k *LoopCount) Healthy() (int64, int64) {
	k.pingMu.RLock()
	defer k.pingMu.RUnlock()
	return k.responses, k.last
}

// SpawnedCount counts the response on a goroutine that Received starts
// and waits for.
type SpawnedCount struct {
	setMu sync.RWMutex // guards on
	on    bool

	pingMu    sync.RWMutex // guards responses and last
	responses int64
	last      int64
}

// Received notes a response from the server at time now (its count,
// from 1), and reports whether the setting is on.
func (k *SpawnedCount) Received(now int64) bool {
	k.setMu.RLock()
	on := k.on
	k.setMu.RUnlock()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		k.pingMu.Lock()
		k.responses++
		k.pingMu.Unlock()
	}()
	wg.Wait()
	k.pingMu.Lock()
	k.last = now
	k.pingMu.Unlock()
	return on
}

// Healthy returns how many responses came and the time of the last.
func (k *SpawnedCount) Healthy() (int64, int64) {
	k.pingMu.RLock()
	defer k.pingMu.RUnlock()
	return k.responses, k.last
}
