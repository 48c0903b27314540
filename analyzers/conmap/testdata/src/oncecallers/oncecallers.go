// Package oncecallers: transports that fill their protocol map once, under
// a sync.Once, and dial goroutines that read it.
//
// Transport's RoundTrip runs the Do before it starts a dial; a connection's
// Close starts a replacement dial without a Do, but a connection exists
// only after a round trip. That order is the importer's (which exported
// function it calls first), not in the package: the diagnostic rests on an
// importer closing a connection before any round trip, at low confidence,
// hidden by default (oncecallersall shows it under -all).
//
// The near miss stays reported: Pool's janitor goroutine, started by
// NewPool, starts a dial without the Do, and no start of the janitor is
// shown to come after it; the package's own goroutine, not an importer,
// decides that order.
package oncecallers

import "sync"

type Transport struct {
	once  sync.Once
	proto map[string]int
}

type Conn struct{ t *Transport }

func (t *Transport) setDefaults() {
	if t.proto == nil {
		t.proto = map[string]int{}
	}
	t.proto["h2"] = 2
}

func (t *Transport) RoundTrip() *Conn {
	t.once.Do(t.setDefaults)
	t.startDial()
	return &Conn{t: t}
}

func (t *Transport) startDial() { go t.dial() }

func (t *Transport) dial() { _ = t.proto["h2"] }

// Close replaces the connection.
func (c *Conn) Close() { c.t.startDial() }

type Pool struct {
	once  sync.Once
	proto map[string]int
}

func NewPool() *Pool {
	p := &Pool{}
	go p.janitor()
	return p
}

func (p *Pool) setDefaults() {
	if p.proto == nil {
		p.proto = map[string]int{}
	}
	p.proto["h2"] = 2 // want `concurrent map read and map write: p.proto is written here`
}

func (p *Pool) Get() {
	p.once.Do(p.setDefaults)
	p.startDial()
}

func (p *Pool) janitor() { p.startDial() }

func (p *Pool) startDial() { go p.dial() }

func (p *Pool) dial() { _ = p.proto["h2"] }
