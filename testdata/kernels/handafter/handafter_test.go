package handafter

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

func TestGreet(t *testing.T) {
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	defer srv.Close()
	g := &Greeter{}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // configures the greeter after the server started, as a loader of settings would
		defer wg.Done()
		g.Greeting = "hello"
	}()
	wg.Wait()
	g.Register(mux, "/") // the handing, after the greeting was set
	resp, err := http.Get(srv.URL)
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
