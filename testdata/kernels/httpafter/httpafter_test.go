package httpafter

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

func TestGreet(t *testing.T) {
	g := &Greeter{}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // configures the greeter, as a loader of settings would
		defer wg.Done()
		g.Greeting = "hello"
	}()
	wg.Wait()
	srv := httptest.NewServer(g)
	defer srv.Close()
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
