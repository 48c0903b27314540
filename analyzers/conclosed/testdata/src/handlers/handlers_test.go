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
		close(got) // want `close of closed channel: got may be closed concurrently .*\(low confidence: it assumes that the test's handler serves two requests at once\)`
	}))
	defer ts.Close()
	http.Get(ts.URL)
	<-got
}
