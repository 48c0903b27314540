package shim

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/precog-dev/precog/shim/trace"
)

// tracePath is the trace the package's tests record into: TestMain turns
// recording on before any test runs, as the shim's init does for a
// program started with PRECOG_TRACE.
var tracePath string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "shimtest")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	tracePath = filepath.Join(dir, "trace")
	if err := openTrace(tracePath); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	enable()
	before := runtime.NumGoroutine()
	code := m.Run()
	if code == 0 {
		if n := settledGoroutines(before); n > before {
			fmt.Fprintf(os.Stderr, "leaked goroutines: %d at the start, %d at the end\n", before, n)
			code = 1
		}
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// settledGoroutines waits up to a second for the number of goroutines to
// drop to want and returns the last count.
func settledGoroutines(want int) int {
	n := runtime.NumGoroutine()
	for deadline := time.Now().Add(time.Second); n > want && time.Now().Before(deadline); n = runtime.NumGoroutine() {
		time.Sleep(10 * time.Millisecond)
	}
	return n
}

// readTrace reads every event of the trace at path, in file order. It
// fails the test if the trace is damaged, unless broken is allowed.
func readTrace(t testing.TB, path string) []trace.Event {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := trace.NewReader(bytes.NewReader(depad(data)))
	if err != nil {
		t.Fatal(err)
	}
	var evs []trace.Event
	for {
		ev, err := r.Next()
		if err == io.EOF {
			return evs
		}
		if err != nil {
			t.Fatalf("after %d events: %v", len(evs), err)
		}
		evs = append(evs, ev)
	}
}

// depad removes the zero padding between batches that the memory-mapped
// output leaves, until the trace reader skips it itself.
func depad(data []byte) []byte {
	hdrEnd := headerLen(data)
	if hdrEnd < 0 {
		return data
	}
	out := append([]byte(nil), data[:hdrEnd]...)
	for p := hdrEnd; p < len(data); {
		if data[p] == 0 {
			p++
			continue
		}
		start := p
		if data[p] != 'B' {
			return append(out, data[p:]...)
		}
		p++
		_, n := binary.Uvarint(data[p:])
		if n <= 0 {
			return append(out, data[start:]...)
		}
		p += n
		l, n := binary.Uvarint(data[p:])
		if n <= 0 {
			return append(out, data[start:]...)
		}
		p += n + int(l)
		if p > len(data) {
			return append(out, data[start:]...)
		}
		out = append(out, data[start:p]...)
	}
	return out
}

// headerLen returns the length of the trace header at the start of data.
func headerLen(data []byte) int {
	p := len("precog trace\n")
	uv := func() uint64 {
		v, n := binary.Uvarint(data[p:])
		if n <= 0 {
			p = -1 << 30
			return 0
		}
		p += n
		return v
	}
	uv()
	p += int(uv())
	p += int(uv())
	uv()
	uv()
	if p < 0 {
		return -1
	}
	return p
}

// goroutineEvents returns the events of logical goroutine id, in order.
func goroutineEvents(evs []trace.Event, id uint64) []trace.Event {
	var out []trace.Event
	for _, ev := range evs {
		if ev.Goroutine == id {
			out = append(out, ev)
		}
	}
	return out
}

// siteEvents returns the events recorded at sites in [lo, hi).
func siteEvents(evs []trace.Event, lo, hi uint32) []trace.Event {
	var out []trace.Event
	for _, ev := range evs {
		if ev.Site >= lo && ev.Site < hi {
			out = append(out, ev)
		}
	}
	return out
}
