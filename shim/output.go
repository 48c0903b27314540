package shim

import (
	"encoding/binary"
	"errors"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/precog-dev/precog/shim/trace"
)

// The output. With PRECOG_TRACE set, the shim maps the trace file into
// memory (outMap) where the platform allows it: the file grows in segments,
// each goroutine's state takes chunks of a segment and writes its batches
// into them directly, committing each event by updating its batch's length
// (gstate.commit). The kernel owns the pages, so whatever was committed
// reaches the file however the process dies. Elsewhere, or if mapping
// fails, batches are built in memory and written with write(2) (outWrite)
// after every sync event, at End and when full. With control but no trace,
// batches are built and dropped (outDiscard).
type outMode uint8

const (
	outDiscard outMode = iota
	outWrite
	outMap
)

// Chunk and segment sizes. A goroutine's first chunk is small, since most
// goroutines record little; the chunks of a busy one double up to maxChunk.
// Segments double too, so that a short test leaves a small file.
const (
	firstChunk   = 4 << 10
	maxChunk     = 64 << 10
	firstSegment = 64 << 10
	maxSegment   = 4 << 20
	// batchHeaderLen bounds StartBatch's header.
	batchHeaderLen = trace.MaxBatchHeaderLen
)

var out struct {
	mode outMode

	mu     sync.Mutex
	f      *os.File
	seg    []byte // the current segment (outMap)
	segOff int64  // its offset in the file
	next   int    // its first free byte
	size   int64  // bytes written (outWrite)

	// The header's state block (see "Completeness" in package trace):
	// block maps it (outMap); blockOff is its offset in the file.
	block    []byte
	blockOff int64
	state    trace.State
}

// tests counts the top-level tests running: when it drops to 0 the trace
// says Ended, when it leaves 0 Recording again.
var tests atomic.Int64

// openTrace creates the trace file at path, writes the header (naming test,
// if known) and picks the output mode.
func openTrace(path, test string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	hdr, block := trace.AppendLiveHeader(nil, trace.Header{Test: test, Package: packagePath(), Start: time.Now(), PID: os.Getpid()})
	// Init runs before any goroutine records, so the lock is not needed;
	// it is taken anyway so that every access to out's fields is under it.
	out.mu.Lock()
	defer out.mu.Unlock()
	out.f = f
	out.blockOff = int64(block)
	if err := mapSegment(len(hdr)); err == nil {
		copy(out.seg, hdr)
		out.block = out.seg[block : block+trace.StateBlockLen]
		out.next = alignUp(len(hdr), firstChunk)
		out.mode = outMap
		putWord(out.block[trace.ExtentField:], uint64(out.next))
		return nil
	}
	if _, err := f.Write(hdr); err != nil {
		f.Close()
		return err
	}
	out.size = int64(len(hdr))
	out.mode = outWrite
	return nil
}

// putWord stores v into the 8 aligned bytes at b's start, little-endian,
// in one store: a process that dies around it leaves the old word or the
// new one, never half of each.
func putWord(b []byte, v uint64) {
	var le [8]byte
	binary.LittleEndian.PutUint64(le[:], v)
	atomic.StoreUint64((*uint64)(unsafe.Pointer(&b[0])), binary.NativeEndian.Uint64(le[:]))
}

// setState records s in the header's state block, unless recording
// stopped, which stays. Without a mapping the extent is written too when
// the tests end, so that a cut of an ended trace shows.
func setState(s trace.State) {
	out.mu.Lock()
	defer out.mu.Unlock()
	if out.state == trace.Stopped || out.state == s {
		return
	}
	out.state = s
	switch out.mode {
	case outMap:
		putWord(out.block[trace.StateField:], uint64(s))
	case outWrite:
		var b [trace.StateBlockLen]byte
		if s == trace.Ended {
			binary.LittleEndian.PutUint64(b[trace.ExtentField:], uint64(out.size))
		}
		binary.LittleEndian.PutUint64(b[trace.StateField:], uint64(s))
		if _, err := out.f.WriteAt(b[:], out.blockOff); err != nil {
			stopRecordingLocked(err)
		}
	}
}

// packagePath is the main package's path, without the .test of a test
// binary, or the program's name if build info is missing.
func packagePath() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Path != "" {
		return strings.TrimSuffix(bi.Path, ".test")
	}
	return os.Args[0]
}

// mapSegment grows the file by a segment of at least n bytes and maps it.
// out.mu is held.
func mapSegment(n int) error {
	size := 2 * len(out.seg)
	if size < firstSegment {
		size = firstSegment
	}
	if size > maxSegment {
		size = maxSegment
	}
	if size < n {
		size = alignUp(n, firstSegment)
	}
	off := out.segOff + int64(len(out.seg))
	if err := growFile(out.f, off, size); err != nil {
		return err
	}
	mem, err := mapFile(out.f, off, size)
	if err != nil {
		return err
	}
	out.seg, out.segOff, out.next = mem, off, 0
	return nil
}

// refill gives g a buffer with at least n bytes of room after a new batch
// header, closing the current batch: a new chunk (outMap), or the same
// buffer after writing the batch out (outWrite) or dropping it.
func (g *gstate) refill(n int) {
	n += batchHeaderLen
	switch out.mode {
	case outMap:
		if chunk := takeChunk(max(g.chunk, n)); chunk != nil {
			if cap(g.buf) > 0 {
				dropPages(g.buf[:cap(g.buf)])
			}
			g.buf = chunk
			g.mapped = true
			g.chunk = min(2*g.chunk, maxChunk)
			g.open()
			return
		}
		// The file cannot grow (stopRecording said why): keep going on
		// a buffer that is dropped.
		g.buf, g.mapped = nil, false
	case outWrite:
		g.writeBatch()
	default:
		if g.mapped {
			// Recording stopped while this goroutine wrote into the
			// file: its chunk holds committed events, which a buffer
			// reused from its start would overwrite.
			g.buf, g.mapped = nil, false
		}
	}
	if cap(g.buf) < n {
		g.buf = make([]byte, 0, max(n, maxChunk))
	}
	g.buf = g.buf[:0]
	g.open()
}

// synced runs after a sync event: with outWrite it writes the batch out,
// so that a crash loses at most the accesses after the last sync event.
func (g *gstate) synced() {
	if out.mode == outWrite {
		g.flush()
	}
}

// flush writes g's batch out and starts a new one at the buffer's start
// (synced, with outWrite).
func (g *gstate) flush() {
	g.writeBatch()
	g.buf = g.buf[:0]
	g.open()
}

// writeBatch writes g's batch to the file if it has events.
func (g *gstate) writeBatch() {
	if len(g.buf) == g.evStart {
		return
	}
	out.mu.Lock()
	n, err := out.f.Write(g.buf[g.batch:])
	out.size += int64(n)
	out.mu.Unlock()
	if err != nil {
		stopRecording(err)
	}
}

// takeChunk returns an empty slice with capacity n in the mapped file, or
// nil if the file cannot grow.
func takeChunk(n int) []byte {
	n = alignUp(n, firstChunk)
	out.mu.Lock()
	defer out.mu.Unlock()
	if out.mode != outMap {
		return nil
	}
	if out.next+n > len(out.seg) {
		if err := mapSegment(n); err != nil {
			stopRecordingLocked(err)
			return nil
		}
	}
	c := out.seg[out.next : out.next : out.next+n]
	out.next += n
	putWord(out.block[trace.ExtentField:], uint64(out.segOff)+uint64(out.next))
	return c
}

// stopRecording gives up on the trace file after an error: everything
// committed so far stays, later events are dropped.
func stopRecording(err error) {
	out.mu.Lock()
	defer out.mu.Unlock()
	stopRecordingLocked(err)
}

func stopRecordingLocked(err error) {
	if out.mode == outDiscard {
		return
	}
	os.Stderr.WriteString("precog shim: recording stopped: " + err.Error() + "\n")
	out.state = trace.Stopped
	switch out.mode {
	case outMap:
		putWord(out.block[trace.StateField:], uint64(trace.Stopped))
	case outWrite:
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], uint64(trace.Stopped))
		out.f.WriteAt(b[:], out.blockOff+trace.StateField) // the disk may refuse this too
	}
	out.mode = outDiscard
}

var errNoMmap = errors.New("memory-mapped output not supported on this platform")

func alignUp(n, a int) int { return (n + a - 1) / a * a }
