package shim

import (
	"bytes"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/precog-dev/precog/shim/trace"
)

// A gstate is the shim's state for one goroutine: its logical id and the
// batch it is recording into. Only the goroutine it is bound to touches the
// batch fields; the lock in states hands a gstate from one goroutine to the
// next.
type gstate struct {
	goid atomic.Uint64  // the runtime goroutine bound to it; 0 while free
	id   uint64         // logical id
	rtg  unsafe.Pointer // the runtime g of that goroutine, if stackFilter: its stack bounds (onStack)

	// buf is the goroutine's chunk of output: the current batch is
	// buf[batch:], its events start at evStart, and lenp points at its
	// length field, rewritten after every event (commit).
	buf     []byte
	batch   int
	evStart int
	lenp    unsafe.Pointer
	enc     trace.Encoder
	mapped  bool   // buf is a chunk of the mapped file
	seg     uint64 // if mapped, the index of the segment buf is in (out.segs)
	taken   int64  // if mapped, the trace's extent when buf's chunk was taken (chunkSize)
	attn    uint64 // attention when the goroutine last looked (prepare)

	epoch     uint64            // the last GC epoch this goroutine recorded
	spawned   map[uint32]uint64 // children forked so far, per go statement site (nextSpawn)
	spawnOne  bool              // spawnSite's count is spawnN, not in spawned
	spawnSite uint32            // the site the goroutine forked at last, if spawnOne
	spawnN    uint64            // its count, if spawnOne
	runKids   uint64            // goroutines nextRunKid named for it, under states.mu
	held      uint32            // locks held, counted only if sections (filter.go)
	testOnly  bool              // adopted by TestStart: TestEnd ends it
	test      TB                // the test of the goroutine's last TestStart, so a second TestStart of it does nothing
	bubble    bool              // runs in a testing/synctest bubble (Bubble, or forked by a goroutine that does)
	now       uint64            // in a bubble, the clock at its last EvClock (clockBefore)

	ctl unsafe.Pointer // control's per-goroutine state (shim/control*.go); nil until control needs it

	conds []*condRuns // conditions handed to calls that have not returned (api_cond.go)

	marks  marks                // its first marks, for its descendants (mark.go)
	handed map[handKey]struct{} // the handings its runs of handed literals are after (hand.go)

	syncMap *mapKeys // the keys of the sync.Map looked up last (syncMapKey)

	reads   [readSlots]readSlot // reads, to leave out their repeats (repeat.go)
	wstamps [writeSlots]uint64  // per address hash, the count of writes at the last write (repeat.go)
	ordered [writeSlots]uint64  // per address hash, 1 + the seq of the stretch an index read ordered it in (repeat.go)
	writes  uint64              // the writes recorded (and reads of ordered locations), counted for wstamps
	loads   uint64              // the atomic loads that read the seq counter (seq), never reset: stretch grows at every sync event
}

// The goroutine table maps runtime goroutine ids to gstates. A lookup reads
// one slot of the direct-mapped table; a goroutine missing from its slot
// (never seen, or evicted by another goroutine with the same slot) takes the
// slow path under states.mu, which also keeps evicted live states in an
// overflow map. Every write of a slot happens under states.mu.
const tableBits = 12

var table [1 << tableBits]atomic.Pointer[gstate]

var states struct {
	mu       sync.Mutex
	overflow map[uint64]*gstate // live states not in their table slot
	free     []*gstate          // ended states, keeping the rest of their chunk
	kids     [kidSlots]kidSlot  // child logical id -> parent's, from Go until Begin (setParent)
	parent   map[uint64]uint64  // the same, for the children whose kids slot was taken
	bubbled  map[uint64]bool    // children forked inside a synctest bubble, from Go until Begin
	adopted  uint64             // goroutines adopted so far, for their ids
	tests    map[string]uint64  // goroutines adopted by TestStart so far, per test name
}

// cur returns the running goroutine's state, adopting the goroutine if it
// has none.
func cur() *gstate {
	// goid, written out: the call would cost a tenth of a recorded read.
	var id uint64
	if goidOffset != 0 {
		id = *(*uint64)(unsafe.Add(getg(), goidOffset))
	} else {
		id = slowGoid()
	}
	if g := table[id&(1<<tableBits-1)].Load(); g != nil && g.goid.Load() == id {
		return g
	}
	return lookupSlow(id, "")
}

// lookupSlow finds or adopts the state of goroutine gid. A goroutine that
// is adopted gets its logical id from test (if it is not "", the test the
// goroutine runs), else from being the main goroutine, else from a counter.
func lookupSlow(gid uint64, test string) *gstate {
	slot := &table[gid&(1<<tableBits-1)]
	states.mu.Lock()
	if g := slot.Load(); g != nil && g.goid.Load() == gid {
		states.mu.Unlock()
		return g
	}
	if g := states.overflow[gid]; g != nil {
		delete(states.overflow, gid)
		install(slot, g)
		states.mu.Unlock()
		return g
	}
	var id uint64
	parent := uint64(trace.NoParent)
	var creator uint64 // the runtime id of the goroutine that started this one, if known
	var stack []byte   // this goroutine's stack, read for its creator
	adopted := false   // started by code precog does not instrument, outside T.Run
	switch {
	case test != "":
		if states.tests == nil {
			states.tests = make(map[string]uint64)
		}
		id = testID(test, states.tests[test])
		states.tests[test]++
	case gid == 1: // runtime.main's goroutine
		id = mainID
	default:
		// Only this goroutine installs its own state: reading its stack
		// outside the lock lets no other install it meanwhile.
		states.mu.Unlock()
		var pgid uint64
		var run, ok bool
		pgid, run, ok, stack = createdBy()
		states.mu.Lock()
		if p := liveState(pgid); ok && run && p != nil {
			// A subtest that testing.T.Run started for code that
			// is not instrumented (testify's suite.Run): its
			// parent is the goroutine blocked in Run.
			id, parent = p.nextRunKid()
			break
		}
		states.adopted++
		id = adoptedID(states.adopted)
		adopted = true
		if ok {
			creator = pgid
		}
	}
	g := newState(gid, id)
	install(slot, g)
	states.mu.Unlock()
	g.testOnly = test != ""
	g.start()
	g.recordBegin(parent)
	if creator != 0 {
		if anc, ok := recordedAncestor(creator); ok {
			g.recordBelow(anc)
		}
		g.noteCreation(stack)
	}
	if adopted {
		// Also when the "created by" line names no goroutine that
		// creatorLine could read: its function is what the driver's
		// hint needs.
		g.recordCreators(stack)
	}
	return g
}

// nextRunKid returns the logical id of the next goroutine that code
// precog does not instrument started for p while p waits for it (a
// subtest of testing.T.Run that createdBy found, the function of a
// synctest.Test that p called), and the parent it begins with, p: the id
// is p's n-th such child's, stable across runs, and detect/hb orders a
// goroutine that begins with a parent and no EvFork after the parent's
// events so far and the parent's next event after it. states.mu is held.
func (p *gstate) nextRunKid() (id, parent uint64) {
	id = trace.ChildID(p.id, 0, p.runKids)
	p.runKids++
	return id, p.id
}

// adoptRunKid binds the running goroutine, if it has no state yet, as the
// next run kid (nextRunKid) of the goroutine that runtime id pgid and
// logical id pid name, and returns its state. If that goroutine is no
// longer bound to pid, it adopts the running one as cur does.
func adoptRunKid(pgid, pid uint64) *gstate {
	gid := goid()
	states.mu.Lock()
	p := liveState(pgid)
	if liveState(gid) != nil || p == nil || p.id != pid {
		states.mu.Unlock()
		return cur()
	}
	id, parent := p.nextRunKid()
	g := newState(gid, id)
	install(&table[gid&(1<<tableBits-1)], g)
	states.mu.Unlock()
	g.start()
	g.recordBegin(parent)
	return g
}

// liveState returns the state bound to goroutine gid, or nil. states.mu is
// held.
func liveState(gid uint64) *gstate {
	if g := table[gid&(1<<tableBits-1)].Load(); g != nil && g.goid.Load() == gid {
		return g
	}
	return states.overflow[gid]
}

// createdBy returns the runtime id of the goroutine that started the
// calling one, and whether it did so with testing's T.Run, read from the
// "created by" line of the calling goroutine's stack. It runs once per
// goroutine that no instrumented go statement or TestStart named, when it
// first reaches the shim.
func createdBy() (gid uint64, run, ok bool, stack []byte) {
	buf := make([]byte, 4<<10)
	for {
		n := runtime.Stack(buf, false)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		if len(buf) >= 1<<20 {
			return 0, false, false, nil
		}
		buf = make([]byte, 4*len(buf))
	}
	gid, run, ok = stackCreator(buf)
	return gid, run, ok, buf
}

// stackCreator parses the "created by" line of one goroutine's stack, as
// runtime.Stack prints it: its own, the last line of its own frames, not
// that of an ancestor whose stack at the goroutine's creation follows
// under "[originating from goroutine N]:" when GODEBUG has
// tracebackancestors set.
func stackCreator(stack []byte) (gid uint64, run, ok bool) {
	if i := bytes.Index(stack, []byte("\n[originating from goroutine ")); i >= 0 {
		stack = stack[:i]
	}
	i := bytes.LastIndex(stack, []byte("\ncreated by "))
	if i < 0 {
		return 0, false, false
	}
	return creatorLine(stack[i+1:])
}

// creatorLine parses a stack's "created by F in goroutine N" line at the
// start of b: N, and whether F is testing's T.Run.
func creatorLine(b []byte) (gid uint64, run, ok bool) {
	if j := bytes.IndexByte(b, '\n'); j >= 0 {
		b = b[:j]
	}
	const in = " in goroutine "
	i := bytes.LastIndex(b, []byte(in))
	if i < 0 || !bytes.HasPrefix(b, []byte("created by ")) {
		return 0, false, false
	}
	gid, err := strconv.ParseUint(string(b[i+len(in):]), 10, 64)
	return gid, string(b[len("created by "):i]) == "testing.(*T).Run", err == nil
}

// install puts g into slot, moving a live occupant to the overflow map.
// states.mu is held.
func install(slot *atomic.Pointer[gstate], g *gstate) {
	if old := slot.Load(); old != nil && old.goid.Load() != 0 {
		if states.overflow == nil {
			states.overflow = make(map[uint64]*gstate)
		}
		states.overflow[old.goid.Load()] = old
	}
	slot.Store(g)
}

// newState takes a free state or makes one and binds it to goroutine gid
// with logical id. states.mu is held.
func newState(gid, id uint64) *gstate {
	var g *gstate
	if n := len(states.free); n > 0 {
		g = states.free[n-1]
		states.free = states.free[:n-1]
	} else {
		g = &gstate{}
	}
	g.id = id
	g.rtg = nil
	if stackFilter {
		g.rtg = getg() // newState runs on the goroutine it binds g to
	}
	g.epoch = 0
	g.attn = attention.Load() - 1 // look at the first event
	g.held = 0
	g.testOnly = false
	g.test = nil
	g.bubble = false
	g.now = 0
	g.ctl = nil
	clear(g.conds)
	g.conds = g.conds[:0]
	if len(g.spawned) > 0 {
		clear(g.spawned) // tested first: clear calls the runtime, even for an empty map
	}
	g.spawnOne = false
	g.runKids = 0
	g.resetMarks()
	if len(g.handed) > 0 {
		clear(g.handed)
	}
	g.goid.Store(gid)
	return g
}

// nextSpawn returns how many children g forked at site before, and counts
// one more. The count of the site g forked at last is kept in g (a
// goroutine that forks, forks at one site most of the time: pond's pool
// launching its workers), the others' in g.spawned: the map's lookup and
// store were a sixth of fork's CPU in pond.
func (g *gstate) nextSpawn(site uint32) uint64 {
	if g.spawnOne && g.spawnSite == site {
		g.spawnN++
		return g.spawnN - 1
	}
	if g.spawnOne {
		if g.spawned == nil {
			g.spawned = make(map[uint32]uint64)
		}
		g.spawned[g.spawnSite] = g.spawnN
	}
	n := g.spawned[site]
	g.spawnOne, g.spawnSite, g.spawnN = true, site, n+1
	return n
}

// The children forked and not yet begun: a child's parent, from its fork
// until its Begin (bind), in the slot of the child's id, a hash
// (trace.ChildID), or in states.parent if another child holds the slot.
// A pool that starts a goroutine per task (pond: 115,851 forks in one
// test run) paid a map store, lookup and delete per goroutine here, about
// 1.2% of its recorded CPU.
const kidSlots = 1 << 9

type kidSlot struct {
	child, parent uint64
	used          bool
}

// setParent notes that child, just forked, has parent. states.mu is held.
func setParent(child, parent uint64) {
	s := &states.kids[child&(kidSlots-1)]
	if !s.used || s.child == child {
		*s = kidSlot{child, parent, true}
		return
	}
	if states.parent == nil {
		states.parent = make(map[uint64]uint64)
	}
	states.parent[child] = parent
}

// takeParent returns the parent setParent noted for child, and forgets
// it. states.mu is held.
func takeParent(child uint64) (uint64, bool) {
	if s := &states.kids[child&(kidSlots-1)]; s.used && s.child == child {
		s.used = false
		return s.parent, true
	}
	parent, ok := states.parent[child]
	if ok {
		delete(states.parent, child)
	}
	return parent, ok
}

// bind makes a state for the running goroutine, started by an instrumented
// go statement (Begin) with logical id.
func bind(id uint64) (g *gstate, parent uint64) {
	gid := goid()
	states.mu.Lock()
	parent, ok := takeParent(id)
	if !ok {
		parent = trace.NoParent // Go was not called for it
	}
	g = newState(gid, id)
	if states.bubbled[id] {
		delete(states.bubbled, id)
		g.bubble = true
	}
	install(&table[gid&(1<<tableBits-1)], g)
	states.mu.Unlock()
	return g, parent
}

// release unbinds g from its goroutine, which is ending, and keeps it for
// the next one. The caller has recorded End.
func release(g *gstate) {
	gid := g.goid.Load()
	slot := &table[gid&(1<<tableBits-1)]
	states.mu.Lock()
	if slot.Load() == g {
		slot.Store(nil)
	} else {
		delete(states.overflow, gid)
	}
	g.goid.Store(0)
	states.free = append(states.free, g)
	states.mu.Unlock()
}

// Logical ids. The main goroutine is 0. A goroutine started by an
// instrumented go statement (or task) gets childID(parent, site, n) for the
// parent's n-th spawn at that site, counting from 0: the same in every run
// that takes the same path to it, whatever the scheduling, because one
// parent is one goroutine and counts its own spawns. A test goroutine gets
// testID of the test's full name and of how many times a test of that name
// ran before in the process (more than 0 only with go test -count), so
// that no two goroutines of one trace share an id: the trace format wants
// one goroutine's batches in its program order, and two goroutines with
// one id would interleave theirs. Every other goroutine (started by the
// runtime or by code that is not instrumented) gets adoptedID of the order
// in which goroutines were adopted, which varies between runs when several
// race to their first event. No id is trace.NoParent.
const mainID = 0

func childID(parent uint64, site uint32, n uint64) uint64 { return trace.ChildID(parent, site, n) }

func testID(name string, run uint64) uint64 { return trace.TestID(name, run) }

func adoptedID(n uint64) uint64 { return trace.AdoptedID(n) }

// mix is the splitmix64 finalizer (trace.ChildID uses it too).
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}
