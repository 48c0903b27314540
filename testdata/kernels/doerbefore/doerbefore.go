// Package doerbefore is a negative control: as respbefore, the handler
// keeps the request's path before its response's header goes out and the
// test reads it after the request returned, but the client sends the
// request through an interface (Doer, as SDKs take an HTTP client to let
// tests replace it), a call the rewriter cannot tell is net/http's: the
// request reaches http.DefaultTransport untraced. HTTP/1 writes the
// header only after the handler's write, so it comes before the read.
package doerbefore

import (
	"io"
	"net/http"
)

// A Doer sends a request: *http.Client is one.
type Doer interface {
	Do(req *http.Request) (*http.Response, error)
}

// Store keeps the last path it served.
type Store struct {
	last string
}

// Handler keeps the path, then answers.
func (s *Store) Handler() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.last = r.URL.Path
		io.WriteString(w, "ok")
	}
}

// Fetch gets url through d and reads the whole body.
func Fetch(d Doer, url string) (string, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	resp, err := d.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}
