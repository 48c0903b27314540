// Package transmission is the Transmission kernel (ConMem, conmem.txt Fig. 7;
// Transmission 1.42): a Con-UnInit order violation.
//
// tr_sessionInit starts the libevent thread (tr_eventInit) and only then
// creates the session's bandwidth object (S1: h->bandwidth =
// tr_bandwidthNew(h, NULL)). The event thread's first pulse asserts that
// h->bandwidth is valid (S2). Here NewSession starts eventLoop with a go
// statement and sets h.band afterwards; eventLoop reads h.band on every pulse.
//
// Crashing interleaving:
//
//	NewSession goroutine          event goroutine
//	h := &Session{...}
//	go h.eventLoop()
//	                              S2 h.band.allocate(...)   (h.band is nil)
//	                              panic: assertion failed: tr_isBandwidth
//	S1 h.band = newBandwidth(h)
//
// The normal schedule hides the bug: the new goroutine is usually scheduled
// after NewSession has returned.
//
// RIGHT version in this file: h.peerMgr is created before the go statement.
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
	b.bytes = int(period.Milliseconds()) * 1024
}

// peerMgr is tr_peerMgr: the peer connections of the session.
type peerMgr struct {
	session *Session
	pulses  int
}

func (m *peerMgr) pulse() { m.pulses++ }

// Session is tr_session.
type Session struct {
	peerMgr *peerMgr
	band    *Bandwidth
	stop    chan struct{}
	wg      sync.WaitGroup
}

const pulsePeriod = 500 * time.Millisecond

// NewSession is tr_sessionInit.
func NewSession() *Session {
	h := &Session{stop: make(chan struct{})}
	h.peerMgr = &peerMgr{session: h}
	h.wg.Add(1)
	go h.eventLoop()         // tr_eventInit
	h.band = newBandwidth(h) // S1
	return h
}

// eventLoop is the libevent thread.
func (h *Session) eventLoop() {
	defer h.wg.Done()
	tick := time.NewTicker(pulsePeriod)
	defer tick.Stop()
	for {
		h.band.allocate(pulsePeriod) // want `may be read before it is set`
		h.peerMgr.pulse()
		select {
		case <-h.stop:
			return
		case <-tick.C:
		}
	}
}

// Close stops the event loop and waits for it.
func (h *Session) Close() {
	close(h.stop)
	h.wg.Wait()
}
