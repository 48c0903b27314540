package servehanded

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestSetAfterServe sets the handler's state after the server starts and
// before its first request: silent, even under -all.
func TestSetAfterServe(t *testing.T) {
	h := &state{}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if h.addr == "" {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		w.WriteHeader(h.code)
	})
	s := httptest.NewServer(mux)
	defer s.Close()
	h.addr = s.Listener.Addr().String()
	h.code = http.StatusOK
	newClient(s.URL).get()
}

// TestHandedBefore builds a client of the server, which sends nothing,
// then sets the state: low confidence.
func TestHandedBefore(t *testing.T) {
	h := &state{}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(h.code) // want `h.code may be read before it is set: the handler registered at line \d+ can serve a request before TestHandedBefore sets it \(low confidence: it assumes that newClient, handed the test server or its address at line \d+, sends it no request before the set\)$`
	})
	s := httptest.NewServer(mux)
	defer s.Close()
	c := newClient(s.URL)
	h.code = http.StatusOK
	c.get()
}

// TestPublishedBefore stores the server's URL in a global, then sets the
// state: low confidence.
func TestPublishedBefore(t *testing.T) {
	h := &state{}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(h.code) // want `h.code may be read before it is set: the handler registered at line \d+ can serve a request before TestPublishedBefore sets it \(low confidence: it assumes that no code sends the test server a request through the address stored at line \d+ before the set\)$`
	})
	s := httptest.NewServer(mux)
	defer s.Close()
	lastURL = s.URL
	h.code = http.StatusOK
	newClient(lastURL).get()
}

// TestGetBefore sends a request through a client, then sets the state:
// the default confidence.
func TestGetBefore(t *testing.T) {
	h := &state{}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(h.code) // want `h.code may be read before it is set: the handler registered at line \d+ can serve a request before TestGetBefore sets it$`
	})
	s := httptest.NewServer(mux)
	defer s.Close()
	newClient(s.URL).get()
	h.code = http.StatusOK
}
