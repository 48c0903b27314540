package cli

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestProgress(t *testing.T) {
	var b bytes.Buffer
	p := NewProgress(&b)
	p.Status("not a terminal")
	p.Clear()
	if b.Len() != 0 {
		t.Errorf("progress on a buffer wrote %q", b.String())
	}
	p = &Progress{w: &b, on: true}
	p.Status("instrumenting")
	p.Status("[1/2]")
	p.Status(strings.Repeat("x", 120))
	p.Clear()
	want := "\rinstrumenting" + "\r[1/2]" + strings.Repeat(" ", 8) + "\r" + strings.Repeat("x", 97) + "..." + "\r" + strings.Repeat(" ", 100) + "\r"
	if b.String() != want {
		t.Errorf("progress wrote %q\nwant %q", b.String(), want)
	}
	b.Reset()
	p.Status("again")
	p.Off()
	p.Status("after Off")
	if want := "\ragain\r     \r"; b.String() != want {
		t.Errorf("Off: wrote %q, want %q", b.String(), want)
	}
}

// syncBuffer is a bytes.Buffer safe for Every's goroutine and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestEvery checks the plain lines of a log: printed from the state at
// each tick, one per line, stopped by Clear, and never on a terminal.
func TestEvery(t *testing.T) {
	var b syncBuffer
	p := NewProgress(&b)
	var n atomic.Int32
	p.Every(time.Millisecond, func() string { return fmt.Sprintf("tick %d", n.Add(1)) })
	for n.Load() < 3 {
		time.Sleep(time.Millisecond)
	}
	p.Clear()
	got := b.String()
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if len(lines) < 2 || lines[0] != "tick 1" || lines[1] != "tick 2" || strings.Contains(got, "\r") {
		t.Errorf("Every wrote %q, want lines tick 1, tick 2, ...", got)
	}
	time.Sleep(5 * time.Millisecond)
	if after := b.String(); after != got {
		t.Errorf("Every went on after Clear: %q", after[len(got):])
	}

	var term bytes.Buffer
	p = &Progress{w: &term, on: true}
	p.Every(time.Millisecond, func() string { return "plain" })
	time.Sleep(5 * time.Millisecond)
	p.Clear()
	if term.Len() != 0 {
		t.Errorf("Every on a terminal wrote %q, want nothing (the Status line is there)", term.String())
	}
}
