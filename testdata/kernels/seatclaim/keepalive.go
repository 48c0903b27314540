package seatclaim

import "sync"

// KeepAlive is the true neighbour of seatloop's KeepAlive (pubsub's
// keep-alive bookkeeping): Received counts the response in one section
// and sets its time in the next, both under pingMu, and Healthy reads the
// count and the time in one section. A Healthy between Received's two
// sections sees the update half done: a response counted whose time is
// still the one before.
type KeepAlive struct {
	pingMu       sync.RWMutex // guards responses and lastResponse
	responses    int
	lastResponse int64
}

// Received notes a response from the server at time now (in
// nanoseconds).
func (k *KeepAlive) Received(now int64) {
	k.pingMu.Lock()
	k.responses++
	k.pingMu.Unlock()

	k.pingMu.Lock()
	k.lastResponse = now
	k.pingMu.Unlock()
}

// Healthy reports how many times the server answered and when it last
// did.
func (k *KeepAlive) Healthy() (int, int64) {
	k.pingMu.RLock()
	defer k.pingMu.RUnlock()
	return k.responses, k.lastResponse
}
