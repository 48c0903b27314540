package handbefore

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestGreet(t *testing.T) {
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	defer srv.Close()
	g := &Greeter{}
	g.Register(mux, "/")
	got := make(chan string, 1)
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
	g.Greeting = "hello" // BUG: the request may be served before or during this write
	<-got
}
