package serveafter

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestSetAfterServe sets the handler's state after the server starts and
// before its first request, the only one: silent.
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
	fetch(s.URL)
}

// TestGetBefore sends a request before it sets the state: reported.
func TestGetBefore(t *testing.T) {
	h := &state{}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(h.code) // want `h.code may be read before it is set: the handler registered at line \d+ can serve a request before TestGetBefore sets it$`
	})
	s := httptest.NewServer(mux)
	defer s.Close()
	resp, err := http.Get(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	h.code = http.StatusOK
}

// TestGoBefore starts a goroutine that sends a request, then sets the
// state: reported.
func TestGoBefore(t *testing.T) {
	h := &state{}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(h.code) // want `h.code may be read before it is set: the handler registered at line \d+ can serve a request before TestGoBefore sets it$`
	})
	s := httptest.NewServer(mux)
	defer s.Close()
	done := make(chan bool)
	go func() {
		fetch(s.URL)
		close(done)
	}()
	h.code = http.StatusOK
	<-done
}

// TestHelperBefore hands the server's URL to a helper of the package
// that sends a request, then sets the state: reported.
func TestHelperBefore(t *testing.T) {
	h := &state{}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(h.code) // want `h.code may be read before it is set: the handler registered at line \d+ can serve a request before TestHelperBefore sets it$`
	})
	s := httptest.NewServer(mux)
	defer s.Close()
	fetch(s.URL + "/warmup")
	h.code = http.StatusOK
}

// TestStoredBefore stores the URL in the handler's state, which a
// goroutine it then starts reads to send a request, and sets the rest
// after: reported.
func TestStoredBefore(t *testing.T) {
	h := &state{}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(h.code) // want `h.code may be read before it is set: the handler registered at line \d+ can serve a request before TestStoredBefore sets it$`
	})
	s := httptest.NewServer(mux)
	defer s.Close()
	h.addr = s.URL
	done := make(chan bool)
	go func() {
		fetch(h.addr)
		close(done)
	}()
	h.code = http.StatusOK
	<-done
}
