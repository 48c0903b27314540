package doneadd

import (
	"bytes"
	"testing"
	"time"
)

// network is a log collector 20 ms away.
type network struct{ buf bytes.Buffer }

func (n *network) Write(p []byte) (int, error) {
	time.Sleep(20 * time.Millisecond)
	return n.buf.Write(p)
}

// TestShip ships one batch and closes the shipper. The batch takes a
// 20 ms to send; Ship normally calls Add right after the go statement.
func TestShip(t *testing.T) {
	var sink network
	s := NewShipper(&sink)
	s.Ship([]byte("level=info msg=started\n"))
	s.Close()
	if got, want := sink.buf.String(), "level=info msg=started\n"; got != want {
		t.Errorf("sink = %q, want %q", got, want)
	}
}
