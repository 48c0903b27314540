package lazyconn

import "time"

// ReadyPool is the RIGHT version: Dial closes ready once the connection is
// published, and Do waits for it. The channel orders the write before the
// read, so no schedule reverses them: targeted perturbation has nothing to
// force and the request always finds the connection.
type ReadyPool struct {
	Pool
	ready chan struct{}
}

// NewReadyPool returns a pool whose requests wait for the dial.
func NewReadyPool() *ReadyPool { return &ReadyPool{ready: make(chan struct{})} }

// Dial connects to addr and then lets the requests go.
func (p *ReadyPool) Dial(addr string, handshake time.Duration) {
	p.Pool.Dial(addr, handshake)
	close(p.ready)
}

// Do sends a request once the dial is done.
func (p *ReadyPool) Do(req string) (string, error) {
	<-p.ready
	return p.Pool.Do(req)
}
