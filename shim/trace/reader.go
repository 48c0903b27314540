package trace

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"slices"
	"time"
)

// ErrBroken is wrapped by the errors that report a damaged trace: a file
// cut short, as when the process was killed while writing, or bytes that
// are not a valid trace. Their text is "broken trace: <what> at offset N".
var ErrBroken = errors.New("broken trace")

// ErrLimited is wrapped, with ErrBroken, by the error that ends a trace
// whose writer stopped at its size limit (State Limited): the events
// before it are all there, those after it were never written.
var ErrLimited = errors.New("recording stopped at the trace's size limit")

// ErrNotTrace is returned by NewReader for a file that does not start like
// a trace at all.
var ErrNotTrace = errors.New("not a precog trace")

// batchChunk is how much of a batch the reader reads at a time. The length
// in a batch header is only a claim: reading in chunks keeps a damaged
// length from allocating more than the file holds.
const batchChunk = 64 << 10

// A Reader reads the events of a trace in file order: batch by batch, and
// within a batch in the order the goroutine recorded them. It resolves the
// implicit seqs of access and function events as it goes (see "Order" in
// the package doc) from each batch's header and events alone.
type Reader struct {
	r      *bufio.Reader
	off    int64 // file offset of the next byte of r
	header Header
	state  State
	extent int64  // from the header's state block; 0 if unknown
	cut    uint64 // from the header's state block; 0 if unknown or none
	err    error  // sticky: once set, Next returns it
	hdr    []byte // the header's bytes as read, for the checksum; nil after it
	block  int64  // the file offset of the header's state block
	eof    bool   // the end of the file was reached

	// afterBatch is set when a batch header has been read and cleared
	// when the reader looks past that batch: uncommitted events may
	// follow it, and nothing else.
	afterBatch bool

	// The batch being decoded.
	cursor

	// index, if not nil, collects every batch that holds events, for
	// OrderedReader's first pass.
	index *[]batchRef
}

// skipNext moves past the next event in file order, as Next does, without
// decoding it into an Event: for the passes that only count events and
// find where they end (Count, OrderedReader's first pass), which so cost a
// scan of the bytes, not an Event built and copied per event. It returns
// what Next would: nil, io.EOF at a clean end, or the same damage.
func (r *Reader) skipNext() error {
	if r.err != nil {
		return r.err
	}
	for r.pos == len(r.batch) {
		if len(r.batch) < r.want {
			r.err = r.end(r.broken(r.base+int64(r.pos), "batch cut after %d of %d bytes", len(r.batch), r.want))
			return r.err
		}
		if err := r.readBatch(); err != nil {
			r.err = r.end(err)
			return r.err
		}
	}
	if !r.skip() {
		// Not an event that is plainly whole and valid: decode it, which
		// finds the damage exactly where Next would (or moves past an
		// event the scan was unsure of).
		if _, err := r.decode(); err != nil {
			r.err = r.end(err)
			return r.err
		}
	}
	if r.index != nil {
		b := &(*r.index)[len(*r.index)-1]
		b.n++
		b.used = r.pos
	}
	return nil
}

// Count reads the trace in r to its end and returns how many events it
// holds: Reader's events, counted without decoding them, but for a trace
// whose writer stopped early those up to its cut alone, as OrderedReader
// returns them (decoded, for their seqs). It returns nil at a clean end,
// or the error Reader returns after the same events.
func Count(r io.Reader) (int, error) {
	rd, err := NewReader(r)
	if err != nil {
		return 0, err
	}
	n := 0
	for {
		in, err := rd.countNext()
		if err == io.EOF {
			return n, nil
		} else if err != nil {
			return n, err
		}
		if in {
			n++
		}
	}
}

// countNext moves past the next event as skipNext does, and reports
// whether it is one that OrderedReader returns: every event, or for a
// trace with a cut those with a seq up to it. A goroutine's seqs never
// decrease in file order, so those are its events before its first one
// past the cut.
func (r *Reader) countNext() (bool, error) {
	if r.cut == 0 {
		return true, r.skipNext()
	}
	ev, err := r.Next()
	return ev.Seq <= r.cut, err
}

// A cursor decodes the events of one batch, or of a window on one.
type cursor struct {
	batch []byte // its events, as far as the file holds them (OrderedReader: a window on them)
	want  int    // its length as its header claims: more than len(batch) if the file is cut
	pos   int    // the next event in batch
	base  int64  // file offset of batch[0]
	g     uint64 // its goroutine
	addr  uint64 // the batch's last address, for delta coding
	seq   uint64 // the goroutine's last seq, for delta coding and implicit seqs
	sub   uint64 // events without seq since it
}

// NewReader reads the header of the trace in r and returns a Reader for
// its events. It returns an error wrapping ErrNotTrace if r does not start
// like a trace, and one wrapping ErrBroken if the header is cut or damaged.
func NewReader(r io.Reader) (*Reader, error) {
	rd := &Reader{r: bufio.NewReader(r)}
	if err := rd.readHeader(); err != nil {
		return nil, err
	}
	return rd, nil
}

// Header returns the trace's header.
func (r *Reader) Header() Header { return r.header }

// State returns the state the header's state block gave when NewReader
// read it: whether the writer's process ended its tests, died, or gave up.
func (r *Reader) State() State { return r.state }

func (r *Reader) readHeader() error {
	var m [len(magic)]byte
	n, err := io.ReadFull(r.r, m[:])
	r.off += int64(n)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return fmt.Errorf("reading trace header: %w", err)
	}
	if !bytes.HasPrefix([]byte(magic), m[:n]) {
		return ErrNotTrace
	}
	if n < len(magic) {
		return r.broken(0, "header cut short")
	}
	r.hdr = append(make([]byte, 0, 64), m[:]...)
	v, err := r.uvarint("header")
	if err != nil {
		return err
	}
	if v != Version {
		if v < Version {
			return fmt.Errorf("trace version %d is not supported (precog reads version %d): an older precog recorded it; record it again", v, Version)
		}
		return fmt.Errorf("trace version %d is not supported (precog reads version %d): a newer precog recorded it", v, Version)
	}
	if r.header.Test, err = r.string("header"); err != nil {
		return err
	}
	if r.header.Package, err = r.string("header"); err != nil {
		return err
	}
	start, err := r.uvarint("header")
	if err != nil {
		return err
	}
	if start != 0 {
		r.header.Start = time.Unix(0, int64(start)).UTC()
	}
	at := r.off
	pid, err := r.uvarint("header")
	if err != nil {
		return err
	}
	if pid > math.MaxInt32 {
		return r.broken(at, "process id %d out of range", pid)
	}
	r.header.PID = int(pid)
	sum := crc32.ChecksumIEEE(r.hdr)
	r.hdr = nil
	at = r.off
	pad := (8 - (r.off+4)%8) % 8
	var block [4 + 8 + StateBlockLen]byte
	b := block[:4+pad+StateBlockLen]
	n, err = io.ReadFull(r.r, b)
	r.off += int64(n)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		r.eof = true
		return r.broken(at, "header cut short")
	}
	if err != nil {
		return fmt.Errorf("reading trace header: %w", err)
	}
	if got := binary.LittleEndian.Uint32(b); got != sum {
		return r.broken(at, "header checksum %#08x does not match its bytes (%#08x)", got, sum)
	}
	for i := 4; i < 4+int(pad); i++ {
		if b[i] != 0 {
			return r.broken(at+int64(i), "header padding byte %#x", b[i])
		}
	}
	blk := b[4+pad:]
	r.block = at + 4 + pad
	extent := binary.LittleEndian.Uint64(blk[ExtentField:])
	state := binary.LittleEndian.Uint64(blk[StateField:])
	if state >= uint64(numStates) {
		return r.broken(at+4+pad+StateField, "unknown trace state %d", state)
	}
	if extent > math.MaxInt64 {
		return r.broken(at+4+pad+ExtentField, "extent %d out of range", extent)
	}
	r.state, r.extent = State(state), int64(extent)
	if r.state == Stopped || r.state == Limited {
		r.cut = binary.LittleEndian.Uint64(blk[CutField:])
	}
	return nil
}

// end turns the error that ends the events (io.EOF at a clean end, or
// damage) into the one Next returns: a file that ended before its header's
// extent was cut, whatever the events there looked like, and a trace whose
// writer stopped early lost its last events.
func (r *Reader) end(err error) error {
	if r.eof && r.off < r.extent && (err == io.EOF || errors.Is(err, ErrBroken)) {
		return r.broken(r.off, "file cut, %d of its %d bytes missing", r.extent-r.off, r.extent)
	}
	if err == io.EOF && r.state == Stopped {
		return r.broken(r.off, "recording stopped early, the file could not grow, later events missing")
	}
	if err == io.EOF && r.state == Limited {
		return fmt.Errorf("%w: %w, later events missing at offset %d", ErrBroken, ErrLimited, r.off)
	}
	return err
}

// Next returns the next event in file order. At the end of an intact trace
// it returns io.EOF; at damage, an error wrapping ErrBroken. After an error
// it returns the same error again.
func (r *Reader) Next() (Event, error) {
	if r.err != nil {
		return Event{}, r.err
	}
	for r.pos == len(r.batch) {
		if len(r.batch) < r.want {
			r.err = r.end(r.broken(r.base+int64(r.pos), "batch cut after %d of %d bytes", len(r.batch), r.want))
			return Event{}, r.err
		}
		if err := r.readBatch(); err != nil {
			r.err = r.end(err)
			return Event{}, r.err
		}
	}
	ev, err := r.decode()
	if err != nil {
		r.err = r.end(err)
		return Event{}, r.err
	}
	if r.index != nil {
		b := &(*r.index)[len(*r.index)-1]
		b.n++
		b.used = r.pos
	}
	return ev, nil
}

// readBatch reads the next batch header and as much of the batch as the
// file holds, skipping what may come before it: the uncommitted events
// after the previous batch and padding. It returns io.EOF at a clean end.
func (r *Reader) readBatch() error {
	if r.afterBatch {
		r.afterBatch = false
		if err := r.skipUncommitted(); err != nil {
			return err
		}
	}
	if err := r.skipPadding(); err != nil {
		return err
	}
	c, err := r.r.ReadByte()
	if err != nil {
		return fmt.Errorf("reading trace: %w", err)
	}
	r.off++
	if c != batchMark {
		return r.broken(r.off-1, "byte %#x where a batch should start", c)
	}
	g, err := r.uvarint("batch header")
	if err != nil {
		return err
	}
	seq, err := r.uvarint("batch header")
	if err != nil {
		return err
	}
	sub, err := r.uvarint("batch header")
	if err != nil {
		return err
	}
	at := r.off
	var f [batchLenWidth]byte
	if n, err := io.ReadFull(r.r, f[:]); err != nil {
		r.off += int64(n)
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			r.eof = true
			return r.broken(at, "batch header cut short")
		}
		return fmt.Errorf("reading trace: %w", err)
	}
	r.off += batchLenWidth
	l := uint64(binary.LittleEndian.Uint32(f[:]))
	if l > MaxBatchLen {
		return r.broken(at, "batch length %d exceeds the limit %d", l, MaxBatchLen)
	}
	r.want, r.base, r.pos, r.g = int(l), r.off, 0, g
	r.batch, r.addr, r.seq, r.sub = r.batch[:0], 0, seq, sub
	if r.index != nil {
		if ix := *r.index; len(ix) > 0 && ix[len(ix)-1].n == 0 {
			*r.index = ix[:len(ix)-1] // the previous batch held no event
		}
		*r.index = append(*r.index, batchRef{off: r.base, g: g, seq: seq, sub: sub})
	}
	for len(r.batch) < r.want {
		n := min(r.want-len(r.batch), batchChunk)
		r.batch = slices.Grow(r.batch, n)
		m, err := io.ReadFull(r.r, r.batch[len(r.batch):len(r.batch)+n])
		r.batch = r.batch[:len(r.batch)+m]
		r.off += int64(m)
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			r.eof = true
			break // Next reports the cut after the events before it
		}
		if err != nil {
			return fmt.Errorf("reading trace: %w", err)
		}
	}
	r.afterBatch = true
	return nil
}

// skipPadding skips zero bytes up to the next non-zero byte. It returns
// io.EOF if the file ends first.
func (r *Reader) skipPadding() error {
	for {
		if _, err := r.r.Peek(1); err == io.EOF {
			r.eof = true
			return io.EOF
		} else if err != nil {
			return fmt.Errorf("reading trace: %w", err)
		}
		b, _ := r.r.Peek(r.r.Buffered())
		n := 0
		for n < len(b) && b[n] == 0 {
			n++
		}
		r.r.Discard(n)
		r.off += int64(n)
		if n < len(b) {
			return nil
		}
	}
}

// skipUncommitted skips the uncommitted events that may follow a batch:
// up to MaxUncommitted events, decoded only as far as needed to find where
// they end, since the writer may have died halfway through one (see
// "Crashes" in the package doc).
func (r *Reader) skipUncommitted() error {
	start := r.off
	for n := 0; ; n++ {
		b, err := r.r.Peek(1)
		if err == io.EOF {
			r.eof = true
		}
		if err != nil || b[0] < atomicMark && (Kind(b[0]) == evNone || Kind(b[0]) >= numKinds) {
			return nil // padding, a batch, the end or damage: readBatch sees
		}
		if n == MaxUncommitted {
			return r.broken(start, "more than %d events after the end of a batch", MaxUncommitted)
		}
		// A compact read, write or atomic has a uvarint where the site
		// is (its high bits) and the same fields after it.
		spec := &kinds[compactKind(b[0])]
		r.r.Discard(1)
		r.off++
		if !spec.implicit {
			if _, err := r.uvarint("uncommitted event"); err != nil {
				return err
			}
		}
		for _, f := range spec.fields {
			if f == fName {
				_, err = r.string("uncommitted event")
			} else {
				_, err = r.uvarint("uncommitted event")
			}
			if err != nil {
				return err
			}
		}
	}
}

// decode decodes the event at r.pos, which is inside the batch, and moves
// past it.
func (r *cursor) decode() (Event, error) {
	d := decoder{b: r.batch, i: r.pos, r: r, addr: r.addr}
	head := d.b[d.i]
	k := compactKind(head)
	if k == evNone || k >= numKinds {
		return Event{}, broken(r.base+int64(d.i), "unknown event kind %d", k)
	}
	d.i++
	spec := &kinds[k]
	fields := spec.fields
	ev := Event{Kind: k, Goroutine: r.g}
	if (spec.implicit || k == EvAtomicLoad) && r.sub == math.MaxUint64 {
		d.start = r.pos
		d.fail("event count after seq %d overflows", r.seq)
	} else if !spec.implicit {
		switch delta := d.uvarint(); {
		case d.err != nil:
		case delta == 0 && k != EvAtomicLoad:
			d.fail("seq %d does not come after the goroutine's seq %d", r.seq, r.seq)
		case r.seq+delta < r.seq:
			d.fail("seq overflows")
		default:
			ev.Seq = r.seq + delta
		}
	}
	if head >= atomicMark && d.err == nil {
		// A compact read, write or atomic: its site and address (see
		// "Compact reads and writes" and "Compact atomics" in the
		// package doc), then the fields after them.
		bits, aligned := compactForm(head)
		if hi := d.uvarint(); hi > math.MaxUint32>>bits {
			d.fail("site %d out of range", hi<<bits)
		} else {
			ev.Site = uint32(hi)<<bits | uint32(head)&(1<<bits-1)
		}
		delta := unzigzag(d.uvarint())
		if head&aligned != 0 {
			delta <<= 3
		}
		d.addr += uint64(delta)
		ev.Addr = d.addr
		fields = fields[2:]
	}
	for _, f := range fields {
		if d.err != nil {
			break
		}
		switch f {
		case fSite:
			if v := d.uvarint(); v > math.MaxUint32 {
				d.fail("site %d out of range", v)
			} else {
				ev.Site = uint32(v)
			}
		case fAddr:
			// 0 is the address 0, which leaves d.addr as it is
			// (Encoder.addrCode).
			if c := d.uvarint(); c != 0 {
				d.addr = decodeAddr(d.addr, c)
				ev.Addr = d.addr
			}
		case fValue, fCap, fEpoch, fSize, fChild, fParent:
			v := d.uvarint()
			if f == fChild || f == fParent {
				ev.Peer = v
			} else {
				ev.Value = v
			}
		case fElem:
			if ev.Peer = d.uvarint(); ev.Peer > math.MaxUint32 {
				d.fail("elem %d out of range", ev.Peer)
			}
		case fOK:
			if ev.Value = d.uvarint(); ev.Value > 1 {
				d.fail("ok flag %d is neither 0 nor 1", ev.Value)
			}
		case fOutcome:
			if ev.Value = d.uvarint(); ev.Value >= uint64(numOutcomes) {
				d.fail("unknown test outcome %d", ev.Value)
			}
		case fDelta:
			ev.Arg = unzigzag(d.uvarint())
		case fCase:
			if ev.Arg = unzigzag(d.uvarint()); ev.Arg < -1 {
				d.fail("select case %d", ev.Arg)
			}
		case fName:
			ev.Name = d.string()
		}
	}
	if d.err != nil {
		return Event{}, d.err
	}
	r.pos, r.addr = d.i, d.addr
	r.place(k, ev.Seq)
	ev.Seq, ev.Sub = r.seq, r.sub
	return ev, nil
}

// place moves the goroutine's place in the order past an event of kind k
// (see "Order" in the package doc): an access or function event counts one
// more Sub after the goroutine's seq; an atomic load with seq (which may be
// the goroutine's seq: a load takes the counter's value without
// incrementing it) takes Sub 1 after seq, or the next Sub if seq is the
// goroutine's already; any other sync event is (seq, 0). Encoder.place is
// the writer's side.
func (r *cursor) place(k Kind, seq uint64) {
	switch {
	case kinds[k].implicit || k == EvAtomicLoad && seq == r.seq:
		r.sub++
	case k == EvAtomicLoad:
		r.seq, r.sub = seq, 1
	default:
		r.seq, r.sub = seq, 0
	}
}

// compactKind returns the kind of the event whose first byte is b: EvRead
// or EvWrite for the compact form of accesses, EvAtomicLoad or
// EvAtomicStore for that of atomics, else b's kind.
func compactKind(b byte) Kind {
	switch {
	case b < atomicMark:
		return Kind(b)
	case b < compactMark && b&atomicStore != 0:
		return EvAtomicStore
	case b < compactMark:
		return EvAtomicLoad
	case b&compactWrite != 0:
		return EvWrite
	}
	return EvRead
}

// compactForm returns, for the first byte b of an event in a compact form
// (b >= atomicMark), how many of the site's low bits b holds and the bit
// of b that says the address difference is coded divided by 8.
func compactForm(b byte) (siteBits uint, aligned byte) {
	if b >= compactMark {
		return compactSiteBits, compactAligned
	}
	return atomicSiteBits, atomicAligned
}

// skip moves past the event at r.pos, which is inside the batch, and
// reports true, if the event is plainly whole and valid: every field a
// varint of at most 9 bytes inside the batch and in its range, the seq
// rising. It reports false, and moves nothing, for anything else (damage,
// or a rare valid event such as a 10-byte varint), which decode then
// reads: so the events skipped are exactly those decode accepts, with
// the same seqs, and every error comes from decode.
func (r *cursor) skip() bool {
	b, i := r.batch, r.pos
	head := b[i]
	k := compactKind(head)
	if k == evNone || k >= numKinds {
		return false
	}
	i++
	spec := &kinds[k]
	fields := spec.fields
	seq, addr := uint64(0), r.addr
	if spec.implicit || k == EvAtomicLoad {
		if r.sub == math.MaxUint64 {
			return false
		}
	}
	if !spec.implicit {
		delta, n := skipUvarint(b, i)
		if n == 0 || delta == 0 && k != EvAtomicLoad || r.seq+delta < r.seq {
			return false
		}
		i += n
		seq = r.seq + delta
	}
	if head >= atomicMark {
		// A compact read, write or atomic: the site's high bits and the
		// address, then the fields after them.
		bits, aligned := compactForm(head)
		hi, n := skipUvarint(b, i)
		if n == 0 || hi > math.MaxUint32>>bits {
			return false
		}
		i += n
		v, n := skipUvarint(b, i)
		if n == 0 {
			return false
		}
		i += n
		delta := unzigzag(v)
		if head&aligned != 0 {
			delta <<= 3
		}
		addr += uint64(delta)
		fields = fields[2:]
	}
	for _, f := range fields {
		v, n := skipUvarint(b, i)
		if n == 0 {
			return false
		}
		i += n
		switch f {
		case fSite, fElem:
			if v > math.MaxUint32 {
				return false
			}
		case fAddr:
			if v != 0 {
				addr = decodeAddr(addr, v)
			}
		case fOK:
			if v > 1 {
				return false
			}
		case fOutcome:
			if v >= uint64(numOutcomes) {
				return false
			}
		case fCase:
			if unzigzag(v) < -1 {
				return false
			}
		case fName:
			if v > MaxStringLen || v > uint64(len(b)-i) {
				return false
			}
			i += int(v)
		}
	}
	r.pos, r.addr = i, addr
	r.place(k, seq)
	return true
}

// skipUvarint returns the uvarint at b[i:] and its length, or a length of
// 0 if it is not one of at most 9 bytes inside b (decode then reads it:
// the longer ones are rare, and where they overflow is decode's to say).
func skipUvarint(b []byte, i int) (uint64, int) {
	var v uint64
	for n := 0; n < 9 && i+n < len(b); n++ {
		c := b[i+n]
		v |= uint64(c&0x7f) << (7 * n)
		if c < 0x80 {
			return v, n + 1
		}
	}
	return 0, 0
}

// A decoder decodes the fields of one event. The first failure sticks, so
// the field loop checks once per field.
type decoder struct {
	b     []byte
	i     int
	r     *cursor
	addr  uint64
	start int // the field being decoded, for errors
	err   error
}

func (d *decoder) uvarint() uint64 {
	d.start = d.i
	v, n := binary.Uvarint(d.b[d.i:])
	switch {
	case n > 0:
		d.i += n
	case n == 0:
		d.short()
	default:
		d.fail("bad varint")
	}
	return v
}

func (d *decoder) string() string {
	n := d.uvarint()
	switch {
	case d.err != nil:
		return ""
	case n > MaxStringLen:
		d.fail("string length %d exceeds the limit %d", n, MaxStringLen)
		return ""
	case n > uint64(len(d.b)-d.i):
		d.short()
		return ""
	}
	s := string(d.b[d.i : d.i+int(n)])
	d.i += int(n)
	return s
}

// short reports that the event goes past the end of the batch's bytes: the
// event starting at r.pos, where the batch's intact part ends.
func (d *decoder) short() {
	r := d.r
	at := r.base + int64(r.pos)
	if len(r.batch) < r.want {
		d.err = broken(at, "batch cut after %d of %d bytes", len(r.batch), r.want)
	} else {
		d.err = broken(at, "event runs past the end of its batch")
	}
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = broken(d.r.base+int64(d.start), format, args...)
	}
}

// uvarint reads a uvarint of the stream outside batches; what names the
// part of the file being read, for errors.
func (r *Reader) uvarint(what string) (uint64, error) {
	start := r.off
	var v uint64
	for i := 0; i < binary.MaxVarintLen64; i++ {
		c, err := r.r.ReadByte()
		if err == io.EOF {
			r.eof = true
			return 0, r.broken(start, "%s cut short", what)
		}
		if err != nil {
			return 0, fmt.Errorf("reading trace: %w", err)
		}
		r.off++
		if r.hdr != nil {
			r.hdr = append(r.hdr, c)
		}
		if i == binary.MaxVarintLen64-1 && c > 1 {
			break
		}
		v |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return v, nil
		}
	}
	return 0, r.broken(start, "bad varint in %s", what)
}

// string reads a string of the stream outside batches.
func (r *Reader) string(what string) (string, error) {
	start := r.off
	n, err := r.uvarint(what)
	if err != nil {
		return "", err
	}
	if n > MaxStringLen {
		return "", r.broken(start, "string length %d exceeds the limit %d", n, MaxStringLen)
	}
	b := make([]byte, n)
	m, err := io.ReadFull(r.r, b)
	r.off += int64(m)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		r.eof = true
		return "", r.broken(start, "%s cut short", what)
	}
	if err != nil {
		return "", fmt.Errorf("reading trace: %w", err)
	}
	if r.hdr != nil {
		r.hdr = append(r.hdr, b...)
	}
	return string(b), nil
}

func (r *Reader) broken(off int64, format string, args ...any) error {
	return broken(off, format, args...)
}

func broken(off int64, format string, args ...any) error {
	return fmt.Errorf("%w: %s at offset %d", ErrBroken, fmt.Sprintf(format, args...), off)
}

// A Trace is a whole trace, its events in the global order.
type Trace struct {
	Header Header
	// State is what the writer last said about the trace (Reader.State).
	State State
	// Events are sorted by (Seq, Sub, Goroutine): see "Order" in the
	// package doc.
	Events []Event
}

// ReadAll reads the trace in r and returns its events in the global order.
// If the trace is broken, it returns the events before the damage with the
// error; if not even the header could be read, a nil Trace.
//
// It reads through an OrderedReader: a file, or any r that is an
// io.ReaderAt and an io.Seeker, is read where it is from its current
// offset; anything else is read into memory first.
func ReadAll(r io.Reader) (*Trace, error) {
	ra, size, err := readerAt(r)
	if err != nil {
		return nil, err
	}
	o, err := NewOrderedReader(ra, size)
	if err != nil {
		return nil, err
	}
	t := &Trace{Header: o.Header(), State: o.State(), Events: make([]Event, 0, o.Len())}
	for {
		ev, err := o.Next()
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return t, err
		}
		t.Events = append(t.Events, ev)
	}
}

// readerAt returns r as an io.ReaderAt of size bytes, from r's current
// offset if it can seek, or r's bytes read into memory.
func readerAt(r io.Reader) (io.ReaderAt, int64, error) {
	if ra, ok := r.(io.ReaderAt); ok {
		if s, ok := r.(io.Seeker); ok {
			cur, err := s.Seek(0, io.SeekCurrent)
			if err == nil {
				var end int64
				if end, err = s.Seek(0, io.SeekEnd); err == nil {
					_, err = s.Seek(cur, io.SeekStart)
				}
				if err == nil {
					return io.NewSectionReader(ra, cur, end-cur), end - cur, nil
				}
			}
		}
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, 0, fmt.Errorf("reading trace: %w", err)
	}
	return bytes.NewReader(b), int64(len(b)), nil
}

// Sort sorts events into the global order, by (Seq, Sub, Goroutine).
func Sort(events []Event) {
	slices.SortStableFunc(events, func(a, b Event) int {
		return cmp.Or(cmp.Compare(a.Seq, b.Seq), cmp.Compare(a.Sub, b.Sub), cmp.Compare(a.Goroutine, b.Goroutine))
	})
}
