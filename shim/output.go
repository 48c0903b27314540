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

	"github.com/precog-dev/precog/shim/plan"
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
//
// The pages of a segment are dropped (dropPages) when the next one is
// mapped, not chunk by chunk: each drop costs the kernel a TLB shootdown,
// an interrupt to every CPU that ran the process, whatever its size, and
// with a drop per full 64 KiB chunk that was a quarter of ristretto/z's
// recorded CPU (and a tenth of pond's, whose many goroutines fill small
// chunks) on a 2-CPU virtual machine. Dropping a page of a shared mapping
// keeps its data in the file, so a goroutine still writing into a chunk
// of an old segment faults its pages back in; once such full chunks come
// to a segment's size, the old segments they are in are dropped again. The
// resident trace is the current segment, up to maxSegment of full chunks
// in old ones, and the goroutines' current chunks.
//
// While the file is shorter than smallTrace, segments stop doubling at
// smallSegment: the current segment's pages stay resident until the next
// one is mapped, and 4 MiB of them was half of the resident memory of a
// small test binary (x/sync/syncmap's, about 10 MB plain). A long trace
// goes on to maxSegment, whose drops are two times fewer, where the
// segment is small beside the program's own memory.
//
// A segment of hugePage bytes or more starts at a file offset that is a
// multiple of hugePage (the bytes skipped are a hole, which reads as
// padding), so that the kernel can back it with huge pages (see
// populatePages).
const (
	firstChunk   = 4 << 10
	maxChunk     = 64 << 10
	firstSegment = 64 << 10
	hugePage     = 2 << 20
	smallSegment = hugePage
	smallTrace   = 64 << 20
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

	// The segments before the current one, and the bytes of full chunks
	// written into them after their pages were dropped (see takeChunk).
	old   []oldSegment
	stray int

	// The header's state block (see "Completeness" in package trace):
	// block maps it (outMap); blockOff is its offset in the file.
	block    []byte
	blockOff int64
	state    trace.State

	// limit is the size the file may not grow past, 0 for none
	// (plan.TraceLimitEnv).
	limit int64
}

// errLimit stops the recording when the file would grow past out.limit.
var errLimit = errors.New("the trace reached its size limit (" + plan.TraceLimitEnv + ")")

// tests counts the top-level tests running: when it drops to 0 the trace
// says Ended, when it leaves 0 Recording again.
var tests atomic.Int64

// openTrace creates the trace file at path, writes the header (naming test,
// if known) and picks the output mode. The file will not grow past limit
// bytes if limit is above 0 (the header's segment is not counted).
func openTrace(path, test string, limit int64) error {
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
		out.limit = limit
		return nil
	}
	if _, err := f.Write(hdr); err != nil {
		f.Close()
		return err
	}
	out.size = int64(len(hdr))
	out.mode = outWrite
	out.limit = limit
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
	if out.state == trace.Stopped || out.state == trace.Limited || out.state == s {
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
	off, size := nextSegment(out.segOff, len(out.seg), n)
	if out.limit > 0 && off+int64(size) > out.limit {
		return errLimit
	}
	if err := growFile(out.f, off, size); err != nil {
		return err
	}
	mem, err := mapFile(out.f, off, size)
	if err != nil {
		return err
	}
	populatePages(mem)
	if out.seg != nil {
		dropPages(out.seg)
		out.old = append(out.old, oldSegment{mem: out.seg})
	}
	out.seg, out.segOff, out.next = mem, off, 0
	return nil
}

// nextSegment returns the file offset and the size of the segment to map
// after the one at off of size cur (0 for none), for at least n bytes.
func nextSegment(off int64, cur, n int) (int64, int) {
	size := 2 * cur
	if size < firstSegment {
		size = firstSegment
	}
	off += int64(cur)
	limit := maxSegment
	if off < smallTrace {
		limit = smallSegment
	}
	if size > limit {
		size = limit
	}
	if size < n {
		size = alignUp(n, firstSegment)
	}
	if size >= hugePage {
		size = alignUp(size, hugePage)
		off = int64(alignUp(int(off), hugePage))
	}
	return off, size
}

// refill gives g a buffer with at least n bytes of room after a new batch
// header, closing the current batch: a new chunk (outMap), or the same
// buffer after writing the batch out (outWrite) or dropping it.
func (g *gstate) refill(n int) {
	n += batchHeaderLen
	switch out.mode {
	case outMap:
		var full []byte
		if g.mapped {
			full = g.buf[:cap(g.buf)]
		}
		if chunk := takeChunk(full, n, max(g.chunk, n)); chunk != nil {
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
	defer out.mu.Unlock()
	if out.mode != outWrite {
		return // recording stopped
	}
	b := g.buf[g.batch:]
	if out.limit > 0 && out.size+int64(len(b)) > out.limit {
		stopRecordingLocked(errLimit)
		return
	}
	n, err := out.f.Write(b)
	out.size += int64(n)
	if err != nil {
		stopRecordingLocked(err)
	}
}

// An oldSegment is a segment before the current one.
type oldSegment struct {
	mem   []byte
	stray int // bytes of full chunks written since its pages were dropped
}

// takeChunk returns an empty slice in the mapped file with a capacity of
// want bytes, or less but at least need where that is what the current
// segment has left, or nil if the file cannot grow. full is the full
// chunk the caller leaves, if any: if it is in an old segment (its
// goroutine kept writing there after the segment's pages were dropped),
// it counts as stray, and once the stray bytes come to maxSegment the old
// segments holding them are dropped again, one call each: one drop per
// full chunk would cost a TLB shootdown each (see the chunk sizes).
func takeChunk(full []byte, need, want int) []byte {
	need, want = alignUp(need, firstChunk), alignUp(want, firstChunk)
	out.mu.Lock()
	defer out.mu.Unlock()
	if out.mode != outMap {
		return nil
	}
	if len(full) > 0 && !within(full, out.seg) {
		for i := len(out.old) - 1; i >= 0; i-- {
			if within(full, out.old[i].mem) {
				out.old[i].stray += len(full)
				out.stray += len(full)
				break
			}
		}
		if out.stray >= maxSegment {
			for i := range out.old {
				if out.old[i].stray > 0 {
					dropPages(out.old[i].mem)
					out.old[i].stray = 0
				}
			}
			out.stray = 0
		}
	}
	n := min(want, len(out.seg)-out.next)
	if n < need {
		n = want
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

// within says whether b starts inside seg.
func within(b, seg []byte) bool {
	p, s := uintptrOf(b), uintptrOf(seg)
	return p >= s && p < s+uintptr(len(seg))
}

// stopRecordingLocked gives up on the trace file after an error (errLimit,
// or the file could not grow): everything committed so far stays, later
// events are dropped. out.mu is held.
func stopRecordingLocked(err error) {
	if out.mode == outDiscard {
		return
	}
	os.Stderr.WriteString("precog shim: recording stopped: " + err.Error() + "\n")
	out.state = trace.Stopped
	if err == errLimit {
		out.state = trace.Limited
	}
	switch out.mode {
	case outMap:
		putWord(out.block[trace.StateField:], uint64(out.state))
	case outWrite:
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], uint64(out.state))
		out.f.WriteAt(b[:], out.blockOff+trace.StateField) // the disk may refuse this too
	}
	out.mode = outDiscard
}

var errNoMmap = errors.New("memory-mapped output not supported on this platform")

func alignUp(n, a int) int { return (n + a - 1) / a * a }
