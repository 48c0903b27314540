// Package headercopier: a client that follows redirects makes each hop's
// request afresh and fills its header through a helper closure, built
// once by an unexported method and only ever called, before it hands the
// request to the sender goroutine. The closure's parameter is fresh at
// its one call (every call of the closure is known, and the value read
// from the reassigned variable there is the new request, which has gone
// nowhere yet: a closure that captures the variable only reads it and is
// only called on this goroutine). Silent. Reported: the same helper
// called after the hand-off, and a variable also read by a goroutine.
package headercopier

type Request struct {
	Header map[string]string
	URL    string
}

type Client struct {
	agent string
}

func send(req *Request) {
	_ = req.Header["Host"]
}

func logf(format string, args ...any) {}

// headerCopier builds the helper that copies the first request's header
// into each hop's.
func (c *Client) headerCopier(first *Request) func(req *Request) {
	hdr := first.Header
	return func(req *Request) {
		for k, v := range hdr {
			req.Header[k] = v
		}
	}
}

// Follow fills each hop's header before sending it: silent.
func (c *Client) Follow(req *Request, hops int) {
	copyHeaders := c.headerCopier(req)
	fail := func() { logf("request to %s failed", req.URL) }
	for i := 0; i < hops; i++ {
		if i > 0 {
			req = &Request{Header: map[string]string{}, URL: req.URL}
			copyHeaders(req)
		}
		if req.URL == "" {
			fail()
			return
		}
		go send(req)
	}
}

func (c *Client) lateCopier(first *Request) func(req *Request) {
	hdr := first.Header
	return func(req *Request) {
		for k, v := range hdr {
			req.Header[k] = v // want `concurrent map read and map write: req.Header is written here and read by send with no common lock`
		}
	}
}

// Late sends each hop before it fills the header: reported.
func (c *Client) Late(req *Request, hops int) {
	copyHeaders := c.lateCopier(req)
	for i := 0; i < hops; i++ {
		if i > 0 {
			req = &Request{Header: map[string]string{}, URL: req.URL}
			go send(req)
			copyHeaders(req)
			continue
		}
		go send(req)
	}
}

func (c *Client) watchedCopier(first *Request) func(req *Request) {
	hdr := first.Header
	return func(req *Request) {
		for k, v := range hdr {
			req.Header[k] = v // want `concurrent map read and map write: req.Header is written here and read by func literal in \(\*Client\).Watched with no common lock`
		}
	}
}

// Watched fills each hop's header before it sends it itself, but a
// goroutine reads the variable meanwhile and may see the new request:
// reported.
func (c *Client) Watched(req *Request, hops int) {
	copyHeaders := c.watchedCopier(req)
	go func() { _ = req.Header["Host"] }()
	for i := 0; i < hops; i++ {
		if i > 0 {
			req = &Request{Header: map[string]string{}, URL: req.URL}
			copyHeaders(req)
		}
		send(req)
	}
}
