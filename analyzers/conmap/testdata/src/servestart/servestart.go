// Package servestart fills maps that HTTP handlers read after it has
// registered the handlers, and before the call that serves them:
// net/http starts every handler goroutine inside ListenAndServe or
// Serve, so what the serving goroutine did before that call comes first,
// also in a function it called (silent: Listen, ListenServer, Convert).
// Reported: a fill after the serve call (ServeThenFill), on a goroutine
// started before it (FillOnGoroutine), in the handler itself (count), in
// a function a handler calls (refill), and a fill before the serve call
// of a handler that a server started earlier may already serve (a mux
// handed in, ServeGiven; a serve on a goroutine of its own, ServeAsync).
package servestart

import (
	"net"
	"net/http"
	"os"
	"strings"
)

var (
	allowed  = make(map[string]bool)
	origins  = make(map[string]bool)
	conv     = make(map[string]bool)
	late     = make(map[string]bool)
	filled   = make(map[string]bool)
	hits     = make(map[string]int)
	refilled = make(map[string]bool)
	given    = make(map[string]bool)
	async    = make(map[string]bool)
)

func fill(m map[string]bool, env string) {
	for _, h := range strings.Split(os.Getenv(env), ",") {
		m[h] = true
	}
}

func setAllowed() {
	for _, h := range strings.Split(os.Getenv("ALLOWED"), ",") {
		allowed[h] = true
	}
}

func host(w http.ResponseWriter, r *http.Request) {
	if !allowed[r.Host] {
		w.WriteHeader(http.StatusForbidden)
	}
}

// Listen registers the handler, fills what it reads, then serves.
func Listen(addr string) error {
	mux := http.NewServeMux()
	mux.HandleFunc("/", host)
	setAllowed()
	return http.ListenAndServe(addr, mux)
}

func origin(w http.ResponseWriter, r *http.Request) {
	if !origins[r.Header.Get("Origin")] {
		w.WriteHeader(http.StatusForbidden)
	}
}

// ListenServer does the same through an http.Server and a listener.
func ListenServer(ln net.Listener) error {
	mux := http.NewServeMux()
	mux.HandleFunc("/", origin)
	srv := &http.Server{Handler: mux}
	for _, o := range strings.Split(os.Getenv("ORIGINS"), ",") {
		origins[o] = true
	}
	defer srv.Close()
	return srv.Serve(ln)
}

// Convert converts the handler first and fills after.
func Convert(addr string) error {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = conv[r.Host]
	})
	fill(conv, "CONV")
	return http.ListenAndServe(addr, h)
}

// ServeThenFill fills after Serve returned: handler goroutines may still
// run then.
func ServeThenFill(ln net.Listener) {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		_ = late[r.Host]
	})
	http.Serve(ln, mux)
	late["done"] = true // want `concurrent map read and map write: late is written here and read by`
}

// FillOnGoroutine fills on a goroutine it starts before it serves.
func FillOnGoroutine(addr string) error {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		_ = filled[r.Host]
	})
	go func() {
		filled["x"] = true // want `concurrent map read and map write: filled is written here and read by`
	}()
	return http.ListenAndServe(addr, mux)
}

func count(w http.ResponseWriter, r *http.Request) {
	hits[r.Host]++ // want `concurrent map read and map write: hits is written here and read by count`
}

func reload(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Get("reload") != "" {
		refill()
	}
	_ = refilled[r.Host]
}

func refill() {
	refilled["x"] = true // want `concurrent map read and map write: refilled is written here and read by reload`
}

// Counting serves handlers that write, or call a function that writes.
func Counting(addr string) error {
	mux := http.NewServeMux()
	mux.HandleFunc("/", count)
	mux.HandleFunc("/reload", reload)
	return http.ListenAndServe(addr, mux)
}

// ServeGiven registers on a mux it is handed, which a server may already
// serve, and fills after.
func ServeGiven(mux *http.ServeMux) {
	mux.HandleFunc("/given", func(w http.ResponseWriter, r *http.Request) {
		_ = given[r.Host]
	})
	given["x"] = true // want `concurrent map read and map write: given is written here and read by`
}

// ServeAsync serves on a goroutine of its own, then fills.
func ServeAsync(addr string) {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		_ = async[r.Host]
	})
	go http.ListenAndServe(addr, mux)
	async["x"] = true // want `concurrent map read and map write: async is written here and read by`
}
