package cherokee

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

// slowSocket takes at most 16 bytes per Send.
type slowSocket struct{ out bytes.Buffer }

func (s *slowSocket) Send(p []byte) int {
	n := min(len(p), 16)
	s.out.Write(p[:n])
	return n
}

// TestIdleTimeout answers one request while the timeout goroutine reaps
// idle connections 20 ms later; the header is normally sent within
// microseconds.
func TestIdleTimeout(t *testing.T) {
	var sock slowSocket
	c := NewConn(&sock)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { // worker
		defer wg.Done()
		c.Handle("/index.html")
	}()
	go func() { // timeout
		defer wg.Done()
		time.Sleep(20 * time.Millisecond)
		c.Reap()
	}()
	wg.Wait()
	if got := sock.out.String(); !strings.HasPrefix(got, "HTTP/1.1 200 OK") || !strings.HasSuffix(got, "\r\n\r\n") {
		t.Errorf("sent %q, want a whole header", got)
	}
}
