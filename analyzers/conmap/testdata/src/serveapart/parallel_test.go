package serveapart

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

var shared = make(map[string]bool)

func sharedHandler(w http.ResponseWriter, r *http.Request) {
	_ = shared[r.Host]
}

func TestParallelServe(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("/", sharedHandler)
	ts := httptest.NewServer(mux)
	defer ts.Close()
	get(t, ts.URL)
}

func TestParallelFill(t *testing.T) {
	t.Parallel()
	shared["x"] = true // want `concurrent map read and map write: shared is written here and read by sharedHandler`
}
