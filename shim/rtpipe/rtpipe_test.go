package rtpipe

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
	"unsafe"

	"github.com/precog-dev/precog/shim"
	"github.com/precog-dev/precog/shim/trace"
)

// childEnv tells a test binary started by TestEdges to run the pipes of
// TestEdgesRecorded; the shim records them into PRECOG_TRACE.
const childEnv = "PRECOG_RTPIPE_CHILD"

// TestHalves checks that the two halves of a pipe find one direction and
// another pipe's halves another, and that a pipe's halves are returned
// as they are when the shim does not record.
func TestHalves(t *testing.T) {
	if !shared {
		t.Fatal("io.Pipe's halves are not at one address: rtpipe gives no order (io.Pipe changed?)")
	}
	pr, pw := io.Pipe()
	defer pr.Close()
	qr, qw := io.Pipe()
	defer qr.Close()
	if d := dirOf(unsafe.Pointer(pr)); d != dirOf(unsafe.Pointer(pw)) || d == dirOf(unsafe.Pointer(qw)) || dirOf(unsafe.Pointer(qr)) != dirOf(unsafe.Pointer(qw)) {
		t.Fatal("a pipe's halves do not share one direction, or two pipes do")
	}
	if !shim.Enabled() {
		if r, ok := Reader(1, pr).(*io.PipeReader); !ok || r != pr {
			t.Errorf("Reader wrapped the half with the shim off")
		}
	}
}

// TestEdges runs TestEdgesRecorded in a test binary that records, and
// reads the releases (PoolPut) and joins (PoolGet) of its pipes from the
// trace, by the site of each wrapped call: a read joins the write whose
// bytes it got and not a write released before it whose bytes it did
// not get, and the read that finds the end of the stream joins the
// writer's close; no close is joined when two goroutines closed the
// writer, nor any write once the reads got bytes no wrapped write sent
// (the close still is).
func TestEdges(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace")
	cmd := exec.Command(os.Args[0], "-test.run=^TestEdgesRecorded$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "PRECOG_TRACE="+path, childEnv+"=1")
	if out, err := cmd.CombinedOutput(); err != nil || !bytes.Contains(out, []byte("--- PASS: TestEdgesRecorded")) {
		t.Fatalf("recording run: %v\n%s", err, out)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := trace.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	type op struct {
		kind        trace.Kind
		addr, token uint64
		seq         uint64
		goroutine   uint64
		site        uint32
	}
	var ops []op
	for {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if ev.Kind == trace.EvPoolPut || ev.Kind == trace.EvPoolGet {
			ops = append(ops, op{ev.Kind, ev.Addr, ev.Value, ev.Seq, ev.Goroutine, ev.Site})
		}
	}
	at := func(site uint32) (o op) {
		t.Helper()
		n := 0
		for _, x := range ops {
			if x.site == site {
				o = x
				n++
			}
		}
		if n != 1 {
			t.Fatalf("%d events at site %d, want 1: %+v", n, site, ops)
		}
		return o
	}
	none := func(site uint32, why string) {
		t.Helper()
		for _, x := range ops {
			if x.site == site {
				t.Errorf("site %d: %+v, want nothing (%s)", site, x, why)
			}
		}
	}
	// edge checks that the join at site get is of the release at site
	// put, on another goroutine, after it.
	edge := func(put, get uint32, what string) {
		t.Helper()
		p, g := at(put), at(get)
		if p.kind != trace.EvPoolPut || g.kind != trace.EvPoolGet || p.addr != g.addr || p.token != g.token || p.goroutine == g.goroutine || p.seq > g.seq {
			t.Errorf("%s: release %+v and join %+v do not pair", what, p, g)
		}
	}
	edge(sitePWrite1, sitePRead1, "the first write before the read that got its bytes")
	edge(sitePWrite2, sitePRead2, "the second write before the read that got its bytes")
	edge(sitePClose, sitePEOF, "the close before the read that found the end of the stream")
	if p, g := at(sitePWrite2), at(sitePRead1); p.seq > g.seq {
		t.Errorf("the second write released after the first read joined (%d > %d): the negative control shows nothing", p.seq, g.seq)
	}
	if p, q := at(sitePWrite1), at(siteQClose1); p.addr == q.addr {
		t.Errorf("two pipes share the direction %#x", p.addr)
	}
	at(siteQClose1)
	none(siteQClose2, "the second close releases nothing")
	none(siteQEOF, "two goroutines closed the writer: either's error may have ended the stream")
	at(siteUWrite)
	none(siteURead1, "its byte came from an unwrapped write")
	none(siteURead2, "the direction lost count: its byte came from the unwrapped write, not the wrapped one pending")
	none(siteURead3, "the direction lost count")
	edge(siteUClose, siteUEOF, "the close before the end of the stream, whatever the writes")
}

// The sites of TestEdgesRecorded's wrapped calls: pipe p (two writers,
// then a close), pipe q (two closers), pipe u (an unwrapped write, then
// a close).
const (
	sitePWrite1 = 1 + iota
	sitePWrite2
	sitePClose
	sitePRead1
	sitePRead2
	sitePEOF
	siteQWrite
	siteQClose1
	siteQClose2
	siteQRead
	siteQEOF
	siteUWrite
	siteURead1
	siteURead2
	siteURead3
	siteUClose
	siteUEOF
	siteGo
)

// TestEdgesRecorded runs the pipes TestEdges reads the trace of.
func TestEdgesRecorded(t *testing.T) {
	if os.Getenv(childEnv) == "" {
		t.Skip("run by TestEdges, recording")
	}
	if !shim.Enabled() {
		t.Fatal("the shim does not record")
	}
	// goAfter runs f on a goroutine of the trace's, and returns a
	// channel closed when it has returned.
	goAfter := func(f func()) chan struct{} {
		done := make(chan struct{})
		id := shim.Go(siteGo)
		go func() {
			shim.Begin(id)
			defer shim.End()
			defer close(done)
			f()
		}()
		return done
	}
	read := func(r ReadHalf, n int) string {
		t.Helper()
		b := make([]byte, n)
		if _, err := io.ReadFull(r, b); err != nil {
			t.Fatal(err)
		}
		return string(b)
	}

	// Pipe p: the first write is in the pipe, the second has released
	// its token and waits for it, when the first read takes the first's
	// bytes.
	pr, pw := io.Pipe()
	d := dirOf(unsafe.Pointer(pw))
	released := make(chan bool, 2)
	testHookSent = func() { released <- true }
	defer func() { testHookSent = nil }()
	goAfter(func() { Writer(sitePWrite1, pw).Write([]byte("hello")) })
	<-released
	waitFor(t, func() bool { d.mu.Lock(); defer d.mu.Unlock(); return d.sent == 5 })
	second := goAfter(func() {
		Writer(sitePWrite2, pw).Write([]byte("world"))
		Writer(sitePClose, pw).Close()
	})
	<-released
	testHookSent = nil
	if got := read(Reader(sitePRead1, pr), 5); got != "hello" {
		t.Fatalf("first read %q", got)
	}
	if got := read(Reader(sitePRead2, pr), 5); got != "world" {
		t.Fatalf("second read %q", got)
	}
	<-second
	if n, err := Reader(sitePEOF, pr).Read(make([]byte, 1)); n != 0 || err != io.EOF {
		t.Fatalf("read at the end: %d, %v", n, err)
	}

	// Pipe q: the writer closed by two goroutines before the end of the
	// stream is read.
	qr, qw := io.Pipe()
	first := goAfter(func() {
		Writer(siteQWrite, qw).Write([]byte("abc"))
		Writer(siteQClose1, qw).Close()
	})
	read(Reader(siteQRead, qr), 3)
	<-first
	Writer(siteQClose2, qw).Close()
	if n, err := Reader(siteQEOF, qr).Read(make([]byte, 1)); n != 0 || err != io.EOF {
		t.Fatalf("read at the end: %d, %v", n, err)
	}

	// Pipe u: a write through the pipe itself is in the pipe when a
	// wrapped write reserves its byte; the wrapped read that gets the
	// unwrapped write's first byte finds more bytes read than sent.
	ur, uw := io.Pipe()
	du := dirOf(unsafe.Pointer(uw))
	goAfter(func() { uw.Write([]byte("xy")) })
	if got := read(Reader(siteURead1, ur), 1); got != "x" {
		t.Fatalf("read %q", got)
	}
	goAfter(func() { Writer(siteUWrite, uw).Write([]byte("z")) })
	waitFor(t, func() bool { du.mu.Lock(); defer du.mu.Unlock(); return du.sent == 1 })
	if got := read(Reader(siteURead2, ur), 1); got != "y" {
		t.Fatalf("read %q", got)
	}
	if got := read(Reader(siteURead3, ur), 1); got != "z" {
		t.Fatalf("read %q", got)
	}
	goAfter(func() { Writer(siteUClose, uw).Close() })
	if n, err := Reader(siteUEOF, ur).Read(make([]byte, 1)); n != 0 || err != io.EOF {
		t.Fatalf("read at the end: %d, %v", n, err)
	}
}

// waitFor waits up to ten seconds for cond.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
	}
}
