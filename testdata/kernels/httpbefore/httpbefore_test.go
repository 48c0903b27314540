package httpbefore

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestGreet(t *testing.T) {
	g := &Greeter{}
	srv := httptest.NewServer(g)
	defer srv.Close()
	got := make(chan string)
	go func() {
		resp, err := http.Get(srv.URL)
		if err != nil {
			got <- err.Error()
			return
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		got <- string(body)
	}()
	g.Greeting = "hello"
	if b := <-got; b != "" && b != "hello" {
		t.Fatalf("got %q", b)
	}
}
