package handlers

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// A handler of a test runs as often as the test sends requests: that it
// serves two at once is an assumption, and the report has low confidence,
// shown only under -all. (A handler made in the top-level test itself is
// not taken to repeat at all; this one is made in a helper that a generic
// runner calls, as net/http's tests do.)
func TestOneRequest(t *testing.T) { run(t, oneRequest) }

type TBRun[T any] interface {
	testing.TB
	Run(string, func(T)) bool
}

func run[T TBRun[T]](t T, f func(T)) {
	for _, mode := range []string{"http1", "http2"} {
		t.Run(mode, func(t T) {
			f(t)
		})
	}
}

func oneRequest(t *testing.T) {
	got := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(got) // want `close of closed channel: got may also be closed .*\(low confidence: it assumes that the test's handler serves two requests at once\)`
	}))
	defer ts.Close()
	http.Get(ts.URL)
	<-got
}

// A handler registered through a ServeMux's HandleFunc of an
// http.HandlerFunc conversion is one handler, made in the test, which
// sends it one request: it closes once (rehearsal 45's onerequest, which a
// second context for the HandleFunc paired with the conversion's).
func TestConverted(t *testing.T) {
	stopped := make(chan bool)
	mux := http.NewServeMux()
	mux.HandleFunc("/stop", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(stopped)
	}))
	ts := httptest.NewServer(mux)
	defer ts.Close()
	http.Get(ts.URL + "/stop")
	<-stopped
}
