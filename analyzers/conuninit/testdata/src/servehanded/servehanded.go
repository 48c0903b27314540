// Package servehanded has test handlers whose state the tests set after
// handing the test server's address to code that may or may not send it
// a request: a client constructor, a global. Those reports assume the
// code sends none before the set and are of low confidence; one after a
// request is of the default confidence, and one before any request is
// not made.
package servehanded

import "net/http"

// state is what a test's handler answers with.
type state struct {
	addr string
	code int
}

// client is a client of one server.
type client struct {
	base string
}

// newClient returns a client of base; it sends nothing.
func newClient(base string) *client {
	return &client{base: base}
}

// get sends a GET request to the client's server.
func (c *client) get() {
	resp, err := http.Get(c.base)
	if err == nil {
		resp.Body.Close()
	}
}

// lastURL is the URL of the last server a test started.
var lastURL string
