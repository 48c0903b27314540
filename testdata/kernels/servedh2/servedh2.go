// Package servedh2 is servedafter on HTTP/2 (httptest's EnableHTTP2 with
// StartTLS): the handler counts a request after the response's header
// went out, and the test reads the counter after httptest.Server.Close.
// That is a real race: Close does not wait for an HTTP/2 handler. The
// TLS connection's goroutine, net/http's (*conn).serve, hands the
// connection to the HTTP/2 server, which runs each handler on a goroutine
// of its own (runHandler) and waits for none of them; httptest's Close
// waits for the connection's StateClosed or for it to go idle (it closes
// idle connections), and an HTTP/2 connection goes idle as soon as its
// streams are closed: the client's reset of the stream (the body closed
// early) closes it while the handler still runs. Reported: precog models
// Close's wait for HTTP/1 handlers only.
package servedh2

import (
	"net/http"
)

// Counter counts the requests it served.
type Counter struct {
	hits int
	// counted, when not nil (buffered), gets a value once the handler
	// counted: a test waits for it after its read, so that its process
	// does not end before the handler's write (a write that never ran is
	// not in the recording; TestKernels missed the race so at idle in
	// .ci/run).
	counted chan struct{}
}

// Handler sends the response's header, then counts the request.
func (c *Counter) Handler() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush() // the client has the response from here
		c.hits++
		select {
		case c.counted <- struct{}{}:
		default:
		}
	}
}
