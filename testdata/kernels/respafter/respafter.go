// Package respafter is respbefore's WRONG twin: the handler flushes its
// response's header and only then keeps the request's path, so the
// client's Get may return, and the test read the path, before the
// handler wrote it: the write and the read race. The HTTP/1 response
// orders only what the handler did before the header went out: reported.
package respafter

import (
	"net/http"
)

// Store keeps the last path it served.
type Store struct {
	last string
}

// Handler answers 201 at once, then keeps the path.
func (s *Store) Handler() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusCreated)
		w.(http.Flusher).Flush() // the client has the response from here
		s.last = r.URL.Path
	}
}
