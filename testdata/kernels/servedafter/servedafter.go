// Package servedafter has a hit counter whose HTTP handler counts a
// request after its response was sent (resty's test servers log with
// t.Logf after answering): the handler's write, on a connection goroutine
// net/http started, races with nothing, since the test reads the counter
// only after httptest.Server.Close, which blocks until every HTTP/1
// connection's handler has returned.
//
// This is a negative control: net/http is not instrumented, so Close's
// wait (a WaitGroup its ConnState hook counts) is not in the trace, and
// the handler's write was unordered with the test's read. The
// instrumenter makes the handler defer precog_shim.Served first (a task
// of the server's group that ends at the handler's return) and replaces
// ts.Close() by precog_shim.ServeClose, which joins the group after Close
// returned. precog test reports nothing (a race before).
package servedafter

import (
	"net/http"
)

// Counter counts the requests it served.
type Counter struct {
	hits int
}

// Handler answers "ok", then counts the request.
func (c *Counter) Handler() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "2")
		w.Write([]byte("ok"))
		w.(http.Flusher).Flush() // the client has the whole response from here
		c.hits++
	}
}
