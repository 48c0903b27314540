package servedbefore

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
	hits := c.hits // BUG: the handler may still be running
	ts.Close()
	if string(body) != "ok" || hits > 1 {
		t.Fatalf("body %q, %d hits, want ok and at most 1", body, hits)
	}
}
