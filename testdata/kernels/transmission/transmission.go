// Package transmission is the Transmission kernel (ConMem,
// conmem.txt Fig. 7; Transmission 1.42): a Con-UnInit order violation.
//
// tr_sessionInit starts the libevent thread (tr_eventInit) and only then
// creates the session's bandwidth object (S1: h->bandwidth =
// tr_bandwidthNew(h, NULL)). The event thread's bandwidth pulse asserts that
// h->bandwidth is valid (S2). Here NewSession starts eventLoop with a go
// statement and sets h.band afterwards; eventLoop reads h.band on every
// pulse.
//
// Crashing interleaving:
//
//	NewSession goroutine          event goroutine
//	h := &Session{...}
//	go h.eventLoop()
//	                              S2 h.band.allocate(...)   (h.band is nil)
//	                              panic: assertion failed: tr_isBandwidth(b)
//	S1 h.band = newBandwidth(h)
//
// The test's normal schedule hides the bug: the first pulse comes one period
// (20 ms in the test) after the event loop starts, and NewSession
// sets h.band within microseconds of the go statement.
package transmission

import (
	"sync"
	"time"
)

const bandwidthMagic = 99066

// Bandwidth is tr_bandwidth: the session's rate limiter.
type Bandwidth struct {
	magic   int
	session *Session
	bytes   int
}

func newBandwidth(h *Session) *Bandwidth {
	return &Bandwidth{magic: bandwidthMagic, session: h}
}

// allocate hands out the bytes allowed for one period (tr_bandwidthAllocate).
func (b *Bandwidth) allocate(period time.Duration) {
	if b == nil || b.magic != bandwidthMagic {
		panic("assertion failed: tr_isBandwidth(b)")
	}
	b.bytes = int(period.Microseconds()) * 1024
}

// Session is tr_session.
type Session struct {
	period  time.Duration
	onPulse func()
	band    *Bandwidth
	stop    chan struct{}
	wg      sync.WaitGroup
}

// NewSession is tr_sessionInit. The event loop pulses every period and calls
// onPulse after each pulse.
func NewSession(period time.Duration, onPulse func()) *Session {
	h := &Session{period: period, onPulse: onPulse, stop: make(chan struct{})}
	h.wg.Add(1)
	go h.eventLoop()         // tr_eventInit
	h.band = newBandwidth(h) // S1
	return h
}

// eventLoop is the libevent thread.
func (h *Session) eventLoop() {
	defer h.wg.Done()
	tick := time.NewTicker(h.period)
	defer tick.Stop()
	for {
		select {
		case <-h.stop:
			return
		case <-tick.C:
		}
		h.band.allocate(h.period) // S2 // want `may be read before it is set`
		h.onPulse()
	}
}

// Close stops the event loop and waits for it.
func (h *Session) Close() {
	close(h.stop)
	h.wg.Wait()
}

// Allowed returns the bytes allocated by the last pulse. Call it after Close.
func (h *Session) Allowed() int { return h.band.bytes }
