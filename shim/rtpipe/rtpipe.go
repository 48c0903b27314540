// Package rtpipe orders the two halves of an io.Pipe by the bytes that
// pass through it, as package rtnet orders the two ends of a connection:
// a read that got a byte comes after the write that sent it, and a read
// that found the end of the stream after the writer's Close. io.Pipe
// makes both true through its mutex and channels, in the standard
// library, which precog does not instrument: without this package the
// trace shows a goroutine that copies into a pipe, stores what it counted
// and closes the pipe, and a reader that reads the pipe to its end and
// then reads the count, with nothing between them (go-containerregistry's
// validate.computeLayer, reported as a race and a con-uninit). Rewritten
// code hands it the *io.PipeReader and *io.PipeWriter values it reads,
// writes and closes itself (r.Read(b), w.Write(b), w.Close(),
// w.CloseWithError(err), and a half passed where one of io's readers,
// writers or closers is expected: bufio.NewReader(r), io.Copy(w, src)):
//
//	w.Close()            precog_rtpipe.Writer(S, w).Close()
//	bufio.NewReader(r)   bufio.NewReader(precog_rtpipe.Reader(S, r))
//
// It is a package of its own, not part of rtnet, so that a file that uses
// a pipe and no connection does not link net into the test binary through
// rtnet (rtnet is apart from the shim for that reason).
//
// The two halves find their one direction by their address: io.Pipe
// returns &pw.r and pw, a PipeWriter whose first field is its
// PipeReader, so both halves of a pipe are one address, and two live
// halves at one address are one pipe. The package checks once, at init,
// that io.Pipe still returns halves at one address; when it does not,
// Reader and Writer return the halves as they are, and a pipe gives no
// order. A direction is kept by a weak pointer to the pipe and forgotten
// when the pipe is collected, so that a later pipe at the same address
// finds a new one.
//
// A wrapped Write that writes at least one byte is released before it
// writes (shim.ConnSent, a token of its own) and noted as pending with the
// offset of its first byte; a wrapped Read that got n > 0 bytes joins
// (shim.ConnReceived) every pending write whose first byte the count of
// bytes read has passed: the byte was sent, so the write had begun (a
// pipe's writes are serialized, so an earlier write had ended). The first
// wrapped Close or CloseWithError of the writer is released the same way,
// and a Read that ends the stream (n == 0 with the writer's error: io.EOF,
// or the error CloseWithError gave; io.ErrClosedPipe, which the reader's
// own Close gives too, is not taken for it) joins it: only the writer's
// first close stores the error a read returns. This is the edge io.Pipe's
// done channel and error mutex give. Unlike rtnet's end of the stream,
// it does not ask the reads to have got every byte sent before the close:
// a pipe is one object (no 4-tuple a later connection reuses), the error
// says the writer closed, and the close that stored it is the first; so
// the writes of code precog did not rewrite (cmd.Stdout = pw, os/exec's
// copying goroutine) leave the close's edge alone.
//
// The counts name the writes only if every byte of the pipe goes through
// a wrapped call in a known order, and the close's edge is right only if
// the close that stored the reader's error was the one released, so the
// wrappers keep both where they can:
//   - Wrapped writes hold a mutex of the direction from the offset they
//     reserve until their write returns, as the pipe's own write mutex
//     does, so that two goroutines' writes reserve their bytes in the
//     order the pipe takes them. Wrapped reads hold another across the
//     read and its count, so that concurrent readers count their bytes in
//     the order they got them. Neither lock is held across a call to the
//     shim, whose control may hold a goroutine there.
//   - A close releases only the first time; when a goroutine other than
//     the first closer's closes the writer too before the end of the
//     stream is read, the close gives no edge (the reader may have seen
//     the other's error first, and the trace cannot say).
//   - A read that brings the count of bytes read past the count of bytes
//     the wrapped writes sent (bytes written by code precog did not
//     rewrite) stops the direction's edges from writes for good.
//
// What cannot be seen is not ordered: a half used through code that was
// not rewritten (passed as *io.PipeWriter to a dependency, or assigned to
// an io.Writer outside a call: cmd.Stdout = pw) moves bytes the counts do
// not see. A read there loses edges (its bytes are not counted, so later
// reads join fewer writes); a write there shifts the offsets the wrapped
// writes reserved, which the check above catches only when the reads get
// more bytes than were counted as sent; a close there, before the wrapped
// one, may be the one whose error the reader saw, and the close's edge
// would be wrong. Only edges from the writer to the reader are given: the
// reader's CloseWithError, which ends the writer's writes with its error,
// is not released.
package rtpipe

import (
	"io"
	"runtime"
	"sync"
	"unsafe"
	"weak"

	"github.com/precog-dev/precog/shim"
)

// maxPending bounds the writes a direction keeps for its reader: a write
// whose bytes are never read keeps its token until newer ones push it out.
const maxPending = 4096

// ReadHalf is what Reader returns: the methods of *io.PipeReader, which
// rewritten code calls on it, or converts it to one of io's readers or
// closers for.
type ReadHalf interface {
	Read(b []byte) (int, error)
	Close() error
	CloseWithError(err error) error
}

// WriteHalf is what Writer returns: the methods of *io.PipeWriter.
type WriteHalf interface {
	Write(b []byte) (int, error)
	Close() error
	CloseWithError(err error) error
}

// Reader returns r, wrapped to order its reads after the writes whose
// bytes they got and after the writer's Close, when r is a pipe's half
// and the shim records; r itself otherwise (a nil r too: its methods fail
// as r's own would).
func Reader(site uint32, r *io.PipeReader) ReadHalf {
	if !shim.Enabled() || !shared || r == nil {
		return r
	}
	return &reader{r: r, site: site, d: dirOf(unsafe.Pointer(r))}
}

// Writer returns w, wrapped to release its writes and its Close for the
// reads that get their bytes or the end of the stream, when the shim
// records; w itself otherwise.
func Writer(site uint32, w *io.PipeWriter) WriteHalf {
	if !shim.Enabled() || !shared || w == nil {
		return w
	}
	return &writer{w: w, site: site, d: dirOf(unsafe.Pointer(w))}
}

// shared reports whether io.Pipe returns its two halves at one address
// (pr == &pw.r, the writer's first field): then the halves of a pipe find
// one direction by their address.
var shared = func() bool {
	r, w := io.Pipe()
	r.Close()
	w.Close()
	return unsafe.Pointer(r) == unsafe.Pointer(w)
}()

// A dir is the one direction of a pipe: what its writer sent and its
// reader got. Its address names it in the trace.
type dir struct {
	wmu sync.Mutex // held by a wrapped write from its reservation to its return
	rmu sync.Mutex // held by a wrapped read across the read and its count

	mu      sync.Mutex
	writes  uint64    // tokens handed to writes so far
	sent    uint64    // bytes the writes reserved
	got     uint64    // bytes the reads got
	pending []pending // the writes not yet joined, in the order of their bytes
	closed  bool      // a wrapped close has released
	closer  uint64    // the goroutine of the first close
	closers bool      // another goroutine closed the writer too
	lost    bool      // the reads got bytes no wrapped write sent: no more edges from writes
}

// A pending write: the offset of its first byte and its token.
type pending struct{ first, token uint64 }

var (
	mu    sync.Mutex
	pipes = make(map[weak.Pointer[byte]]*dir)
)

// dirOf returns the direction of the pipe whose halves are at p, made on
// the first look at either half and forgotten when the pipe is collected.
func dirOf(p unsafe.Pointer) *dir {
	key := weak.Make((*byte)(p))
	mu.Lock()
	defer mu.Unlock()
	if d, ok := pipes[key]; ok {
		return d
	}
	d := new(dir)
	pipes[key] = d
	runtime.AddCleanup((*byte)(p), func(key weak.Pointer[byte]) {
		mu.Lock()
		delete(pipes, key)
		mu.Unlock()
	}, key)
	return d
}

// The tokens of a direction: the close's is 1, the write numbered k's
// (from 0) 2k+2.
const closeToken = 1

// reader is a wrapped *io.PipeReader: its Close and CloseWithError are
// the pipe's own.
type reader struct {
	r    *io.PipeReader
	site uint32
	d    *dir
}

func (r *reader) Read(b []byte) (int, error) {
	d := r.d
	d.rmu.Lock()
	n, err := r.r.Read(b)
	var some [4]uint64
	joined := some[:0]
	fin := false
	d.mu.Lock()
	switch {
	case n > 0:
		d.got += uint64(n)
		if d.lost = d.lost || d.got > d.sent; d.lost {
			d.pending = d.pending[:0]
			break
		}
		k := 0
		for k < len(d.pending) && d.pending[k].first < d.got {
			joined = append(joined, d.pending[k].token)
			k++
		}
		d.pending = append(d.pending[:0], d.pending[k:]...)
	case err != nil && err != io.ErrClosedPipe:
		// The writer's error, which its first close stored.
		fin = d.closed && !d.closers
	}
	d.mu.Unlock()
	d.rmu.Unlock()
	for _, token := range joined {
		shim.ConnReceived(r.site, unsafe.Pointer(d), token)
	}
	if fin {
		shim.ConnReceived(r.site, unsafe.Pointer(d), closeToken)
	}
	return n, err
}

func (r *reader) Close() error { return r.r.Close() }

func (r *reader) CloseWithError(err error) error { return r.r.CloseWithError(err) }

// writer is a wrapped *io.PipeWriter.
type writer struct {
	w    *io.PipeWriter
	site uint32
	d    *dir
}

// testHookSent, when set (by the tests), runs after a write has released
// its token.
var testHookSent func()

func (w *writer) Write(b []byte) (int, error) {
	if len(b) == 0 {
		return w.w.Write(b) // it sends nothing, and waits for a read all the same
	}
	d := w.d
	d.mu.Lock()
	token := 2*d.writes + 2
	d.writes++
	d.mu.Unlock()
	shim.ConnSent(w.site, unsafe.Pointer(d), token)
	if testHookSent != nil {
		testHookSent()
	}
	d.wmu.Lock()
	defer d.wmu.Unlock()
	d.mu.Lock()
	if !d.lost { // once lost, no read joins a write
		if len(d.pending) == maxPending {
			d.pending = append(d.pending[:0], d.pending[1:]...)
		}
		d.pending = append(d.pending, pending{d.sent, token})
	}
	d.sent += uint64(len(b))
	d.mu.Unlock()
	return w.w.Write(b)
}

func (w *writer) Close() error {
	w.closing()
	return w.w.Close()
}

func (w *writer) CloseWithError(err error) error {
	w.closing()
	return w.w.CloseWithError(err)
}

// closing releases, at the first close, what the goroutine did so far for
// the read that finds the end of the stream.
func (w *writer) closing() {
	d := w.d
	g := shim.GoID()
	d.mu.Lock()
	first := !d.closed
	if first {
		d.closed, d.closer = true, g
	} else if g != d.closer {
		d.closers = true
	}
	d.mu.Unlock()
	if first {
		shim.ConnSent(w.site, unsafe.Pointer(d), closeToken)
	}
}
