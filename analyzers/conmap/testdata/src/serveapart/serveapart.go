// Package serveapart is mailpit's server: Listen fills the maps its
// handlers read and then serves its routes, which the tests serve too, on
// test servers of their own, one test after another, while other tests
// fill the maps and call the middleware directly, with a recorder. No
// handler goroutine runs while a fill does: Listen's run after its fill,
// and do not run in a test binary; a test's run within that test (as the
// analysis takes every goroutine of a test to); a handler that calls the
// middleware itself starts nothing. Silent. Reported: a test that fills
// while its own test server serves (TestFillWhileServing), a test that
// leaves its test server open (open.go), a test that
// fills what a handler that the package's initializer registers reads
// (initserve.go), and two parallel tests, one serving and one filling
// (parallel.go).
package serveapart

import (
	"net"
	"net/http"
	"os"
	"strings"
)

var (
	allowed = make(map[string]bool)
	late    = make(map[string]bool)
)

func setAllowed() {
	for _, h := range strings.Split(os.Getenv("ALLOWED"), ",") {
		allowed[h] = true
	}
}

// mw wraps a handler in the host check.
func mw(fn http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !allowed[r.Host] || late[r.Host] {
			w.WriteHeader(http.StatusForbidden)
			return
		}
		fn(w, r)
	}
}

// markLate marks a host late, while a server may serve.
func markLate(host string) {
	late[host] = true // want `concurrent map read and map write: late is written here and read by func literal in mw`
}

func hello(w http.ResponseWriter, r *http.Request) {}

func routes() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("/", mw(hello))
	return mux
}

// Listen fills the map, then serves its routes and one more handler
// that calls the middleware itself.
func Listen(ln net.Listener) error {
	setAllowed()
	mux := routes()
	mux.HandleFunc("/index", func(w http.ResponseWriter, r *http.Request) {
		mw(hello)(w, r)
	})
	srv := &http.Server{Handler: mux}
	return srv.Serve(ln)
}
