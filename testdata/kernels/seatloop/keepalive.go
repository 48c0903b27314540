package seatloop

import (
	"sync"
	"time"
)

// KeepAlive is the liveness bookkeeping of a streaming pull, the shape
// of pubsub's messageIterator (held-out rehearsal 27: its iterator.go:433,
// 445 and 1105 reports): Received, on the receiving goroutine, sets the
// time of the server's last response under pingMu, then reads the
// exactly-once setting under eoMu and sets it there when the server's
// differs; Pinged, on a goroutine of its own for each ping, reads the
// setting through Deadline, counts the ping under sendMu and sets the
// time of the last ping under pingMu;
// Healthy, on a goroutine of its own for each check, reads both times in
// one section of pingMu, and Deadline reads the setting in one section
// of eoMu. Each of Received and Pinged takes locks at several sites, but
// nothing else its goroutine does touches what Healthy's or Deadline's
// section reads: each set falls before or after those sections whole,
// and precog test reports nothing. The true neighbours are seatclaim's
// CalleeCount, AtomicCount and MapCount.
type KeepAlive struct {
	pingMu       sync.RWMutex // guards lastResponse and lastPing
	lastResponse int64
	lastPing     int64

	eoMu        sync.RWMutex // guards exactlyOnce
	exactlyOnce bool

	sendMu sync.Mutex // guards sent
	sent   int        // pings sent
}

// Received notes a response from the server at time now, carrying the
// server's exactly-once setting eo.
func (k *KeepAlive) Received(now int64, eo bool) {
	k.pingMu.Lock()
	k.lastResponse = now
	k.pingMu.Unlock()

	k.eoMu.RLock()
	on := k.exactlyOnce
	k.eoMu.RUnlock()
	if on != eo {
		k.eoMu.Lock()
		k.exactlyOnce = eo
		k.eoMu.Unlock()
	}
}

// Pinged notes a ping sent to the server at time now, and returns the
// ack deadline the ping carried (pubsub's pingStream, whose stream's Send
// takes the stream's lock).
func (k *KeepAlive) Pinged(now int64) time.Duration {
	d := k.Deadline()
	k.sendMu.Lock()
	k.sent++
	k.sendMu.Unlock()
	k.pingMu.Lock()
	k.lastPing = now
	k.pingMu.Unlock()
	return d
}

// Healthy reports whether the server answered since the last ping.
func (k *KeepAlive) Healthy() bool {
	k.pingMu.RLock()
	resp, ping := k.lastResponse, k.lastPing
	k.pingMu.RUnlock()
	return resp >= ping
}

// Deadline returns the ack deadline: longer with exactly-once delivery.
func (k *KeepAlive) Deadline() time.Duration {
	k.eoMu.RLock()
	on := k.exactlyOnce
	k.eoMu.RUnlock()
	return bounded(10*time.Second, on)
}

// bounded returns the deadline d, at least a minute with exactly-once
// delivery on.
func bounded(d time.Duration, exactlyOnce bool) time.Duration {
	if exactlyOnce {
		return max(d, time.Minute)
	}
	return d
}
