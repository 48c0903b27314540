package cherokee

import (
	"sync"
	"time"
)

// The RIGHT version of the same code, which precog vet must not report:
// the request buffer is filled and sliced under its connection's lock, and
// the timeout goroutine holds that lock when it cleans it.

// lockedConn is a connection whose request buffer is guarded by mu.
type lockedConn struct {
	mu       sync.Mutex // guards incoming
	incoming buffer
}

func (c *lockedConn) readRequest(p []byte) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.incoming.len = copy(c.incoming.buf, p)
	return string(c.incoming.buf[:c.incoming.len])
}

func (c *lockedConn) reap() {
	c.mu.Lock()
	c.incoming.clean()
	c.mu.Unlock()
}

// ServeLocked reads requests on one goroutine while another reaps the
// connection.
func ServeLocked(requests [][]byte, timeout time.Duration) []string {
	c := &lockedConn{incoming: buffer{buf: make([]byte, 4096)}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		time.Sleep(timeout)
		c.reap()
	}()
	var lines []string
	for _, r := range requests {
		lines = append(lines, c.readRequest(r))
	}
	<-done
	return lines
}
