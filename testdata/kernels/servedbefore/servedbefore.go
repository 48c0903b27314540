// Package servedbefore is servedafter's WRONG twin: the test reads the
// counter before httptest.Server.Close, while the handler may still be
// running after it sent the response: the handler's write and the read
// race. Close joins the handler only for what comes after it: reported.
package servedbefore

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
