package servedafter

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestHits(t *testing.T) {
	c := &Counter{}
	ts := httptest.NewServer(c.Handler())
	resp, err := http.Get(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	ts.Close() // waits for the handler
	if string(body) != "ok" || c.hits != 1 {
		t.Fatalf("body %q, %d hits, want ok and 1", body, c.hits)
	}
}
