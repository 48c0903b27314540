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
// goroutines record little; after that a chunk is sized by how fast its
// goroutine wrote the last one (chunkSize). Segments double, so that a
// short test leaves a small file.
//
// The pages of a segment are dropped (dropPages) a segment at a time, not
// chunk by chunk: each drop costs the kernel a TLB shootdown, an interrupt
// to every CPU that ran the process, whatever its size, and with a drop
// per full 64 KiB chunk that was a quarter of ristretto/z's recorded CPU
// (and a tenth of pond's, whose many goroutines fill small chunks) on a
// 2-CPU virtual machine. Dropping a page of a shared mapping keeps its
// data in the file, and a write there would fault it back in, a whole huge
// page of a segment that has them: so a goroutine whose chunk is in a
// dropped segment takes a new chunk before its next event (leaveDropped),
// and the rest of the old chunk stays unused, though the kernel zeroed its
// pages (populatePages) as it does a written byte's. A goroutine that was
// writing an event there while the segment was dropped may have faulted a
// page back; the segment is dropped again when the next segment is mapped.
//
// A segment is dropped when the one after the next is mapped, not the
// next: the goroutines whose chunks are there when the next is mapped,
// busy ones and idle ones whose states wait in states.free with their
// chunks, go on writing into them while the next segment fills. Dropped
// at once, the rest of those chunks was 8% of pond's trace (5.2 of its
// 62.9 MB: about 70 live goroutines' and 60 free states' chunks, 1 to 1.5
// KiB each, at each of 30 drops); a segment later, 2.7 MB of it is left
// (bench/RESULTS.md, reccost29). The resident trace is the current segment
// and the one before it, and pages of older ones for a moment: one
// segment more than when a segment was dropped at the next, in the
// process's resident set, though not in the machine's memory, where the
// trace's pages stay in the page cache, mapped or not, until the kernel
// writes them back.
//
// While the file is shorter than smallTrace, segments stop doubling at
// smallSegment: the pages of the two segments stay resident, and two of 4
// MiB would be most of the resident memory of a small test binary
// (x/sync/syncmap's, about 10 MB plain). A long trace goes on to
// maxSegment, whose drops are two times fewer, where the segments are
// small beside the program's own memory.
//
// A segment of hugePage bytes or more starts at a file offset that is a
// multiple of hugePage (the bytes skipped are a hole, which reads as
// padding), so that the kernel can back it with huge pages (see
// populatePages).
const (
	firstChunk   = 1 << 10
	chunkShare   = 64 // see chunkSize
	chunkAlign   = 512
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

	// The segments before the current one (out.old[i] is the segment of
	// index i, the current one's is len(out.old)), of which all but the
	// last had their pages dropped, and those of the dropped ones that a
	// goroutine may have written into since (see takeChunk).
	old     []oldSegment
	touched []int

	// The segment after the current one, mapped ahead of need (mapAhead):
	// ahead at file offset aheadOff, or aheadErr if it could not be
	// mapped; mapping while a goroutine maps it, without out.mu, and
	// mapped, on out.mu, is signalled when it is done.
	ahead    []byte
	aheadOff int64
	aheadErr error
	mapping  bool
	mapped   sync.Cond

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
	// The header is written before the file grows and is mapped: a
	// process killed while the shim starts (record kills a test a
	// millisecond into a spent -record-budget) leaves an empty file or
	// one that starts with the header, never a segment of zeros, which
	// no reader can tell from a file that is not a trace.
	if _, err := f.Write(hdr); err != nil {
		f.Close()
		return err
	}
	// Init runs before any goroutine records, so the lock is not needed;
	// it is taken anyway so that every access to out's fields is under it.
	out.mu.Lock()
	defer out.mu.Unlock()
	out.f = f
	out.mapped.L = &out.mu
	out.blockOff = int64(block)
	if err := mapSegment(len(hdr)); err == nil {
		out.block = out.seg[block : block+trace.StateBlockLen]
		out.next = alignUp(len(hdr), firstChunk)
		out.mode = outMap
		putWord(out.block[trace.ExtentField:], uint64(out.next))
		out.limit = limit
		return nil
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

// mapSegment makes the segment after the current one current, with at
// least n bytes: the one mapped ahead (mapAhead) if there is one, else one
// it grows the file by and maps. out.mu is held. A segment that another
// goroutine is mapping ahead is waited for, not mapped a second time at
// its offset.
func mapSegment(n int) error {
	for out.mapping {
		out.mapped.Wait()
	}
	from, cur := out.segOff, len(out.seg)
	if err := out.aheadErr; err != nil {
		out.aheadErr = nil
		return err
	}
	if mem := out.ahead; mem != nil {
		out.ahead = nil
		if len(mem) >= n {
			useSegment(mem, out.aheadOff)
			return nil
		}
		// Too small for n (mapAhead maps at least maxChunk, more than
		// any chunk takes): left unused, zeros in the file, which
		// readers skip as the padding between batches.
		dropPages(mem)
		from, cur = out.aheadOff, len(mem)
	}
	off, size := nextSegment(from, cur, n)
	if out.limit > 0 && off+int64(size) > out.limit {
		return errLimit
	}
	mem, err := newSegment(off, size)
	if err != nil {
		return err
	}
	useSegment(mem, off)
	return nil
}

// newSegment grows the file by the size bytes at off and maps them, their
// pages populated. It takes no lock: out.f is set once, before any
// goroutine records.
func newSegment(off int64, size int) ([]byte, error) {
	if err := growFile(out.f, off, size); err != nil {
		return nil, err
	}
	mem, err := mapFile(out.f, off, size)
	if err != nil {
		return nil, err
	}
	populatePages(mem)
	return mem, nil
}

// useSegment makes mem, mapped at file offset off, the current segment,
// and drops the pages of the segment before the last (see "A segment is
// dropped" above). out.mu is held.
func useSegment(mem []byte, off int64) {
	for _, i := range out.touched {
		dropPages(out.old[i].mem)
		out.old[i].touched = false
	}
	out.touched = out.touched[:0]
	if out.seg != nil {
		if n := len(out.old); n > 0 {
			dropPages(out.old[n-1].mem)
			dropped.Store(uint64(n))
			attention.Add(1)
		}
		out.old = append(out.old, oldSegment{mem: out.seg})
	}
	out.seg, out.segOff, out.next = mem, off, 0
}

// Segments of aheadFrom bytes or more are followed by one mapped ahead of
// need: the goroutine whose chunk passes the first quarter of such a
// segment maps the next one (mapAhead) after it has let go of out.mu, so
// that the goroutines that take chunks meanwhile, and the one that takes
// the first chunk past the segment's end, do not wait for the file to
// grow and its pages to be zeroed (1 to 3 ms for 2 MiB on this machine).
// They waited under out.mu, each parked and then woken onto the queue of
// a running P: with goroutines that never block on the other Ps
// (x/sync/syncmap's loaders, spinning until the test goroutine's Ranges
// end), each such wait lasted up to a scheduler time slice (10 ms), while
// the spinners burned both CPUs (bench/RESULTS.md, syncmap). Smaller
// segments, a short test's, are mapped when needed: one mapped ahead and
// never used would be most of a short test's file. A long trace's file
// ends with up to a segment mapped ahead and never used, zeros that
// readers skip.
const aheadFrom = smallSegment

// aheadDue reports whether the chunk just taken passed the first quarter
// of the current segment, with no segment after it mapped or being
// mapped; if so it marks the mapping started and returns the next
// segment's offset and size. None is mapped ahead past out.limit:
// mapSegment reports the limit when the current segment is full. out.mu
// is held.
func aheadDue() (int64, int, bool) {
	if out.mapping || out.ahead != nil || out.aheadErr != nil || len(out.seg) < aheadFrom || out.next < len(out.seg)/4 {
		return 0, 0, false
	}
	off, size := nextSegment(out.segOff, len(out.seg), maxChunk)
	if out.limit > 0 && off+int64(size) > out.limit {
		return 0, 0, false
	}
	out.mapping = true
	return off, size, true
}

// mapAhead maps the segment aheadDue chose, without out.mu, for
// mapSegment to take.
func mapAhead(off int64, size int) {
	mem, err := newSegment(off, size)
	out.mu.Lock()
	out.ahead, out.aheadOff, out.aheadErr = mem, off, err
	out.mapping = false
	out.mapped.Broadcast()
	out.mu.Unlock()
}

// dropped counts the segments whose pages were dropped: those of the
// indexes below it. It is written under out.mu, and attention changes
// after it does.
var dropped atomic.Uint64

// leaveDropped gives g a new chunk if its chunk is in a segment whose
// pages were dropped, before g writes there again. A goroutine that had
// not filled its chunk while a whole segment filled records little, and
// chunkSize gives it a small one: pond's short goroutines, taking over the
// states (and the chunk sizes) of busy ones that ended, left most of
// 64 KiB chunks unused, and its trace file grew from 72 to 208 MiB.
func (g *gstate) leaveDropped() {
	if g.mapped && (g.seg < dropped.Load() || stopped.Load()) {
		g.refill(eventRoom)
	}
}

// stopped is set, for good, when the recording stops early
// (stopRecordingLocked), before attention changes: each goroutine then
// leaves its chunk of the file at its next event, so that the events the
// file holds past the cut the state block gives are only those the
// goroutines wrote before they noticed (see "Completeness" in package
// trace).
var stopped atomic.Bool

// chunkSize returns the size of a goroutine's next chunk, given its last
// one: size bytes, of which it used used while the trace grew by grew
// bytes (its own chunk included), and the current segment's length. The
// rest of a chunk in a segment when the segment is dropped stays unused
// (see leaveDropped) but costs what a written byte does: the kernel
// zeroes and maps its pages (populatePages). So a chunk is about a
// chunkShare-th of what its goroutine writes while a segment fills, and
// the chunks left in a dropped segment add up to at most about a
// chunkShare-th of it, however many goroutines hold one. When chunks
// doubled up to maxChunk whatever the goroutine's pace, about 20 MB of
// pond's 88 MB trace were the rest of chunks left in dropped segments,
// most of them 16 to 64 KiB chunks of workers that had been busy and
// were blocked, and 4 KiB first chunks (bench/RESULTS.md, reccost15 and
// reccost16). A chunk is at most twice the last one, so that a
// goroutine's pace is measured over a chunk it filled, and at least
// chunkAlign; a goroutine that writes alone still gets maxChunk (half of
// it while segments are smallSegment), and takes a chunk rarely enough
// that out.mu costs nothing.
func chunkSize(used, size int, grew int64, segLen int) int {
	c := int64(segLen) * int64(used) / (chunkShare * max(grew, 1))
	return alignUp(int(min(max(c, chunkAlign), int64(min(2*size, maxChunk)))), chunkAlign)
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
		var last []byte
		if g.mapped {
			last = g.buf
		}
		if chunk, seg, at := takeChunk(last, g.seg, g.taken, n); chunk != nil {
			g.buf = chunk
			g.mapped = true
			g.seg = seg
			g.taken = at
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
	mem     []byte
	touched bool // in out.touched
}

// takeChunk returns an empty slice in the mapped file with a capacity of
// the size chunkSize gives (firstChunk for a goroutine's first), or less
// but at least need where that is what the current segment has left; the
// index of its segment; and the trace's extent before it. Or nil if the
// file cannot grow. last is the chunk the caller leaves, if any (its
// length is what the caller used of it), taken at extent taken, and seg
// the index of its segment: if that segment's pages were dropped, the
// caller may have written there since (an event it was writing when the
// segment was dropped), faulting a page back in, and the segment is
// dropped again when the next one is mapped.
func takeChunk(last []byte, seg uint64, taken int64, need int) ([]byte, uint64, int64) {
	out.mu.Lock()
	c, i, at := takeChunkLocked(last, seg, taken, need)
	off, size, ahead := int64(0), 0, false
	if c != nil {
		off, size, ahead = aheadDue()
	}
	out.mu.Unlock()
	if ahead {
		mapAhead(off, size)
	}
	return c, i, at
}

// takeChunkLocked is takeChunk with out.mu held.
func takeChunkLocked(last []byte, seg uint64, taken int64, need int) ([]byte, uint64, int64) {
	need = alignUp(need, chunkAlign)
	if out.mode != outMap {
		return nil, 0, 0
	}
	want := firstChunk
	if last != nil {
		want = chunkSize(len(last), cap(last), out.segOff+int64(out.next)-taken, len(out.seg))
		if seg < dropped.Load() && !out.old[seg].touched {
			out.old[seg].touched = true
			out.touched = append(out.touched, int(seg))
		}
	}
	want = max(want, need)
	n := min(want, len(out.seg)-out.next)
	for n < need {
		if out.mapping {
			// The next segment is being mapped ahead: take a chunk
			// of it, unless another goroutine made it current
			// first and took what this one needs.
			out.mapped.Wait()
		} else if err := mapSegment(want); err != nil {
			stopRecordingLocked(err)
			return nil, 0, 0
		}
		if out.mode != outMap {
			return nil, 0, 0 // stopped while this goroutine waited
		}
		n = min(want, len(out.seg)-out.next)
	}
	at := out.segOff + int64(out.next)
	c := out.seg[out.next : out.next : out.next+n]
	out.next += n
	putWord(out.block[trace.ExtentField:], uint64(out.segOff)+uint64(out.next))
	return c, uint64(len(out.old)), at
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
		// Every sync event with a seq up to the counter's value now was
		// committed, or will be where its goroutine made room for it
		// before it took the seq.
		putWord(out.block[trace.CutField:], seqs.n.Load())
		putWord(out.block[trace.StateField:], uint64(out.state))
		stopped.Store(true)
		attention.Add(1)
	case outWrite:
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], uint64(out.state))
		out.f.WriteAt(b[:], out.blockOff+trace.StateField) // the disk may refuse this too
	}
	out.mode = outDiscard
}

var errNoMmap = errors.New("memory-mapped output not supported on this platform")

func alignUp(n, a int) int { return (n + a - 1) / a * a }
