// Package onceexport: a transport that fills its protocol map once, under
// a sync.Once, before it dials. The package's own code reaches the filling
// function only through the Once; an unused wrapper (as a bundled copy
// keeps) and a test export call it too. The wrapper never runs, and the
// test export is test code, so the diagnostic would assume that the test
// configures a transport while it dials: low confidence, shown only under
// -all. A transport whose filling function an exported function of the
// package also calls, outside the Once, is reported.
package onceexport

import "sync"

type Transport struct {
	once  sync.Once
	proto map[string]int
}

func (t *Transport) setDefaults() { configure(t) }

func configure(t *Transport) {
	if t.proto == nil {
		t.proto = map[string]int{}
	}
	t.proto["h2"] = 2
}

// configureAll and configureOne are exported wrappers of a bundled copy
// that nothing in the package calls.
func configureAll(t *Transport) { configureOne(t) }

func configureOne(t *Transport) { configure(t) }

func (t *Transport) RoundTrip() {
	t.once.Do(func() { t.setDefaults() })
	go t.dial()
}

func (t *Transport) dial() { _ = t.proto["h2"] }

// Client fills its map under the Once too, but Configure, exported, fills
// it without: reported.
type Client struct {
	once  sync.Once
	proto map[string]int
}

func (c *Client) setDefaults() { fill(c) }

func fill(c *Client) {
	if c.proto == nil {
		c.proto = map[string]int{}
	}
	c.proto["h2"] = 2 // want `concurrent map read and map write: c.proto is written here`
}

func Configure(c *Client) { fill(c) }

func (c *Client) Do() {
	c.once.Do(c.setDefaults)
	go c.dial()
}

func (c *Client) dial() { _ = c.proto["h2"] }
