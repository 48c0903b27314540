package httphandlerarg

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// getter is what a client library offers; calls through it are not
// rewritten as net/http's client calls are.
type getter interface {
	Get(url string) (*http.Response, error)
}

func TestGreet(t *testing.T) {
	g := New(WithGreeting("hello"))
	srv := httptest.NewServer(g.Handler())
	defer srv.Close()
	var c getter = srv.Client()
	resp, err := c.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if string(body) != "hello" {
		t.Fatalf("got %q, want hello", body)
	}
}
