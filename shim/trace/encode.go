package trace

import (
	"encoding/binary"
	"hash/crc32"
	"io"
	"math"
	"strconv"
	"time"
)

// Version is the version of the format this package writes and reads.
// Version 4 added the header's checksum and state block, version 5
// EvMapMake, version 6 the synctest events EvBubble, EvSleep and EvWake,
// version 7 EvClock and EvSyncWait, version 8 the sync.Pool events
// EvPoolPut and EvPoolGet, version 9 the compact reads and writes and a
// batch length of 4 little-endian bytes, version 10 the element
// fingerprints (elem) of EvChanSend, EvChanRecv and EvSelect, version 11
// EvBelow, version 12 the address field's 0 for the address 0 (addrCode),
// version 13 the atomic loads' seqs that need not be new (see "Order"),
// version 14 the state block's cut, version 15 EvMark and EvAfter,
// version 16 the compact atomic loads and stores, version 17 EvCreator
// and EvRan, version 18 EvNew and its field size.
const Version = 18

// magic starts every trace file.
const magic = "precog trace\n"

// Limits. The reader rejects anything longer before allocating for it, and
// the writer never produces it.
const (
	// MaxBatchLen is the largest byte length of a batch's events. (The
	// length field could hold more; the limit is what version 8's could.)
	MaxBatchLen = 1<<28 - 1
	// MaxStringLen is the largest byte length of a string (a test name, the
	// header's package path). The writer truncates longer ones.
	MaxStringLen = 1 << 16
	// MaxEventLen is the most bytes one Append method adds to a batch,
	// except AppendTestStart, which adds up to MaxEventLen + MaxStringLen,
	// and AppendCreator, up to MaxEventLen + MaxCreatorLen:
	// kind, seq, site, addr and a value field at their widest, or a
	// select's kind, seq, site, case, addr, ok and elem.
	MaxEventLen = 1 + binary.MaxVarintLen64 + binary.MaxVarintLen32 + 2*binary.MaxVarintLen64 + 1 + binary.MaxVarintLen32
	// MaxBatchHeaderLen is the most bytes StartBatch appends.
	MaxBatchHeaderLen = 1 + 3*binary.MaxVarintLen64 + batchLenWidth
	// MaxUncommitted is the most events a writer may leave after a batch
	// beyond its length: the ones it was appending when the process died
	// (see "Crashes" in the package doc). The shim commits after every
	// event and the EvGCEpoch that may precede it.
	MaxUncommitted = 2
	// MaxCreators is the most EvCreator events a goroutine has, and
	// MaxCreatorLen the longest name of one (AppendCreator cuts longer
	// ones): the chain of a goroutine's creation is read once, when the
	// shim adopts the goroutine, and is there to name packages, not to be
	// a stack.
	MaxCreators   = 8
	MaxCreatorLen = 256
)

// batchLenWidth is the width of the batch length field that StartBatch
// reserves: a little-endian uint32, so that FinishBatch, and a writer
// committing each event (the shim), fill it in place with one store.
const batchLenWidth = 4

// batchMark starts a batch.
const batchMark = 'B'

// A Header is what a trace says about the process that wrote it.
type Header struct {
	Test    string    // the top-level test the process ran ("" if not one test)
	Package string    // import path of the package under test
	Start   time.Time // when recording started; the zero Time if unknown
	PID     int       // the recording process
}

// A State is what the writer of a trace last said about it, in the state
// block of the header (see "Completeness" in the package doc).
type State uint8

const (
	// Recording: the writer had not finished. In a trace whose process
	// has exited, the process died (a crash, a kill, a timeout) before
	// its tests returned; the trace holds what it committed until then.
	Recording State = iota
	// Ended: every test the process ran had returned, or the trace was
	// written whole.
	Ended
	// Stopped: the writer gave up early because its file could not grow
	// (a full disk); the events after that are lost.
	Stopped
	// Limited: the writer stopped before its file would grow past the
	// size limit it was given (plan.TraceLimitEnv); the events after
	// that are lost.
	Limited
	numStates
)

func (s State) String() string {
	switch s {
	case Recording:
		return "recording"
	case Ended:
		return "ended"
	case Stopped:
		return "stopped"
	case Limited:
		return "limited"
	}
	return "State(" + strconv.Itoa(int(s)) + ")"
}

// The state block that ends the header: three little-endian 64-bit words at
// an offset that is a multiple of 8, so that a writer that maps the file
// can update each with one aligned store.
const (
	// StateBlockLen is the length of the state block.
	StateBlockLen = 24
	// ExtentField is the offset in the block of the extent: the file
	// offset where the space the writer has handed out ends, 0 if unknown.
	// A file shorter than its extent was cut.
	ExtentField = 0
	// StateField is the offset in the block of the State.
	StateField = 8
	// CutField is the offset in the block of the cut: for a trace whose
	// writer stopped early (Stopped, Limited), the seq of the last sync
	// event that is part of the trace, 0 if unknown (see "Completeness").
	CutField = 16
)

// AppendHeader appends the header of a trace written whole, in state Ended
// with an unknown extent, to b.
func AppendHeader(b []byte, h Header) []byte {
	b, _ = AppendLiveHeader(b, h)
	b[len(b)-StateBlockLen+StateField] = byte(Ended)
	return b
}

// AppendLiveHeader appends the header of a trace that is written as its
// process runs, in state Recording with an unknown extent, to b, and
// returns the offset in the result of its state block, which the writer
// updates as it goes.
func AppendLiveHeader(b []byte, h Header) ([]byte, int) {
	start := len(b)
	b = append(b, magic...)
	b = binary.AppendUvarint(b, Version)
	b = appendString(b, h.Test)
	b = appendString(b, h.Package)
	var start64 uint64 // 0: unknown
	if !h.Start.IsZero() {
		start64 = uint64(h.Start.UnixNano())
	}
	b = binary.AppendUvarint(b, start64)
	b = binary.AppendUvarint(b, uint64(h.PID))
	b = binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b[start:]))
	for (len(b)-start)%8 != 0 {
		b = append(b, 0)
	}
	block := len(b) - start
	b = append(b, make([]byte, StateBlockLen)...)
	return b, block
}

// WriteHeader writes the header of a trace written whole (AppendHeader) for
// h to w, in one Write.
func WriteHeader(w io.Writer, h Header) error {
	_, err := w.Write(AppendHeader(nil, h))
	return err
}

// An Encoder appends the events of a goroutine's batches to a caller-owned
// buffer. It holds the state of the delta coding (the last seq and the last
// address) and the goroutine's place in the order (its last seq and the
// events since), which every batch header records, so each goroutine needs
// its own Encoder for all its batches; an Encoder is a small value meant to
// live next to the buffer, and needs no locking as long as one goroutine at
// a time uses the pair. A zero Encoder is ready for a goroutine's first
// batch.
//
// The Append methods never allocate unless b lacks the capacity for one
// more event (MaxEventLen). The seqs passed to the sync events must
// increase, but for an atomic load's, which may also equal the last (see
// "Order" in the package doc); a batch may hold any mix of sync and other
// events.
type Encoder struct {
	seq  uint64 // seq of the last sync event
	sub  uint64 // events without seq since it (and atomic loads of the same seq)
	addr uint64 // the batch's last address; 0 at the start of a batch
}

// Seq returns the seq of the last sync event appended (0 before the
// first): the events without seq since then share it, as do the atomic
// loads that took no new seq.
func (e *Encoder) Seq() uint64 { return e.seq }

// place moves the goroutine's place in the order to the sync event of
// kind k and seq seq, as the reader does: an atomic load's place is
// (seq, 1), or the next Sub if seq is the goroutine's seq already; every
// other sync event's is (seq, 0).
func (e *Encoder) place(k Kind, seq uint64) {
	if k != EvAtomicLoad {
		e.seq, e.sub = seq, 0
	} else if seq != e.seq {
		e.seq, e.sub = seq, 1
	} else {
		e.sub++
	}
}

// StartBatch starts a new batch of goroutine g's events: it appends the
// batch header to b, with the goroutine's place in the order and room for
// the length that FinishBatch fills in. Events appended after it belong to
// the batch.
func (e *Encoder) StartBatch(b []byte, g uint64) []byte {
	e.addr = 0
	b = append(b, batchMark)
	b = appendID(b, g)
	b = binary.AppendUvarint(b, e.seq)
	b = binary.AppendUvarint(b, e.sub)
	return append(b, 0, 0, 0, 0) // 0 in batchLenWidth bytes
}

// FinishBatch fills in the length field of batch, which must begin with a
// header appended by StartBatch and hold the batch's events after it; batch
// is then ready to be written. It panics if batch does not start with a
// batch header or its events are longer than MaxBatchLen.
func FinishBatch(batch []byte) {
	if len(batch) == 0 || batch[0] != batchMark {
		panic("trace: FinishBatch of a buffer without a batch header")
	}
	n := 1
	for i := 0; i < 3; i++ { // goroutine, seq, sub
		_, m := binary.Uvarint(batch[n:])
		if m <= 0 {
			panic("trace: FinishBatch of a buffer without a batch header")
		}
		n += m
	}
	if len(batch) < n+batchLenWidth {
		panic("trace: FinishBatch of a buffer without a batch header")
	}
	l := len(batch) - n - batchLenWidth
	if l > MaxBatchLen {
		panic("trace: batch longer than MaxBatchLen")
	}
	putBatchLen(batch[n:n+batchLenWidth], l)
}

// putBatchLen writes l into the length field f.
func putBatchLen(f []byte, l int) {
	binary.LittleEndian.PutUint32(f, uint32(l))
}

// AppendFork appends an EvFork event.
func (e *Encoder) AppendFork(b []byte, seq uint64, site uint32, child uint64) []byte {
	b = e.sync(b, EvFork, seq)
	b = appendUvarint(b, uint64(site))
	return appendID(b, child)
}

// AppendBegin appends an EvBegin event.
func (e *Encoder) AppendBegin(b []byte, seq uint64, parent uint64) []byte {
	return appendID(e.sync(b, EvBegin, seq), parent)
}

// AppendBelow appends an EvBelow event.
func (e *Encoder) AppendBelow(b []byte, seq uint64, parent uint64) []byte {
	return appendID(e.sync(b, EvBelow, seq), parent)
}

// AppendMark appends an EvMark event.
func (e *Encoder) AppendMark(b []byte, seq uint64, site uint32) []byte {
	return appendUvarint(e.sync(b, EvMark, seq), uint64(site))
}

// AppendAfter appends an EvAfter event.
func (e *Encoder) AppendAfter(b []byte, seq uint64, site uint32, parent uint64) []byte {
	b = appendUvarint(e.sync(b, EvAfter, seq), uint64(site))
	return appendUvarint(b, parent)
}

// AppendCreator appends an EvCreator event naming the function fn, cut
// to MaxCreatorLen bytes.
func (e *Encoder) AppendCreator(b []byte, seq uint64, fn string) []byte {
	return appendString(e.sync(b, EvCreator, seq), fn[:min(len(fn), MaxCreatorLen)])
}

// AppendEnd appends an EvEnd event.
func (e *Encoder) AppendEnd(b []byte, seq uint64) []byte {
	return e.sync(b, EvEnd, seq)
}

// AppendLock appends an EvLock event.
func (e *Encoder) AppendLock(b []byte, seq uint64, site uint32, addr uintptr) []byte {
	return e.syncAddr(b, EvLock, seq, site, addr)
}

// AppendUnlock appends an EvUnlock event.
func (e *Encoder) AppendUnlock(b []byte, seq uint64, site uint32, addr uintptr) []byte {
	return e.syncAddr(b, EvUnlock, seq, site, addr)
}

// AppendRLock appends an EvRLock event.
func (e *Encoder) AppendRLock(b []byte, seq uint64, site uint32, addr uintptr) []byte {
	return e.syncAddr(b, EvRLock, seq, site, addr)
}

// AppendRUnlock appends an EvRUnlock event.
func (e *Encoder) AppendRUnlock(b []byte, seq uint64, site uint32, addr uintptr) []byte {
	return e.syncAddr(b, EvRUnlock, seq, site, addr)
}

// AppendTryLock appends an EvTryLock event.
func (e *Encoder) AppendTryLock(b []byte, seq uint64, site uint32, addr uintptr, ok bool) []byte {
	return appendBool(e.syncAddr(b, EvTryLock, seq, site, addr), ok)
}

// AppendWGAdd appends an EvWGAdd event.
func (e *Encoder) AppendWGAdd(b []byte, seq uint64, site uint32, addr uintptr, delta int64) []byte {
	return appendUvarint(e.syncAddr(b, EvWGAdd, seq, site, addr), zigzag(delta))
}

// AppendWGDone appends an EvWGDone event.
func (e *Encoder) AppendWGDone(b []byte, seq uint64, site uint32, addr uintptr) []byte {
	return e.syncAddr(b, EvWGDone, seq, site, addr)
}

// AppendWGWait appends an EvWGWait event.
func (e *Encoder) AppendWGWait(b []byte, seq uint64, site uint32, addr uintptr) []byte {
	return e.syncAddr(b, EvWGWait, seq, site, addr)
}

// AppendOnceDo appends an EvOnceDo event.
func (e *Encoder) AppendOnceDo(b []byte, seq uint64, site uint32, addr uintptr) []byte {
	return e.syncAddr(b, EvOnceDo, seq, site, addr)
}

// AppendCondWait appends an EvCondWait event.
func (e *Encoder) AppendCondWait(b []byte, seq uint64, site uint32, addr uintptr) []byte {
	return e.syncAddr(b, EvCondWait, seq, site, addr)
}

// AppendCondSignal appends an EvCondSignal event.
func (e *Encoder) AppendCondSignal(b []byte, seq uint64, site uint32, addr uintptr) []byte {
	return e.syncAddr(b, EvCondSignal, seq, site, addr)
}

// AppendCondBroadcast appends an EvCondBroadcast event.
func (e *Encoder) AppendCondBroadcast(b []byte, seq uint64, site uint32, addr uintptr) []byte {
	return e.syncAddr(b, EvCondBroadcast, seq, site, addr)
}

// AppendAtomicLoad appends an EvAtomicLoad event, in the compact form.
func (e *Encoder) AppendAtomicLoad(b []byte, seq uint64, site uint32, addr uintptr, value uint64) []byte {
	return e.appendAtomic(b, EvAtomicLoad, seq, site, uint64(addr), value)
}

// AppendAtomicStore appends an EvAtomicStore event, in the compact form.
func (e *Encoder) AppendAtomicStore(b []byte, seq uint64, site uint32, addr uintptr, value uint64) []byte {
	return e.appendAtomic(b, EvAtomicStore, seq, site, uint64(addr), value)
}

// AppendChanMake appends an EvChanMake event.
func (e *Encoder) AppendChanMake(b []byte, seq uint64, site uint32, addr uintptr, capacity uint64) []byte {
	return appendUvarint(e.syncAddr(b, EvChanMake, seq, site, addr), capacity)
}

// AppendMapMake appends an EvMapMake event.
func (e *Encoder) AppendMapMake(b []byte, seq uint64, site uint32, addr uintptr) []byte {
	return e.syncAddr(b, EvMapMake, seq, site, addr)
}

// AppendNew appends an EvNew event: an object of size bytes made at addr.
func (e *Encoder) AppendNew(b []byte, seq uint64, site uint32, addr uintptr, size uint64) []byte {
	return appendUvarint(e.syncAddr(b, EvNew, seq, site, addr), size)
}

// AppendBubble appends an EvBubble event: a bubble's root goroutine
// started with the clock at now (nanoseconds since 1970); the shim writes
// addr 0.
func (e *Encoder) AppendBubble(b []byte, seq uint64, site uint32, addr uintptr, now uint64) []byte {
	return appendUvarint(e.syncAddr(b, EvBubble, seq, site, addr), now)
}

// AppendSleep appends an EvSleep event: time.Sleep called at now.
func (e *Encoder) AppendSleep(b []byte, seq uint64, site uint32, addr uintptr, now uint64) []byte {
	return appendUvarint(e.syncAddr(b, EvSleep, seq, site, addr), now)
}

// AppendWake appends an EvWake event: time.Sleep returned at now.
func (e *Encoder) AppendWake(b []byte, seq uint64, site uint32, addr uintptr, now uint64) []byte {
	return appendUvarint(e.syncAddr(b, EvWake, seq, site, addr), now)
}

// AppendClock appends an EvClock event: a bubble goroutine read the clock
// now before an operation that may block it or after one returned.
func (e *Encoder) AppendClock(b []byte, seq uint64, site uint32, addr uintptr, now uint64) []byte {
	return appendUvarint(e.syncAddr(b, EvClock, seq, site, addr), now)
}

// AppendSyncWait appends an EvSyncWait event: synctest.Wait returned at now.
func (e *Encoder) AppendSyncWait(b []byte, seq uint64, site uint32, addr uintptr, now uint64) []byte {
	return appendUvarint(e.syncAddr(b, EvSyncWait, seq, site, addr), now)
}

// AppendPoolPut appends an EvPoolPut event: obj is handed to the pool at
// pool.
func (e *Encoder) AppendPoolPut(b []byte, seq uint64, site uint32, obj, pool uintptr) []byte {
	return appendUvarint(e.syncAddr(b, EvPoolPut, seq, site, obj), uint64(pool))
}

// AppendPoolGet appends an EvPoolGet event: Get of the pool at pool
// returned obj.
func (e *Encoder) AppendPoolGet(b []byte, seq uint64, site uint32, obj, pool uintptr) []byte {
	return appendUvarint(e.syncAddr(b, EvPoolGet, seq, site, obj), uint64(pool))
}

// AppendChanSend appends an EvChanSend event.
func (e *Encoder) AppendChanSend(b []byte, seq uint64, site uint32, addr uintptr, elem uint32) []byte {
	return appendUvarint(e.syncAddr(b, EvChanSend, seq, site, addr), uint64(elem))
}

// AppendChanRecv appends an EvChanRecv event.
func (e *Encoder) AppendChanRecv(b []byte, seq uint64, site uint32, addr uintptr, ok bool, elem uint32) []byte {
	return appendUvarint(appendBool(e.syncAddr(b, EvChanRecv, seq, site, addr), ok), uint64(elem))
}

// AppendChanClose appends an EvChanClose event.
func (e *Encoder) AppendChanClose(b []byte, seq uint64, site uint32, addr uintptr) []byte {
	return e.syncAddr(b, EvChanClose, seq, site, addr)
}

// AppendSyncAddr appends a sync event of kind k whose fields are site and
// addr, then arg if the kind has a third field: ok as 0 or 1, a delta as
// the bits of an int64, a value, a capacity or a child's id. It is the one
// entry point for the shim, which records all of these kinds alike; the
// typed Append methods say what each kind takes. It panics for any other
// kind.
func (e *Encoder) AppendSyncAddr(b []byte, k Kind, seq uint64, site uint32, addr uintptr, arg uint64) []byte {
	extra := syncAddrExtra[k]
	if extra == notSyncAddr {
		panic("trace: AppendSyncAddr of " + k.String())
	}
	if extra == atomicForm {
		return e.appendAtomic(b, k, seq, site, uint64(addr), arg)
	}
	b = e.syncAddr(b, k, seq, site, addr)
	switch extra {
	case noField:
		return b
	case fOK:
		return appendBool(b, arg != 0)
	case fDelta:
		return appendUvarint(b, zigzag(int64(arg)))
	}
	return appendUvarint(b, arg) // fValue, fCap, fSize, fChild, fElem
}

// syncAddrExtra is, for each kind, the field after site and addr of a sync
// event that AppendSyncAddr writes (noField if it has none), atomicForm for
// the atomics, written in the compact form, or notSyncAddr: computed once from the event table, so that the shim's call
// costs one load. It has a place for every value of a Kind, so that the
// load needs no bounds check.
var syncAddrExtra = func() (t [1 << 8]field) {
	for k := range t {
		if k >= int(numKinds) {
			t[k] = notSyncAddr
			continue
		}
		f := kinds[k].fields
		switch {
		case Kind(k) == evNone || kinds[k].implicit || len(f) < 2 || f[0] != fSite || f[1] != fAddr || len(f) > 3:
			t[k] = notSyncAddr
		case Kind(k) == EvAtomicLoad || Kind(k) == EvAtomicStore:
			t[k] = atomicForm
		case len(f) == 2:
			t[k] = noField
		default:
			t[k] = f[2]
		}
	}
	return t
}()

// Sentinels of syncAddrExtra.
const (
	noField     = numFields
	notSyncAddr = numFields + 1
	atomicForm  = numFields + 2
)

// syncAddrTakes has a place for every entry of syncAddrExtra below
// notSyncAddr: PutSyncAddr's index into it panics for the kinds it does
// not take.
var syncAddrTakes [notSyncAddr]struct{}

// AppendSelect appends an EvSelect event: the select at site ran case
// index of channel addr, or its default case if index is -1 (addr 0). ok is
// false for a receive case that found the channel closed, true otherwise;
// elem is the fingerprint of the case's element, 0 if unknown.
func (e *Encoder) AppendSelect(b []byte, seq uint64, site uint32, index int, addr uintptr, ok bool, elem uint32) []byte {
	b = e.sync(b, EvSelect, seq)
	b = appendUvarint(b, uint64(site))
	b = appendUvarint(b, zigzag(int64(index)))
	return appendUvarint(appendBool(e.appendAddr(b, uint64(addr)), ok), uint64(elem))
}

// PutChanRecv writes the EvChanRecv event AppendChanRecv would append at
// the start of w and returns its length, as PutSyncAddr does.
func (e *Encoder) PutChanRecv(w *[Window]byte, seq uint64, site uint32, addr uintptr, ok bool, elem uint32) int {
	w[0] = byte(EvChanRecv)
	i := putUvarint(w, 1, seq-e.seq)
	e.seq, e.sub = seq, 0
	i = putUvarint(w, i, uint64(site))
	i = putUvarint(w, i, e.addrCode(uint64(addr)))
	w[i&(Window-1)] = 0
	if ok {
		w[i&(Window-1)] = 1
	}
	return putUvarint(w, i+1, uint64(elem))
}

// PutSelect writes the EvSelect event AppendSelect would append at the
// start of w and returns its length, as PutSyncAddr does: a select's
// record was about a third of the instructions of a recorded select that
// took its default case (pond's workers poll with one at every task).
func (e *Encoder) PutSelect(w *[Window]byte, seq uint64, site uint32, index int, addr uintptr, ok bool, elem uint32) int {
	// PutChanRecv's last fields written out: a function of their own for
	// both is not inlined and costs each select and receive about 12
	// instructions (callgrind, bench/shim's Select and Chan).
	w[0] = byte(EvSelect)
	i := putUvarint(w, 1, seq-e.seq)
	e.seq, e.sub = seq, 0
	i = putUvarint(w, i, uint64(site))
	i = putUvarint(w, i, zigzag(int64(index)))
	i = putUvarint(w, i, e.addrCode(uint64(addr)))
	w[i&(Window-1)] = 0
	if ok {
		w[i&(Window-1)] = 1
	}
	return putUvarint(w, i+1, uint64(elem))
}

// Window is the room after len(b) that PutAccess and PutWrite write into:
// more than MaxEventLen, a power of two.
const Window = 64

// PutAccess writes an event without seq whose fields are site and addr
// (EvRead, EvMapRead, EvMapWrite or EvMapIter) at the start of w and returns
// its length. It is AppendRead and its kin for a hot path that keeps its
// buffer as it likes: the caller passes the Window bytes after its batch's
// last event, w := (*[trace.Window]byte)(b[len(b):len(b)+trace.Window]),
// and extends b by the result. Fixed-size and masked indexes leave the
// encoding without capacity or bounds checks, about 20 fewer instructions
// per event than the Append methods (20 for a read, 35 for a write, counted
// with callgrind in the shim). A read is written in the compact form, as
// PutRead writes it.
func (e *Encoder) PutAccess(w *[Window]byte, k Kind, site uint32, addr uintptr) int {
	if k == EvRead {
		return e.PutRead(w, site, addr)
	}
	e.sub++
	w[0] = byte(k)
	i := putUvarint(w, 1, uint64(site))
	return putUvarint(w, i, e.addrCode(uint64(addr)))
}

// PutRead writes an EvRead event at the start of w, in the compact form
// (see "Compact reads and writes" in the package doc), and returns its
// length, as PutAccess does.
func (e *Encoder) PutRead(w *[Window]byte, site uint32, addr uintptr) int {
	e.sub++
	d := uint64(addr) - e.addr
	e.addr = uint64(addr)
	h, u := compactHead(site, d)
	w[0] = h
	s := site >> compactSiteBits
	if s >= 0x80 {
		return putUvarint(w, putUvarint(w, 1, uint64(s)), u)
	}
	w[1] = byte(s)
	// putUvarint(w, 2, u), its first four bytes written out at constant
	// indexes: a compare and four instructions a byte where the loop
	// takes ten, and most differences that PutShortRead leaves take two to
	// four bytes (bench_test.go's PutRead; bench/RESULTS.md, "readfast").
	if u < 1<<7 {
		w[2] = byte(u)
		return 3
	}
	w[2] = byte(u) | 0x80
	if u < 1<<14 {
		w[3] = byte(u >> 7)
		return 4
	}
	w[3] = byte(u>>7) | 0x80
	if u < 1<<21 {
		w[4] = byte(u >> 14)
		return 5
	}
	w[4] = byte(u>>14) | 0x80
	if u < 1<<28 {
		w[5] = byte(u >> 21)
		return 6
	}
	w[5] = byte(u>>21) | 0x80
	return putUvarint(w, 6, u>>28)
}

// PutShortRead writes the EvRead event PutRead would, and reports true, if
// it takes three bytes: an aligned difference of at most 63 words either
// way from the batch's previous address (its code one byte) and a site
// below 4096 (the site's high bits one byte); otherwise it writes nothing
// and reports false. It is small enough to inline into the shim's read,
// which calls PutRead only for the other reads (bench/RESULTS.md,
// reccost21).
func (e *Encoder) PutShortRead(w *[Window]byte, site uint32, addr uintptr) bool {
	d := uint64(addr) - e.addr
	if (d+64<<3)&^(127<<3)|uint64(site>>(7+compactSiteBits)) != 0 {
		return false // not aligned, or not within 63 words, or site too high
	}
	e.sub++
	e.addr = uint64(addr)
	w[0] = compactMark | compactAligned | byte(site&compactSiteMask)
	w[1] = byte(site >> compactSiteBits)
	w[2] = byte(int64(d)>>2) ^ byte(int64(d)>>63) // zigzag(d>>3), one byte
	return true
}

// PutShortWrite is PutShortRead for EvWrite: the four-byte write, whose
// value is also below 128 (a flag, a small count, a pointer's 0 or 1).
func (e *Encoder) PutShortWrite(w *[Window]byte, site uint32, addr uintptr, value uint64) bool {
	d := uint64(addr) - e.addr
	if (d+64<<3)&^(127<<3)|uint64(site>>(7+compactSiteBits))|value>>7 != 0 {
		return false
	}
	e.sub++
	e.addr = uint64(addr)
	w[0] = compactMark | compactWrite | compactAligned | byte(site&compactSiteMask)
	w[1] = byte(site >> compactSiteBits)
	w[2] = byte(int64(d)>>2) ^ byte(int64(d)>>63)
	w[3] = byte(value)
	return true
}

// PutWrite writes an EvWrite event at the start of w, in the compact form,
// and returns its length, as PutAccess does.
func (e *Encoder) PutWrite(w *[Window]byte, site uint32, addr uintptr, value uint64) int {
	// PutRead written out: the call would cost a tenth of a write.
	e.sub++
	d := uint64(addr) - e.addr
	e.addr = uint64(addr)
	h, u := compactHead(site, d)
	w[0] = h | compactWrite
	s := site >> compactSiteBits
	if s >= 0x80 {
		return putUvarint(w, putUvarint(w, putUvarint(w, 1, uint64(s)), u), value)
	}
	w[1] = byte(s)
	// The difference's first four bytes at constant indexes, as PutRead
	// writes them, and the value's first four at the index after it (v):
	// a compare and four instructions a byte where putUvarint's loop takes
	// nine (bench_test.go's PutWrite; bench/RESULTS.md, "putunroll").
	i := 3
	if u < 1<<7 {
		w[2] = byte(u)
	} else if w[2] = byte(u) | 0x80; u < 1<<14 {
		w[3], i = byte(u>>7), 4
	} else if w[3] = byte(u>>7) | 0x80; u < 1<<21 {
		w[4], i = byte(u>>14), 5
	} else if w[4] = byte(u>>14) | 0x80; u < 1<<28 {
		w[5], i = byte(u>>21), 6
	} else {
		w[5] = byte(u>>21) | 0x80
		i = putUvarint(w, 6, u>>28)
	}
	// i is at most 12 (a one-byte site, a ten-byte difference): the mask
	// changes nothing and lets v go without a bounds check.
	v := (*[Window / 2]byte)(w[i&(Window/2-1):])
	if value < 1<<7 {
		v[0] = byte(value)
		return i + 1
	}
	v[0] = byte(value) | 0x80
	if value < 1<<14 {
		v[1] = byte(value >> 7)
		return i + 2
	}
	v[1] = byte(value>>7) | 0x80
	if value < 1<<21 {
		v[2] = byte(value >> 14)
		return i + 3
	}
	v[2] = byte(value>>14) | 0x80
	if value < 1<<28 {
		v[3] = byte(value >> 21)
		return i + 4
	}
	v[3] = byte(value>>21) | 0x80
	return putUvarint(w, i+4, value>>28)
}

// The compact form of reads and writes (see "Compact reads and writes" in
// the package doc): the first byte has compactMark set, compactWrite for
// a write, compactAligned if the address difference is coded divided by
// 8, and the site's low compactSiteBits bits.
const (
	compactMark     = 0x80
	compactWrite    = 0x40
	compactAligned  = 0x20
	compactSiteBits = 5
	compactSiteMask = 1<<compactSiteBits - 1
)

// compactHead returns the first byte of a compact read of site whose
// address differs by d from the batch's previous one, and the coded
// difference.
func compactHead(site uint32, d uint64) (byte, uint64) {
	if d&7 == 0 {
		return compactMark | compactAligned | byte(site&compactSiteMask), zigzag(int64(d) >> 3)
	}
	return compactMark | byte(site&compactSiteMask), zigzag(int64(d))
}

// appendCompact appends a compact read or write (write is compactWrite or
// 0) of site and addr, without a write's value.
func (e *Encoder) appendCompact(b []byte, write byte, site uint32, addr uint64) []byte {
	e.sub++
	d := addr - e.addr
	e.addr = addr
	h, u := compactHead(site, d)
	b = append(b, h|write)
	b = appendUvarint(b, uint64(site>>compactSiteBits))
	return appendUvarint(b, u)
}

// The compact form of atomic loads and stores (see "Compact atomics" in
// the package doc): the first byte has the bits of atomicMark set,
// atomicStore for a store, atomicAligned if the address difference is
// coded divided by 8, and the site's low atomicSiteBits bits. Kinds stay
// below atomicMark, and so does batchMark, which the reader tells from an
// event after a batch by its first byte.
const (
	atomicMark     = 0x60
	atomicStore    = 0x10
	atomicAligned  = 0x08
	atomicSiteBits = 3
	atomicSiteMask = 1<<atomicSiteBits - 1
)

// Kinds and batchMark must stay below atomicMark, where the compact
// atomics start: either at or past it does not compile.
const _, _ = uint8(atomicMark - numKinds), uint8(atomicMark - 1 - batchMark)

// atomicHead returns the first byte of a compact atomic load or store (k)
// at site whose address differs by d from the batch's previous one, and
// the coded difference.
func atomicHead(k Kind, site uint32, d uint64) (byte, uint64) {
	h := atomicMark | byte(site&atomicSiteMask)
	if k == EvAtomicStore {
		h |= atomicStore
	}
	if d&7 == 0 {
		return h | atomicAligned, zigzag(int64(d) >> 3)
	}
	return h, zigzag(int64(d))
}

// appendAtomic appends an atomic load or store (k) in the compact form.
func (e *Encoder) appendAtomic(b []byte, k Kind, seq uint64, site uint32, addr, value uint64) []byte {
	h, u := atomicHead(k, site, addr-e.addr)
	e.addr = addr
	b = appendUvarint(append(b, h), seq-e.seq)
	e.place(k, seq)
	b = appendUvarint(b, uint64(site>>atomicSiteBits))
	return appendUvarint(appendUvarint(b, u), value)
}

// PutSyncAddr writes the sync event AppendSyncAddr would append at the
// start of w and returns its length, as PutAccess does: the same bytes,
// without the Append methods' capacity checks. It panics for a kind
// AppendSyncAddr does not take, with an index out of range.
func (e *Encoder) PutSyncAddr(w *[Window]byte, k Kind, seq uint64, site uint32, addr uintptr, arg uint64) int {
	// It calls nothing, so that it sets up no frame but the frame
	// pointer: 12 instructions of a recorded Lock and Unlock
	// (bench/RESULTS.md, "putunroll"). Hence the atomics' compact form
	// written here, and an index that panics for a kind it does not take
	// where a call of panic would need the frame.
	//
	// The fields' first bytes are written out, as PutRead writes its
	// difference: a compare and four instructions a byte where
	// putUvarint's loop takes nine; an address field takes three to six
	// bytes between two objects of a heap (bench_test.go's PutSyncAddr).
	// A field starts at an index i of at most 26 (ten bytes of seq, five
	// of site, ten of address): the masks change nothing and let the
	// arrays go without bounds checks. The atomics' value is written out
	// apart from the other kinds' last field: one tail for both costs
	// each atomic 4 instructions more.
	extra := syncAddrExtra[k]
	if extra == atomicForm {
		i := putUvarint(w, 1, seq-e.seq)
		e.place(k, seq)
		h, u := atomicHead(k, site, uint64(addr)-e.addr)
		e.addr = uint64(addr)
		w[0] = h
		i = putUvarint(w, i, uint64(site>>atomicSiteBits))
		a := (*[Window / 2]byte)(w[i&(Window/2-1):])
		if u < 1<<7 {
			a[0] = byte(u)
			i++
		} else if a[0] = byte(u) | 0x80; u < 1<<14 {
			a[1] = byte(u >> 7)
			i += 2
		} else if a[1] = byte(u>>7) | 0x80; u < 1<<21 {
			a[2] = byte(u >> 14)
			i += 3
		} else {
			a[2] = byte(u>>14) | 0x80
			i = putUvarint(w, i+3, u>>21)
		}
		v := (*[Window / 2]byte)(w[i&(Window/2-1):])
		if arg < 1<<7 {
			v[0] = byte(arg)
			return i + 1
		}
		v[0] = byte(arg) | 0x80
		if arg < 1<<14 {
			v[1] = byte(arg >> 7)
			return i + 2
		}
		v[1] = byte(arg>>7) | 0x80
		if arg < 1<<21 {
			v[2] = byte(arg >> 14)
			return i + 3
		}
		v[2] = byte(arg>>14) | 0x80
		if arg < 1<<28 {
			v[3] = byte(arg >> 21)
			return i + 4
		}
		v[3] = byte(arg>>21) | 0x80
		return putUvarint(w, i+4, arg>>28)
	}
	_ = syncAddrTakes[extra]
	w[0] = byte(k)
	q := seq - e.seq
	e.place(k, seq)
	i := 2
	if q < 1<<7 {
		w[1] = byte(q)
	} else if w[1] = byte(q) | 0x80; q < 1<<14 {
		w[2], i = byte(q>>7), 3
	} else {
		w[2] = byte(q>>7) | 0x80
		i = putUvarint(w, 3, q>>14)
	}
	t := (*[Window / 2]byte)(w[i&(Window/2-1):])
	if site < 1<<7 {
		t[0] = byte(site)
		i++
	} else if t[0] = byte(site) | 0x80; site < 1<<14 {
		t[1] = byte(site >> 7)
		i += 2
	} else {
		t[1] = byte(site>>7) | 0x80
		i = putUvarint(w, i+2, uint64(site>>14))
	}
	c := e.addrCode(uint64(addr))
	a := (*[Window / 2]byte)(w[i&(Window/2-1):])
	if c < 1<<7 {
		a[0] = byte(c)
		i++
	} else if a[0] = byte(c) | 0x80; c < 1<<14 {
		a[1] = byte(c >> 7)
		i += 2
	} else if a[1] = byte(c>>7) | 0x80; c < 1<<21 {
		a[2] = byte(c >> 14)
		i += 3
	} else if a[2] = byte(c>>14) | 0x80; c < 1<<28 {
		a[3] = byte(c >> 21)
		i += 4
	} else {
		a[3] = byte(c>>21) | 0x80
		i = putUvarint(w, i+4, c>>28)
	}
	if extra == noField {
		return i
	}
	if extra == fOK {
		if arg != 0 {
			arg = 1
		}
	} else if extra == fDelta {
		arg = zigzag(int64(arg))
	}
	// fOK, fDelta, fValue, fCap, fSize, fChild, fElem, as the atomic's value.
	v := (*[Window / 2]byte)(w[i&(Window/2-1):])
	if arg < 1<<7 {
		v[0] = byte(arg)
		return i + 1
	}
	v[0] = byte(arg) | 0x80
	if arg < 1<<14 {
		v[1] = byte(arg >> 7)
		return i + 2
	}
	v[1] = byte(arg>>7) | 0x80
	if arg < 1<<21 {
		v[2] = byte(arg >> 14)
		return i + 3
	}
	v[2] = byte(arg>>14) | 0x80
	if arg < 1<<28 {
		v[3] = byte(arg >> 21)
		return i + 4
	}
	v[3] = byte(arg>>21) | 0x80
	return putUvarint(w, i+4, arg>>28)
}

// putUvarint writes v at w[i:] and returns the index after it. Masking
// the index with Window-1 changes nothing (an event is shorter than
// Window) and lets the compiler drop the bounds checks.
func putUvarint(w *[Window]byte, i int, v uint64) int {
	for v >= 0x80 {
		w[i&(Window-1)] = byte(v) | 0x80
		v >>= 7
		i++
	}
	w[i&(Window-1)] = byte(v)
	return i + 1
}

// AppendRead appends an EvRead event, in the compact form.
func (e *Encoder) AppendRead(b []byte, site uint32, addr uintptr) []byte {
	return e.appendCompact(b, 0, site, uint64(addr))
}

// AppendWrite appends an EvWrite event, in the compact form.
func (e *Encoder) AppendWrite(b []byte, site uint32, addr uintptr, value uint64) []byte {
	return appendUvarint(e.appendCompact(b, compactWrite, site, uint64(addr)), value)
}

// AppendMapRead appends an EvMapRead event.
func (e *Encoder) AppendMapRead(b []byte, site uint32, addr uintptr) []byte {
	return e.access(b, EvMapRead, site, addr)
}

// AppendMapWrite appends an EvMapWrite event.
func (e *Encoder) AppendMapWrite(b []byte, site uint32, addr uintptr) []byte {
	return e.access(b, EvMapWrite, site, addr)
}

// AppendMapIter appends an EvMapIter event.
func (e *Encoder) AppendMapIter(b []byte, site uint32, addr uintptr) []byte {
	return e.access(b, EvMapIter, site, addr)
}

// AppendFuncEnter appends an EvFuncEnter event.
func (e *Encoder) AppendFuncEnter(b []byte, site uint32) []byte {
	e.sub++
	return appendUvarint(append(b, byte(EvFuncEnter)), uint64(site))
}

// AppendFuncExit appends an EvFuncExit event.
func (e *Encoder) AppendFuncExit(b []byte, site uint32) []byte {
	e.sub++
	return appendUvarint(append(b, byte(EvFuncExit)), uint64(site))
}

// AppendTestStart appends an EvTestStart event for the test called name,
// cut to MaxStringLen bytes.
func (e *Encoder) AppendTestStart(b []byte, seq uint64, name string) []byte {
	return appendString(e.sync(b, EvTestStart, seq), name)
}

// AppendTestEnd appends an EvTestEnd event.
func (e *Encoder) AppendTestEnd(b []byte, seq uint64, outcome Outcome) []byte {
	return appendUvarint(e.sync(b, EvTestEnd, seq), uint64(outcome))
}

// AppendGCEpoch appends an EvGCEpoch event.
func (e *Encoder) AppendGCEpoch(b []byte, seq uint64, epoch uint64) []byte {
	return appendUvarint(e.sync(b, EvGCEpoch, seq), epoch)
}

// AppendTaskGo appends an EvTaskGo event.
func (e *Encoder) AppendTaskGo(b []byte, seq uint64, site uint32, group uintptr, child uint64) []byte {
	return appendUvarint(e.syncAddr(b, EvTaskGo, seq, site, group), child)
}

// AppendTaskWait appends an EvTaskWait event.
func (e *Encoder) AppendTaskWait(b []byte, seq uint64, site uint32, group uintptr) []byte {
	return e.syncAddr(b, EvTaskWait, seq, site, group)
}

// AppendRan appends an EvRan event (addr is 0 when the shim records it).
func (e *Encoder) AppendRan(b []byte, seq uint64, site uint32, addr uintptr) []byte {
	return e.syncAddr(b, EvRan, seq, site, addr)
}

// AppendCancel appends an EvCancel event.
func (e *Encoder) AppendCancel(b []byte, seq uint64, site uint32, fn uintptr) []byte {
	return e.syncAddr(b, EvCancel, seq, site, fn)
}

// AppendEvent appends ev, whatever its kind, using the fields the kind has
// (see the event table) and ignoring Goroutine, Sub, and the Seq of kinds
// without one. It is slower than the methods for each kind, and meant for
// tools and tests that build traces from Events.
func (e *Encoder) AppendEvent(b []byte, ev Event) []byte {
	if ev.Kind == evNone || ev.Kind >= numKinds {
		panic("trace: AppendEvent of invalid kind " + ev.Kind.String())
	}
	switch ev.Kind {
	case EvRead:
		return e.appendCompact(b, 0, ev.Site, ev.Addr)
	case EvWrite:
		return appendUvarint(e.appendCompact(b, compactWrite, ev.Site, ev.Addr), ev.Value)
	case EvAtomicLoad, EvAtomicStore:
		return e.appendAtomic(b, ev.Kind, ev.Seq, ev.Site, ev.Addr, ev.Value)
	}
	spec := &kinds[ev.Kind]
	if spec.implicit {
		e.sub++
		b = append(b, byte(ev.Kind))
	} else {
		b = e.sync(b, ev.Kind, ev.Seq)
	}
	for _, f := range spec.fields {
		switch f {
		case fSite:
			b = appendUvarint(b, uint64(ev.Site))
		case fAddr:
			b = e.appendAddr(b, ev.Addr)
		case fValue, fCap, fEpoch, fSize, fOK, fOutcome:
			b = appendUvarint(b, ev.Value)
		case fDelta, fCase:
			b = appendUvarint(b, zigzag(ev.Arg))
		case fChild, fParent, fElem:
			b = appendUvarint(b, ev.Peer)
		case fName:
			b = appendString(b, ev.Name)
		}
	}
	return b
}

// sync appends the kind and the delta-coded seq that start a sync event.
func (e *Encoder) sync(b []byte, k Kind, seq uint64) []byte {
	b = append(b, byte(k))
	b = appendUvarint(b, seq-e.seq)
	e.place(k, seq)
	return b
}

// syncAddr appends a sync event whose fields begin with site and addr.
func (e *Encoder) syncAddr(b []byte, k Kind, seq uint64, site uint32, addr uintptr) []byte {
	b = e.sync(b, k, seq)
	b = appendUvarint(b, uint64(site))
	return e.appendAddr(b, uint64(addr))
}

// access appends an event without seq whose fields begin with site and addr.
func (e *Encoder) access(b []byte, k Kind, site uint32, addr uintptr) []byte {
	e.sub++
	b = append(b, byte(k))
	b = appendUvarint(b, uint64(site))
	return e.appendAddr(b, uint64(addr))
}

// appendAddr appends addr as the difference to the batch's previous
// address: accesses cluster (fields of one object, elements of one slice,
// a goroutine's own stack), and a small difference takes one or two bytes
// where a heap address such as 0xc000123456 takes six.
func (e *Encoder) appendAddr(b []byte, addr uint64) []byte {
	return appendUvarint(b, e.addrCode(addr))
}

// addrCode returns the coded address field of addr (see the package
// doc): 0 for the address 0, which leaves the batch's previous address as
// it is, else 1 + the zigzag difference to the previous address, addr
// becoming the previous address. The one difference whose code would
// wrap to 0, of an address 2^63 from the previous one, takes the code
// that the address 0 would have had, which decodes to 0 and is read as
// that address (decodeAddr).
func (e *Encoder) addrCode(addr uint64) uint64 {
	if addr == 0 {
		return 0
	}
	base := e.addr
	e.addr = addr
	c := zigzag(int64(addr - base))
	if c == math.MaxUint64 {
		c = zigzag(-int64(base))
	}
	return c + 1
}

// decodeAddr returns the address whose address field is c, not 0, after
// the previous address base (addrCode).
func decodeAddr(base, c uint64) uint64 {
	a := base + uint64(unzigzag(c-1))
	if a == 0 {
		a = base + 1<<63
	}
	return a
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

// appendString appends s, cut to MaxStringLen bytes, with its length.
func appendString(b []byte, s string) []byte {
	if len(s) > MaxStringLen {
		s = s[:MaxStringLen]
	}
	b = appendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// appendUvarint is binary.AppendUvarint with the one-byte case first, the
// common one for sites, seq deltas and value words.
func appendUvarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// appendID is appendUvarint for a logical goroutine id, a hash (ids.go)
// but for the main goroutine's 0 and NoParent: ten bytes half the time,
// nine most of the rest, appended at once, where appendUvarint's append
// per byte tests the capacity at each (the three ids of a goroutine's
// batch header, its EvFork and its EvBegin were 400 instructions of the
// 5,000 a recorded go statement with its join takes).
func appendID(b []byte, v uint64) []byte {
	switch {
	case v >= 1<<63:
		return append(b, byte(v)|0x80, byte(v>>7)|0x80, byte(v>>14)|0x80, byte(v>>21)|0x80, byte(v>>28)|0x80,
			byte(v>>35)|0x80, byte(v>>42)|0x80, byte(v>>49)|0x80, byte(v>>56)|0x80, byte(v>>63))
	case v >= 1<<56:
		return append(b, byte(v)|0x80, byte(v>>7)|0x80, byte(v>>14)|0x80, byte(v>>21)|0x80, byte(v>>28)|0x80,
			byte(v>>35)|0x80, byte(v>>42)|0x80, byte(v>>49)|0x80, byte(v>>56))
	}
	return appendUvarint(b, v)
}

// zigzag maps small negative and positive numbers to small unsigned ones.
func zigzag(v int64) uint64 { return uint64(v<<1) ^ uint64(v>>63) }

func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }
