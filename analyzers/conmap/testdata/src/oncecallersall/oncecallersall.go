// Package oncecallersall is oncecallers' Transport, checked under -all:
// the diagnostic is shown, with the assumption it rests on.
package oncecallersall

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
	t.proto["h2"] = 2 // want `t.proto is written here .*\(low confidence: it assumes that code calling into the package starts the goroutine running \(\*Transport\).dial on a path that runs no sync.Once.Do first, although another path runs it\)`
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
