// Package initfix holds initializations that run after the go statement
// whose goroutine reads them (Transmission's shape), with and without a
// mechanical fix. The fix moves the assignment above the go statement
// when it is the next statement and its value calls no function; the
// golden file is the result.
package initfix

// A Bandwidth meters a session's traffic.
type Bandwidth struct{ rate int }

func (b *Bandwidth) allocate() int { return b.rate }

// A Session moves pieces for one torrent.
type Session struct {
	band  *Bandwidth
	peers *Bandwidth
	out   chan int
}

// Open sets the meter right after starting the loop that reads it: fixed.
func Open(rate int) *Session {
	h := &Session{out: make(chan int, 1)}
	go h.eventLoop()
	h.band = &Bandwidth{rate: rate} // the session's share
	return h
}

func (h *Session) eventLoop() {
	h.out <- h.band.allocate() // want `h.band may be read before it is set`
}

// Dial sets the meter from a call, which could need the goroutine
// running: no fix.
func Dial(rate int) *Session {
	h := &Session{out: make(chan int, 1)}
	go h.peerLoop()
	h.peers = newBandwidth(rate)
	return h
}

func newBandwidth(rate int) *Bandwidth { return &Bandwidth{rate: rate} }

func (h *Session) peerLoop() {
	h.out <- h.peers.allocate() // want `h.peers may be read before it is set`
}
