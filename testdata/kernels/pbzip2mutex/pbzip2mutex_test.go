package pbzip2mutex

import (
	"bytes"
	"testing"
	"time"
)

// slowFile is an output file on a slow disk: every write takes 20 ms.
type slowFile struct{ buf bytes.Buffer }

func (f *slowFile) Write(p []byte) (int, error) {
	time.Sleep(20 * time.Millisecond)
	return f.buf.Write(p)
}

// TestQueueDelete compresses one block with one consumer. Main deletes the
// FIFO after writing the stream header, 20 ms after the consumer
// started; the consumer normally locks and unlocks the FIFO's mutex within
// microseconds of starting.
func TestQueueDelete(t *testing.T) {
	var f slowFile
	data := []byte("aaaabbbbbbcc")
	if err := Compress(&f, data, len(data), 1); err != nil {
		t.Fatal(err)
	}
	want := "PBZ1\x04a\x06b\x02c"
	if got := f.buf.String(); got != want {
		t.Errorf("compressed = %q, want %q", got, want)
	}
}
