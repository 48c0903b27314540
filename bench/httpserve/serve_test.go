package httpserve

import (
	"io"
	"net"
	"net/http"
	"testing"
)

// TestServe configures the server, then starts it with a go statement and
// asks it once from another goroutine: the handler's read of Greeting is
// ordered after the configuration by the go statement (through net/http's
// goroutines). Seen is written by the test while the request is in flight:
// a real race.
func TestServe(t *testing.T) {
	s := &Server{}
	s.Configure("hello")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go http.Serve(l, s)
	done := make(chan error)
	go func() {
		resp, err := http.Get("http://" + l.Addr().String())
		if err == nil {
			io.ReadAll(resp.Body)
			resp.Body.Close()
		}
		done <- err
	}()
	s.Seen = 1
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
