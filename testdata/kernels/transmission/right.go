package transmission

import "time"

// The RIGHT version of the same code, which precog vet must not report:
// the peer manager is created before the go statement that starts the loop
// reading it.

// peerMgr is tr_peerMgr: the peer connections of the session.
type peerMgr struct {
	pulses int
}

func (m *peerMgr) pulse() { m.pulses++ }

// peerSession is a session whose loop reads only what was set before it
// started.
type peerSession struct {
	peerMgr *peerMgr
	stop    chan struct{}
	done    chan struct{}
}

// NewPeerSession sets the peer manager, then starts the loop.
func NewPeerSession(period time.Duration) *peerSession {
	h := &peerSession{stop: make(chan struct{}), done: make(chan struct{})}
	h.peerMgr = &peerMgr{}
	go h.loop(period)
	return h
}

func (h *peerSession) loop(period time.Duration) {
	defer close(h.done)
	tick := time.NewTicker(period)
	defer tick.Stop()
	for {
		h.peerMgr.pulse()
		select {
		case <-h.stop:
			return
		case <-tick.C:
		}
	}
}

// Close stops the loop and waits for it.
func (h *peerSession) Close() {
	close(h.stop)
	<-h.done
}
