package seatloop

import "sync"

// KeepAlive is the liveness bookkeeping of a streaming pull, the shape of
// pubsub's messageIterator (held-out rehearsal 27): Received, on the
// receiving goroutine, looks at the exactly-once setting under setMu and
// then sets the time of the server's last response under pingMu, in a
// section of its own; Pinged sets the time of the last ping the same
// way; Healthy, on the keep-alive goroutine, reads both times in one
// section. Each set falls before or after a Healthy section whole, and
// the setting's section touches nothing Healthy reads: precog test
// reports nothing.
type KeepAlive struct {
	setMu       sync.RWMutex // guards exactlyOnce
	exactlyOnce bool

	pingMu       sync.RWMutex // guards lastResponse and lastPing
	lastResponse int64
	lastPing     int64
}

// SetExactlyOnce turns exactly-once delivery on or off.
func (k *KeepAlive) SetExactlyOnce(on bool) {
	k.setMu.Lock()
	k.exactlyOnce = on
	k.setMu.Unlock()
}

// Received notes a response from the server at time now, and reports
// whether exactly-once delivery is on.
func (k *KeepAlive) Received(now int64) bool {
	k.setMu.RLock()
	on := k.exactlyOnce
	k.setMu.RUnlock()

	k.pingMu.Lock()
	k.lastResponse = now
	k.pingMu.Unlock()
	return on
}

// Pinged notes a ping sent to the server at time now.
func (k *KeepAlive) Pinged(now int64) {
	k.pingMu.Lock()
	k.lastPing = now
	k.pingMu.Unlock()
}

// Healthy reports whether the server answered since the last ping.
func (k *KeepAlive) Healthy() bool {
	k.pingMu.RLock()
	resp, ping := k.lastResponse, k.lastPing
	k.pingMu.RUnlock()
	return resp >= ping
}
