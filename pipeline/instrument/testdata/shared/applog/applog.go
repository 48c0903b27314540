// Package applog is a log of requests under a mutex, filled only by
// append: a goroutine appends each request it parses, and readers get
// one back by index. No statement stores to an element, yet the element
// reads are shared: the appends store the elements they add (the
// rewriter records them when they are pointer-shaped, shim.Append).
package applog

import "sync"

// A Packet is a parsed request.
type Packet struct{ Flags int }

// Log keeps the requests served, and their sizes.
type Log struct {
	mu    sync.Mutex
	reqs  []*Packet
	sizes []int
}

// Start serves n requests on a goroutine of its own.
func Start(n int) *Log {
	l := new(Log)
	go l.serve(n)
	return l
}

func (l *Log) serve(n int) {
	for i := range n {
		p := &Packet{Flags: i}
		l.mu.Lock()
		l.reqs = append(l.reqs, p)
		l.sizes = append(l.sizes, i)
		l.mu.Unlock()
	}
}

// Request returns the i-th request and its size, or nil.
func (l *Log) Request(i int) (*Packet, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if i >= len(l.reqs) {
		return nil, 0
	}
	p := l.reqs[i]  // shared
	n := l.sizes[i] // unshared: appends of numbers are not recorded
	return p, n
}
