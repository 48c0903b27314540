// Package publishbefore is a negative control of hand-offs through a
// container (detect/hb, Hand-offs): an agent's goroutine parses each
// request into a fresh Packet (its fields written without a lock), then
// appends the packet to a slice under a mutex; the test gets the packet
// back by index under the same mutex and reads its fields. The test's
// reads come after the parse: the read of the slice's element under the
// mutex returned the pointer the append stored there, so the appending
// section ran first, and the parse before it. Nothing is reported
// (before detect/hb ordered a read of the value a section of the same
// lock stored, and the instrumenter recorded the element reads of a slice
// filled by append: a con-uninit at each field read and a con-index at
// the index, as in a held-out agent's test).
package publishbefore

import "sync"

// A Packet is a parsed request.
type Packet struct {
	Flags int
	Vars  []int
}

// Parse fills p from b: its first byte is the flags, the rest the
// variables.
func Parse(b []byte, p *Packet) {
	p.Flags = int(b[0])
	p.Vars = make([]int, len(b)-1)
	for i := range p.Vars {
		p.Vars[i] = int(b[i+1])
	}
}

// An Agent keeps the requests it has served.
type Agent struct {
	mu       sync.Mutex
	requests []*Packet
}

// Serve parses each request into a fresh packet, then publishes it.
func (a *Agent) Serve(reqs [][]byte) {
	for _, b := range reqs {
		p := new(Packet)
		Parse(b, p)
		a.mu.Lock()
		a.requests = append(a.requests, p)
		a.mu.Unlock()
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
