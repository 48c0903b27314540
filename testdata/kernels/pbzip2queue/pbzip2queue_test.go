package pbzip2queue

import (
	"bytes"
	"io"
	"testing"
	"time"
)

// slowDisk is an input file on a slow disk: every read takes 20 ms.
type slowDisk struct{ r io.Reader }

func (d *slowDisk) Read(p []byte) (int, error) {
	time.Sleep(20 * time.Millisecond)
	return d.r.Read(p)
}

// TestCloseQueue compresses one block with one consumer. Main closes q.out
// after the read that finds EOF, 20 ms after it handed the block
// over; the consumer normally compresses and sends it within microseconds.
func TestCloseQueue(t *testing.T) {
	data := []byte("aaaabbbbbbcc")
	var out bytes.Buffer
	n, err := Compress(&out, &slowDisk{bytes.NewReader(data)}, len(data), 1)
	if err != nil {
		t.Fatal(err)
	}
	if want := "\x04a\x06b\x02c"; out.String() != want || n != int64(len(want)) {
		t.Errorf("compressed %d bytes %q, want %q", n, out.String(), want)
	}
}
