package servedh2

import (
	"net/http/httptest"
	"testing"
)

func TestHits(t *testing.T) {
	c := &Counter{counted: make(chan struct{}, 1)}
	ts := httptest.NewUnstartedServer(c.Handler())
	ts.EnableHTTP2 = true
	ts.StartTLS()
	resp, err := ts.Client().Get(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close() // resets the stream: the handler may still run
	ts.Close()        // does not wait for an HTTP/2 handler
	hits := c.hits    // BUG: races with the handler's count
	<-c.counted       // after the read: the handler's write is not ordered before it
	if resp.ProtoMajor != 2 || hits > 1 {
		t.Fatalf("HTTP/%d, %d hits, want HTTP/2 and at most 1", resp.ProtoMajor, hits)
	}
}
