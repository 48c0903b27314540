// Package publishafter is publishbefore's WRONG twin: the agent's
// goroutine appends a fresh Packet to a slice under a mutex and only then
// sets its flags, without the lock. The test, which gets the packet back
// by index under the same mutex as soon as it is there, may read the
// flags before they are set: a zero where the request said 3, a wrong
// result (con-uninit). The read of the element orders the test after the
// appending section (detect/hb, Hand-offs), not after what the agent does
// once it has left it. In the usual schedule the agent sets the flags
// right after the append, long before the test's next poll.
package publishafter

import "sync"

// A Packet is a parsed request.
type Packet struct {
	Flags int
	Vars  []int
}

// An Agent keeps the requests it has served.
type Agent struct {
	mu       sync.Mutex
	requests []*Packet
}

// Serve publishes a fresh packet for each request, then fills it: its
// variables before the append, its flags after.
func (a *Agent) Serve(reqs [][]byte) {
	for _, b := range reqs {
		p := &Packet{Vars: make([]int, len(b)-1)}
		for i := range p.Vars {
			p.Vars[i] = int(b[i+1])
		}
		a.mu.Lock()
		a.requests = append(a.requests, p)
		a.mu.Unlock()
		p.Flags = int(b[0])
	}
}

// Request returns the i-th packet served, or nil if there is none yet.
func (a *Agent) Request(i int) *Packet {
	a.mu.Lock()
	defer a.mu.Unlock()
	if i >= len(a.requests) {
		return nil
	}
	return a.requests[i]
}
