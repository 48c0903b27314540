package shim

import (
	"encoding/binary"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/precog-dev/precog/shim/trace"
)

// enabled is true when recording or control is on. Every API function tests
// it first; it is written only during package initialization.
var enabled bool

// seqs hands out the seqs of sync events, from 1; the padding keeps the
// contended counter off the cache lines of the variables read on every
// event.
var seqs struct {
	_ [64]byte
	n atomic.Uint64
	_ [56]byte
}

// eventRoom is the room prepare makes: the EvGCEpoch that may come first,
// then the trace.Window that the Put encoders write an access into (more
// than any event needs).
const eventRoom = trace.MaxEventLen + trace.Window

// prepare makes room for an event and records EvGCEpoch first if a garbage
// collection finished since the goroutine's last event.
func (g *gstate) prepare() {
	if a := attention.Load(); a != g.attn {
		g.attn = a
		g.leaveDropped()
	}
	if cap(g.buf)-len(g.buf) < eventRoom {
		g.refill(eventRoom)
	}
	if e := gcEpoch.Load(); e != g.epoch {
		g.epoch = e
		g.buf = g.enc.AppendGCEpoch(g.buf, seqs.n.Add(1), e)
	}
}

// attention changes whenever a goroutine must look up before its next
// event: a garbage collection finished (gcEpoch), or old segments of the
// mapped trace were dropped (see leaveDropped). ready tests it alone, so
// that the access fast path reads one word for both.
var attention atomic.Uint64

// commit makes the events appended so far part of the batch by rewriting
// its length field (the format's 4-byte little-endian length, as
// trace.FinishBatch writes it). Until then they are invisible to a reader,
// so a process that dies in the middle of an append leaves no torn event.
//
// The field is written in one 4-byte store, which a signal or a fatal
// error on another thread cannot split: a torn field could be shorter than
// the events it covers and cut the last one in half.
func (g *gstate) commit() {
	binary.LittleEndian.PutUint32((*[4]byte)(g.lenp)[:], uint32(len(g.buf)-g.evStart))
}

// open starts a batch for g's goroutine at the end of buf, which has room.
func (g *gstate) open() {
	g.batch = len(g.buf)
	g.buf = g.enc.StartBatch(g.buf, g.id)
	g.evStart = len(g.buf)
	g.lenp = unsafe.Pointer(&g.buf[g.evStart-4])
}

// start binds a fresh batch to g; called when g is bound to a goroutine.
func (g *gstate) start() {
	if g.mapped && g.seg < dropped.Load() {
		g.leaveDropped()
		return
	}
	if cap(g.buf)-len(g.buf) < batchHeaderLen+eventRoom {
		g.refill(eventRoom)
		return
	}
	g.open()
}

// ready makes room for an access event (or a sync event written into the
// window), taking prepare's slow path only when the buffer is short or a
// garbage collection finished: accesses are the most frequent events.
func (g *gstate) ready() {
	if !g.roomy() {
		g.prepare()
	}
}

// roomy is ready's test: whether g's chunk has room for an event and
// attention is as g saw it last, so that an event needs no prepare. The
// access fast paths ((*Local).read, write, mapRead) test it themselves, to
// call prepare on a branch that ends them.
func (g *gstate) roomy() bool {
	return cap(g.buf)-len(g.buf) >= eventRoom && attention.Load() == g.attn
}

// window is the trace.Window of free buffer after g's last event, which
// ready or prepare made room for.
func (g *gstate) window() *[trace.Window]byte {
	return (*[trace.Window]byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(g.buf)), len(g.buf)))
}

// access records an event whose fields are site and addr (a read or a map
// access), without seq.
func access(site uint32, k trace.Kind, addr unsafe.Pointer) {
	if skipped(site) {
		return
	}
	g := cur()
	if g.onStack(addr) {
		return // before control too: a plan's instance counts come from the trace
	}
	if g.repeatedAccess(site, k, addr) {
		return // before control too, as the stack check
	}
	if accessGates.Load() {
		ctlAccess(g, site, k, addr)
	}
	g.ready()
	g.buf = g.buf[:len(g.buf)+g.enc.PutAccess(g.window(), k, site, uintptr(addr))]
	g.commit()
}

// function records a function entry or exit.
func function(site uint32, k trace.Kind) {
	if funcsOff {
		return
	}
	g := cur()
	if accessGates.Load() {
		ctlAccess(g, site, k, nil)
	}
	g.prepare()
	if k == trace.EvFuncEnter {
		g.buf = g.enc.AppendFuncEnter(g.buf, site)
	} else {
		g.buf = g.enc.AppendFuncExit(g.buf, site)
	}
	g.commit()
}

// write records a write that has happened (Write, and W without access
// gates).
func write(site uint32, addr unsafe.Pointer, word uint64) {
	if skipped(site) {
		return
	}
	g := cur()
	if g.onStack(addr) {
		return // before control too: see access
	}
	if accessGates.Load() {
		ctlAccess(g, site, trace.EvWrite, addr)
		ctlRecorded(g)
	}
	g.putWrite(site, addr, word)
}

// putWrite records a write of addr, which the caller found is not on g's
// stack.
func (g *gstate) putWrite(site uint32, addr unsafe.Pointer, word uint64) {
	g.wrote(addr)
	g.ready()
	g.buf = g.buf[:len(g.buf)+g.enc.PutWrite(g.window(), site, uintptr(addr), word)]
	g.commit()
}

// gateSync finds the running goroutine's state and passes the gate.
func gateSync(site uint32, k trace.Kind, addr unsafe.Pointer) *gstate {
	g := cur()
	gate(g, site, k, addr)
	return g
}

// syncBefore passes the gate and records a sync event, for operations
// recorded before they happen.
func syncBefore(site uint32, k trace.Kind, addr unsafe.Pointer, arg uint64) {
	gateSync(site, k, addr).syncEvent(site, k, addr, arg)
}

// releaseBefore passes the gate and records a sync event for a release
// recorded before it happens (Unlock, RUnlock, WGAdd, WGDone, CondSignal,
// CondBroadcast, ChanClose: so that the crash it may cause, a negative
// WaitGroup counter, an unlock of an unlocked mutex or a close of a closed
// channel, is in the trace), and returns
// the goroutine's state. The caller performs the operation and then calls
// released: control passes the step only then. Passing it when recorded
// let a successor run before the release happened (a forced WGDone before
// a WGAdd let the Add run first, and nothing panicked).
func releaseBefore(site uint32, k trace.Kind, addr unsafe.Pointer, arg uint64) *gstate {
	return cur().releaseBefore(site, k, addr, arg)
}

// releaseBefore is the function releaseBefore for g, the running
// goroutine's state.
func (g *gstate) releaseBefore(site uint32, k trace.Kind, addr unsafe.Pointer, arg uint64) *gstate {
	gate(g, site, k, addr)
	g.syncRecord(site, k, addr, arg, false)
	if controlGate != nil && testHookReleasing != nil {
		//precog:ignore con-null the hook is set and cleared only by TestForceReleaseHappened, whose goroutines are joined before its deferred clear
		testHookReleasing(k)
	}
	return g
}

// released lets control pass the step of g's release, which has happened
// (releaseBefore). A release that panicked never passes (see
// passPending).
func (g *gstate) released() {
	if controlGate != nil {
		ctlReleased(g)
	}
}

// testHookReleasing, if set (by tests only, with control on), runs between
// releaseBefore's record and the release.
var testHookReleasing func(k trace.Kind)

// syncEvent records a sync event of kind k with a fresh seq and lets
// control pass the step. arg is the kind's extra field: ok (0 or 1), value,
// capacity or delta (as the bits of an int64). It is syncRecord with pass
// set, small enough to be inlined: every recorded lock and atomic saves a
// call.
func (g *gstate) syncEvent(site uint32, k trace.Kind, addr unsafe.Pointer, arg uint64) {
	g.syncRecord(site, k, addr, arg, true)
}

// recvEvent records an EvChanRecv with ok and the element's fingerprint.
func (g *gstate) recvEvent(site uint32, addr unsafe.Pointer, ok bool, elem uint32) {
	if controlGate != nil {
		ctlRecording(g)
	}
	g.ready()
	g.buf = g.buf[:len(g.buf)+g.enc.PutChanRecv(g.window(), seqs.n.Add(1), site, uintptr(addr), ok, elem)]
	g.commit()
	g.synced()
	if controlGate != nil {
		ctlRecorded(g)
	}
}

// syncRecord records a sync event (see syncEvent); with pass it then lets
// control pass the step, as syncEvent does. Without, the caller lets it
// pass once the operation has happened (releaseBefore) or never (the load
// of casEvent).
func (g *gstate) syncRecord(site uint32, k trace.Kind, addr unsafe.Pointer, arg uint64, pass bool) {
	if controlGate != nil || sections || cap(g.buf)-len(g.buf) < eventRoom || attention.Load() != g.attn {
		g.syncRecordSlow(site, k, addr, arg, pass)
		return
	}
	g.buf = g.buf[:len(g.buf)+g.enc.PutSyncAddr(g.window(), k, g.seq(k), site, uintptr(addr), arg)]
	g.commit()
	g.synced()
}

// seq returns the seq of a sync event of kind k that g records: a new one
// from the counter, but for an atomic load outside control, which takes
// the counter's value without incrementing it (trace's "Order": a load
// orders nothing after it for another goroutine) and counts itself in
// g.loads. While the goroutines run only loads, the counter's cache line
// stays shared by every core, where an increment by each moved it between
// them at every load (x/sync/syncmap's Ranges and Loads, pond's polls).
// Control's loads take a new seq: a forced or replayed run keeps the
// order of every sync event to one counter.
func (g *gstate) seq(k trace.Kind) uint64 {
	if k == trace.EvAtomicLoad && controlGate == nil {
		g.loads++
		return seqs.n.Load()
	}
	return seqs.n.Add(1)
}

// stretch identifies the stretch of g's events since its last sync
// event: it grows at every sync event, atomic loads that took no new seq
// included (the repeat filter's "no sync event in between", repeat.go).
func (g *gstate) stretch() uint64 { return g.enc.Seq() + g.loads }

// syncRecordSlow is syncRecord when control is on, a guided run counts
// the locks held (sections), or the goroutine must make room first
// (ready's test, written out in syncRecord: ready is at the inliner's
// budget). Apart, so that syncRecord calls nothing before the record and
// need not save its arguments across a call: about 8 instructions of
// every recorded lock and atomic (callgrind, bench/shim's Lock and
// Atomic).
func (g *gstate) syncRecordSlow(site uint32, k trace.Kind, addr unsafe.Pointer, arg uint64, pass bool) {
	if controlGate != nil {
		ctlRecording(g)
	}
	if sections {
		g.countHeld(k, arg)
	}
	g.ready()
	g.buf = g.buf[:len(g.buf)+g.enc.PutSyncAddr(g.window(), k, g.seq(k), site, uintptr(addr), arg)]
	g.commit()
	g.synced()
	if controlGate != nil && pass {
		ctlRecorded(g)
	}
}

// fork records the fork of a child (EvFork for a go statement, EvTaskGo
// for a task handed to group) and returns the child's logical id.
func fork(site uint32, k trace.Kind, group unsafe.Pointer) uint64 {
	g := gateSync(site, k, group)
	child := childID(g.id, site, g.nextSpawn(site))
	states.mu.Lock()
	setParent(child, g.id)
	if g.bubble {
		if states.bubbled == nil {
			states.bubbled = make(map[uint64]bool)
		}
		states.bubbled[child] = true
	}
	states.mu.Unlock()
	g.prepare()
	if k == trace.EvTaskGo {
		g.buf = g.enc.AppendTaskGo(g.buf, seqs.n.Add(1), site, uintptr(group), child)
	} else {
		g.buf = g.enc.AppendFork(g.buf, seqs.n.Add(1), site, child)
	}
	g.commit()
	g.synced()
	return child
}

// begin binds the running goroutine to the logical id its parent forked.
func begin(id uint64) {
	g, parent := bind(id)
	g.start()
	gate(g, 0, trace.EvBegin, nil)
	g.recordBegin(parent)
}

func (g *gstate) recordBegin(parent uint64) {
	g.prepare()
	g.buf = g.enc.AppendBegin(g.buf, seqs.n.Add(1), parent)
	g.commit()
	g.synced()
}

// recordBelow records that the goroutine, which code precog does not
// instrument started, descends from the recorded goroutine parent.
func (g *gstate) recordBelow(parent uint64) {
	g.prepare()
	g.buf = g.enc.AppendBelow(g.buf, seqs.n.Add(1), parent)
	g.commit()
	g.synced()
}

// end records End and releases the goroutine's state.
func end() {
	g := cur()
	gate(g, 0, trace.EvEnd, nil)
	g.clockBefore(0)
	g.recordEnd()
}

func (g *gstate) recordEnd() {
	g.prepare()
	g.buf = g.enc.AppendEnd(g.buf, seqs.n.Add(1))
	g.commit()
	g.synced()
	release(g)
}

// selected records the case a select took; the gate was SelectPlan's.
func selected(site uint32, index int, ch unsafe.Pointer, ok uint64, elem uint32) {
	g := cur()
	g.clockAfter(site)
	if controlGate != nil {
		ctlRecording(g)
	}
	g.ready()
	g.buf = g.buf[:len(g.buf)+g.enc.PutSelect(g.window(), seqs.n.Add(1), site, index, uintptr(ch), ok != 0, elem)]
	g.commit()
	g.synced()
	if controlGate != nil {
		ctlRecorded(g)
		ctlSelected(g, site, index)
	}
}

func selectPlanFor(site uint32) (int, <-chan struct{}) {
	g := gateSync(site, trace.EvSelect, nil)
	f, timeout := selectPlan(g, site)
	g.clockBefore(site)
	return f, timeout
}

// testStart records EvTestStart and registers the cleanup that records
// EvTestEnd. A goroutine first seen here is named after the test.
func testStart(t TB) {
	name := t.Name()
	gid := goid()
	g := table[gid&(1<<tableBits-1)].Load()
	if g == nil || g.goid.Load() != gid {
		g = lookupSlow(gid, name)
	}
	if g.test == t {
		// A function literal taking the test's *testing.T, called on
		// the test's own goroutine (a helper), not run as a subtest.
		return
	}
	g.test = t
	if topLevel(name) && tests.Add(1) == 1 {
		setState(trace.Recording)
	}
	gate(g, 0, trace.EvTestStart, nil)
	if n := trace.MaxEventLen + len(name); cap(g.buf)-len(g.buf) < eventRoom+n {
		g.refill(eventRoom + n)
	}
	g.prepare()
	g.buf = g.enc.AppendTestStart(g.buf, seqs.n.Add(1), name)
	g.commit()
	g.synced()
	// Name the test's T in the trace: a read of it at site 0, right after
	// TestStart on the test's goroutine (never filtered), for the reads
	// TestLog records elsewhere.
	p := ifaceData(unsafe.Pointer(&t)) // the *testing.T
	testTs.Store(p, true)
	g.ready()
	g.buf = g.buf[:len(g.buf)+g.enc.PutRead(g.window(), 0, uintptr(p))]
	g.commit()
	t.Cleanup(func() { testEnd(t) })
}

// testTs holds the data pointers of the tests' Ts that TestStart saw.
var testTs sync.Map

// testLog records a read of x's T at site, if x holds the T of a test.
func testLog(site uint32, x any) {
	p := ifaceData(unsafe.Pointer(&x))
	if _, ok := testTs.Load(p); !ok {
		return
	}
	access(site, trace.EvRead, p)
}

// testEnd records EvTestEnd with t's outcome. It runs as a cleanup, on the
// test's goroutine, after the cleanups the test registered (TestStart was
// its first statement). It reports Panic when the goroutine is panicking,
// which a deferred recover in the test would have hidden from us anyway.
// A goroutine TestStart adopted also ends here: the testing package's code
// that runs after it records nothing.
func testEnd(t TB) {
	outcome := trace.Pass
	switch {
	case panicking():
		outcome = trace.Panic
	case t.Skipped():
		outcome = trace.Skip
	case t.Failed():
		outcome = trace.Fail
	}
	if outcome != trace.Panic && topLevel(t.Name()) && ctl.Load() != nil {
		waitPanics()
	}
	g := cur()
	gate(g, 0, trace.EvTestEnd, nil)
	g.prepare()
	g.buf = g.enc.AppendTestEnd(g.buf, seqs.n.Add(1), outcome)
	g.commit()
	g.synced()
	if g.testOnly {
		g.recordEnd()
	}
	// A panicking test takes its process down once the cleanups are done:
	// the trace must not say its tests ended.
	if topLevel(t.Name()) && tests.Add(-1) == 0 && outcome != trace.Panic {
		setState(trace.Ended)
	}
}

// panicWait bounds how long a top-level test's end waits for another
// goroutine's panic (waitPanics).
const panicWait = 2 * time.Second

// waitPanics waits, at a top-level test's end in a run under control
// (forced, perturbed, replayed: where the run's outcome is the verdict),
// while a goroutine is
// panicking, for at most panicWait. A goroutine that panics runs its
// deferred calls before the runtime prints the panic and ends the process;
// a deferred wg.Done among them lets the test go on, and a test that then
// ends the process first hides the crash. In forced runs of cherokee's
// con-index, the worker's slice panicked and the test, woken by the
// worker's deferred Done, failed ("sent 32 bytes") and exited before the
// panic was printed: about 1 forced run in 50 at load 20 (precog repro
// -count 100, three at once), and TestKernels failed on it twice in a row
// in one CI. Waiting lets the panic end the process, or be recovered, and
// the test ends as it would have. A goroutine that panics and then blocks
// for good in a deferred call costs one top-level test's end panicWait;
// no test's end waits after that (panicWaited).
// It stops the world to read the goroutines' stacks, once per top-level
// test, and again under a backoff while one panics: recording alone does
// not pay it (raft and x/sync/syncmap, many short tests, were 11-15%
// slower recorded at the idle bench while every test's end did). The test's own
// goroutine, when it panics, ends the process anyway: it does not wait.
func waitPanics() {
	if panicWaited.Load() {
		return
	}
	var buf []runtime.StackRecord
	start := time.Now()
	for wait := time.Millisecond; anyPanicking(&buf); wait = min(2*wait, 50*time.Millisecond) {
		if time.Since(start) >= panicWait {
			panicWaited.Store(true)
			return
		}
		time.Sleep(wait)
	}
}

// panicWaited is set once a wait of waitPanics ran out: a goroutine that
// stays panicking (blocked in a deferred call, or running on in one that
// recovered) would cost every later test's end panicWait too.
var panicWaited atomic.Bool

// topLevel reports whether name is a top-level test's, not a subtest's.
func topLevel(name string) bool { return !strings.Contains(name, "/") }

// panicking reports whether the calling goroutine is running deferred
// calls because of a panic: the testing package runs cleanups from a
// deferred function, and while a panic unwinds, runtime.gopanic is on the
// stack below it.
func panicking() bool {
	var pcs [64]uintptr
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs[:])])
	for {
		f, more := frames.Next()
		if f.Function == "runtime.gopanic" {
			return true
		}
		if !more {
			return false
		}
	}
}
