// Package serveafter has test handlers whose state the tests set after
// the test server starts: a handler runs only for a request, so a set
// before the first request the test can send is not read early (silent),
// and one after a request, a goroutine that sends one or a helper that
// does is (reported). A handler on a mux the function did not make may be
// served already when it is registered: reported at the registration.
package serveafter

import "net/http"

// state is what a test's handler answers with.
type state struct {
	addr string
	code int
}

// fetch sends a GET request to url.
func fetch(url string) {
	resp, err := http.Get(url)
	if err == nil {
		resp.Body.Close()
	}
}

// Register registers a handler on a mux that may already be served,
// then sets what it reads.
func Register(mux *http.ServeMux) {
	h := &state{}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(h.code) // want `h.code may be read before it is set: the goroutine started at line \d+ can run before Register sets it$`
	})
	h.code = http.StatusOK
}
