package setupserve

import (
	"net/http"
	"testing"
)

type handler struct{ allowed map[string]bool }

func (h *handler) ws(w http.ResponseWriter, r *http.Request) {
	if !h.allowed[r.URL.Path] {
		http.Error(w, "not allowed", http.StatusForbidden)
	}
}

// Method registers a method value of its new handler after filling it.
func Method(ports []string) http.Handler {
	h := &handler{allowed: make(map[string]bool, len(ports))}
	for _, p := range ports {
		h.allowed[p] = true
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/ws", h.ws)
	return mux
}

// Literal registers a literal that captures its new handler.
func Literal(ports []string) http.Handler {
	h := &handler{allowed: make(map[string]bool, len(ports))}
	for _, p := range ports {
		h.allowed[p] = true
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/ws", func(w http.ResponseWriter, r *http.Request) {
		if !h.allowed[r.URL.Path] {
			http.Error(w, "not allowed", http.StatusForbidden)
		}
	})
	return mux
}

// After fills the map once the handler is registered, when a request
// may already read it.
func After(mux *http.ServeMux, ports []string) {
	h := &handler{allowed: make(map[string]bool, len(ports))}
	mux.HandleFunc("/late", h.ws)
	for _, p := range ports {
		h.allowed[p] = true // want `concurrent map read and map write: h.allowed is written here and read by \(\*handler\).ws`
	}
}

var shared = &handler{allowed: map[string]bool{}}

// Register fills the handler it is given, one that every caller may pass:
// a second call's fill runs while the first call's requests read it.
func Register(mux *http.ServeMux, h *handler, port string) {
	h.allowed[port] = true // want `concurrent map read and map write: h.allowed is written here and read by \(\*handler\).ws`
	mux.HandleFunc("/"+port, h.ws)
}

// Two tests make handlers, and register the shared one; a third fills
// its handler late.
func TestMethod(t *testing.T) {
	_ = Method([]string{"1"})
	_ = Literal([]string{"1"})
	Register(http.NewServeMux(), shared, "1")
}

func TestAgain(t *testing.T) {
	_ = Method([]string{"2"})
	_ = Literal([]string{"2"})
	Register(http.NewServeMux(), shared, "2")
}

func TestAfter(t *testing.T) {
	After(http.NewServeMux(), []string{"3"})
}
