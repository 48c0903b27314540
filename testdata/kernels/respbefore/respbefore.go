// Package respbefore is a negative control (issue 18): the handler keeps
// the request's path and counts it before its response's header goes out
// (the header of a handler that calls neither WriteHeader nor Flush goes
// out with the buffered body after the handler returned, or at its return
// when it wrote nothing); the test reads both after its client's Get or Do
// returned with the response, before httptest.Server.Close. HTTP/1 writes
// the header only then, so the handler's writes come before the read.
package respbefore

import (
	"fmt"
	"net/http"
)

// Store keeps the last path it served and counts the requests.
type Store struct {
	last string
	n    int
}

// Handler keeps the path and counts the request, then answers the count.
func (s *Store) Handler() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.last = r.URL.Path
		s.n++
		if r.Method == http.MethodHead {
			return // the header goes out after the return
		}
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprintf(w, "%d", s.n)
	}
}
