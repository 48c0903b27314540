// Package doerafter is doerbefore's WRONG twin: the handler answers, then
// keeps the path on a goroutine of its own, so the client's request may
// return, and the test read the path, before the goroutine wrote it: the
// write and the read race. The response orders only what the handler's
// goroutine did before the header went out, whoever sent the request.
package doerafter

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

// Handler answers, and keeps the path on a goroutine of its own.
func (s *Store) Handler() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		path := r.URL.Path
		go func() { s.last = path }()
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
