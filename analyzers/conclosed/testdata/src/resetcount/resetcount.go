// Package resetcount follows a stream whose goroutine Resets the reader
// when it seeks, while Tell and Next use the reader on the caller's
// goroutine (nxadm/tail's Tail.Tell: tail.reader.Buffered()). Buffered
// only subtracts two counters: after a Reset it counts the new reader's
// bytes, a wrong offset but no crash, and is silent; Peek slices the
// buffer at indices the Reset moves, and is reported.
package resetcount

import (
	"bufio"
	"io"
	"sync"
)

type Follower struct {
	mu     sync.Mutex
	src    io.ReadSeeker
	reader *bufio.Reader
	pos    int64
}

func Follow(src io.ReadSeeker) *Follower {
	t := &Follower{src: src, reader: bufio.NewReader(src)}
	go t.run()
	return t
}

func (t *Follower) run() {
	for {
		t.mu.Lock()
		_, err := t.reader.ReadString('\n')
		t.mu.Unlock()
		if err != nil {
			t.src.Seek(0, io.SeekEnd)
			t.reader.Reset(t.src)
			return
		}
	}
}

// Tell returns the offset of the next byte a line will start with.
func (t *Follower) Tell() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.pos - int64(t.reader.Buffered())
}

// Next returns the next byte without consuming it.
func (t *Follower) Next() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	b, _ := t.reader.Peek(1) // want `t.reader.Peek\(1\) may be used after \(\*Follower\).run releases it: it Resets it concurrently`
	return b
}

// Report says where a new follower of src stands.
func Report(src io.ReadSeeker) (int64, []byte) {
	t := Follow(src)
	return t.Tell(), t.Next()
}
