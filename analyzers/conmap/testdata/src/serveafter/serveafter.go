// Package serveafter fills the maps its HTTP handlers read before it
// starts serving them (mailpit's Listen: setAllowedHosts, then the routes,
// wrapped in a middleware, then ListenAndServe). No request reaches a
// handler before its value exists, so the fill comes first; and a test
// that fills the maps again does not run with the server, which only an
// API entry that no test calls starts. Not reported. A map that an
// exported Reload fills again while the server serves is.
package serveafter

import (
	"net/http"
	"os"
	"strings"
)

var (
	allowed    map[string]bool
	reloadable map[string]bool
)

func setAllowed() {
	allowed = make(map[string]bool)
	for _, h := range strings.Split(os.Getenv("ALLOWED"), ",") {
		allowed[h] = true
	}
}

func setReloadable() {
	reloadable = make(map[string]bool)
	for _, h := range strings.Split(os.Getenv("RELOADABLE"), ",") {
		reloadable[h] = true // want `concurrent map read and map write: reloadable is written here and read by`
	}
}

// guard wraps a handler in the host check.
func guard(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !allowed[r.Host] || !reloadable[r.Host] {
			w.WriteHeader(http.StatusForbidden)
			return
		}
		next(w, r)
	}
}

func hello(w http.ResponseWriter, r *http.Request) { w.Write([]byte("hello")) }

// Listen fills the maps, then serves.
func Listen(addr string) error {
	setAllowed()
	setReloadable()
	return http.ListenAndServe(addr, guard(hello))
}

// Reload fills the reloadable hosts again, while the server serves.
func Reload() { setReloadable() }
