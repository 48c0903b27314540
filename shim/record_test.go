package shim

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/precog-dev/precog/shim/trace"
)

// Sites: each test uses its own range, so that tests sharing the one trace
// can pick out their events.

func TestRecordGoroutineAndLocks(t *testing.T) {
	const base = 1000
	var (
		mu sync.Mutex
		x  int
	)
	from := seqs.n.Load()
	parent := cur().id
	id := Go(base + 1)
	done := make(chan struct{})
	go func() {
		Begin(id)
		defer close(done) // after End: the parent reads the trace once done is closed
		defer End()
		Lock(base+2, &mu)
		W(base+3, &x, 42)
		_ = *R(base+4, &x)
		Unlock(base+5, &mu)
	}()
	<-done
	evs := since(readTrace(t, tracePath), from)
	gevs := goroutineEvents(evs, id)
	for _, ev := range gevs {
		switch ev.Kind {
		case trace.EvBegin:
			if ev.Peer != parent {
				t.Errorf("Begin parent %d, want %d", ev.Peer, parent)
			}
		case trace.EvLock, trace.EvUnlock:
			if ev.Addr != uint64(uintptr(unsafe.Pointer(&mu))) {
				t.Errorf("%v addr %#x, want %p", ev.Kind, ev.Addr, &mu)
			}
		case trace.EvWrite:
			if ev.Value != 42 || ev.Addr != uint64(uintptr(unsafe.Pointer(&x))) {
				t.Errorf("Write %+v", ev)
			}
		}
	}
	if s := kindsString(gevs); s != "Begin Lock Write Read Unlock End" {
		t.Errorf("child recorded %s", s)
	}
	forks := siteEvents(evs, base+1, base+2)
	if len(forks) != 1 || forks[0].Kind != trace.EvFork || forks[0].Peer != id || forks[0].Goroutine != parent {
		t.Errorf("fork events %+v", forks)
	}
}

// TestLocal checks that RL and WL record what R and W record, each access
// on the goroutine that made it: a Local looked up on one goroutine is
// never used on another (the child's function body has its own).
func TestLocal(t *testing.T) {
	const base = 1100
	var x, y int
	from := seqs.n.Load()
	var l Local
	parent := cur().id
	WL(&l, base+1, &x, 5)
	id := Go(base + 2)
	done := make(chan struct{})
	go func() {
		var l Local
		Begin(id)
		defer close(done) // after End: the parent reads the trace once done is closed
		defer End()
		WL(&l, base+3, &y, 6)
		_ = *RL(&l, base+4, &x)
	}()
	<-done
	_ = *RL(&l, base+5, &y)
	W(base+6, &x, 7)
	if x != 7 || y != 6 {
		t.Errorf("x, y = %d, %d", x, y)
	}
	evs := siteEvents(since(readTrace(t, tracePath), from), base+1, base+7)
	var got []string
	for _, ev := range evs {
		who := "parent"
		if ev.Goroutine == id {
			who = "child"
		} else if ev.Goroutine != parent {
			who = "other"
		}
		got = append(got, fmt.Sprintf("%d %v %s %d", ev.Site-base, ev.Kind, who, ev.Value))
	}
	// The trace orders each goroutine's events, not the two goroutines'.
	sort.Strings(got)
	want := "1 Write parent 5, 2 Fork parent 0, 3 Write child 6, 4 Read child 0, 5 Read parent 0, 6 Write parent 7"
	if s := strings.Join(got, ", "); s != want {
		t.Errorf("recorded\n%s\nwant\n%s", s, want)
	}
}

type pair struct{ a, b int32 }
type ptrFirst struct {
	p *int
	n int
}
type ptrSecond struct {
	n int
	p *int
}
type myInt int

func TestWriteValueWords(t *testing.T) {
	const base = 2000
	var (
		i   int
		i8  int8
		u16 uint16
		b   bool
		f   float64
		p   *int
		m   map[int]int
		s   []int
		str string
		e   error
		pr  pair
		pf  ptrFirst
		ps  ptrSecond
		arr [3]byte
		c   complex128
		fn  func()
		ch  chan int
		up  unsafe.Pointer
		mi  myInt
		an  any
	)
	from := seqs.n.Load()
	one := 1
	want := map[uint32]uint64{}
	// identity stands for the word of a non-nil slice: a hash of its
	// words, odd (TestSliceWord).
	const identity = ^uint64(0)
	site := uint32(base)
	check := func(w uint64) { want[site] = w; site++ }
	W(site, &i, 42)
	check(42)
	W(site, &i8, -1)
	check(0xff)
	W(site, &u16, 0xbeef)
	check(0xbeef)
	W(site, &b, true)
	check(1)
	W(site, &f, 1.5)
	check(0x3ff8000000000000)
	W(site, &p, nil)
	check(0)
	W(site, &p, &one)
	check(1)
	W(site, &m, nil)
	check(0)
	W(site, &m, map[int]int{})
	check(1)
	W(site, &s, nil)
	check(0)
	W(site, &s, []int{})
	check(identity)
	W(site, &str, "abc")
	check(3)
	W(site, &e, nil)
	check(0)
	W(site, &e, error(&myErr{}))
	check(1)
	W(site, &pr, pair{1, 2})
	check(2<<32 | 1)
	W(site, &pf, ptrFirst{p: &one})
	check(1)
	W(site, &pf, ptrFirst{n: 3})
	check(0)
	W(site, &ps, ptrSecond{n: 3, p: &one})
	check(0)
	W(site, &arr, [3]byte{1, 2, 3})
	check(0x030201)
	W(site, &c, 1+2i)
	check(0)
	W(site, &fn, nil)
	check(0)
	W(site, &fn, func() {})
	check(1)
	W(site, &ch, make(chan int))
	check(1)
	W(site, &up, unsafe.Pointer(&one))
	check(1)
	W(site, &mi, -2)
	check(0xfffffffffffffffe)
	W(site, &an, nil)
	check(0)
	W(site, &an, any(7))
	check(1)
	// WN and WP record the words W does, without the type's class.
	var l Local
	WN(&l, site, &i, 42)
	check(42)
	WN(&l, site, &i8, -1)
	check(0xff)
	WN(&l, site, &u16, 0xbeef)
	check(0xbeef)
	WN(&l, site, &b, true)
	check(1)
	WN(&l, site, &f, 1.5)
	check(0x3ff8000000000000)
	WN(&l, site, &mi, -2)
	check(0xfffffffffffffffe)
	WP(&l, site, &p, nil)
	check(0)
	WP(&l, site, &p, &one)
	check(1)
	WP(&l, site, &m, map[int]int{})
	check(1)
	WP(&l, site, &fn, nil)
	check(0)
	WP(&l, site, &ch, make(chan int))
	check(1)
	WP(&l, site, &up, nil)
	check(0)
	WL(&l, site, &str, "abcd")
	check(4)
	// Wrote records a store the program did itself with the word W would.
	pf = ptrFirst{p: &one}
	Wrote(site, &pf)
	check(1)
	pr = pair{1, 2}
	Wrote(site, &pr)
	check(0x200000001)
	for _, ev := range siteEvents(since(readTrace(t, tracePath), from), base, site) {
		if ev.Kind != trace.EvWrite {
			t.Errorf("site %d recorded %v", ev.Site, ev.Kind)
			continue
		}
		if w, ok := want[ev.Site]; !ok || (w == identity && (ev.Value == 0 || ev.Value&1 == 0)) || (w != identity && ev.Value != w) {
			t.Errorf("site %d: value word %#x, want %#x", ev.Site, ev.Value, w)
		}
		delete(want, ev.Site)
	}
	if len(want) > 0 {
		t.Errorf("%d writes missing from the trace", len(want))
	}
	if i != 42 || str != "abcd" || mi != -2 || pr != (pair{1, 2}) {
		t.Error("W did not store")
	}
}

// TestSliceWord: a slice's word is the same for equal slices and differs
// when its data pointer, length or capacity differs, so that
// v.s = v.s[:n-1] is not a write of the value v.s held (OSCS's redundant
// write filter compares words); it is 0 for a nil slice only.
func TestSliceWord(t *testing.T) {
	buf := make([]int, 4, 8)
	word := func(v []int) uint64 { return valueWord(&v, &v) }
	if word(buf) != word(buf[:4]) {
		t.Errorf("equal slices: words %#x and %#x", word(buf), word(buf[:4]))
	}
	for _, other := range [][]int{buf[:3], buf[:4:4], buf[1:]} {
		if word(other) == word(buf) {
			t.Errorf("slice of len %d, cap %d has the word of len 4, cap 8: %#x", len(other), cap(other), word(other))
		}
	}
	if word(nil) != 0 || word(buf[:0]) == 0 {
		t.Errorf("nil slice's word %#x, empty slice's %#x: want 0 and not 0", word(nil), word(buf[:0]))
	}
}

// TestAppendRecordsElements: Append appends as append does and records a
// write of each element it added, at the element's address in the result
// (after a growth too), with the word W would have recorded, after the
// EvNew of the new array when it grows; an append of nothing records
// nothing.
func TestAppendRecordsElements(t *testing.T) {
	const site = 2100
	one, two := 1, 2
	var s, r []*int
	evs := recorded(t, 2101, func() {
		s = make([]*int, 1, 2)
		r = Append(site, s, &one, nil, &two) // grows: 3 elements added
		r = Append(site, r)
	})
	if len(r) != 4 || r[1] != &one || r[2] != nil || r[3] != &two {
		t.Fatalf("Append returned %v", r)
	}
	var got []trace.Event
	for _, ev := range evs {
		if ev.Site == site {
			got = append(got, ev)
		}
	}
	words := []uint64{1, 0, 1}
	if len(got) != 1+len(words) {
		t.Fatalf("%d events at the append's site, want %d: %v", len(got), 1+len(words), got)
	}
	if n := got[0]; n.Kind != trace.EvNew || n.Addr != uint64(uintptr(unsafe.Pointer(&r[0]))) || n.Value != uint64(cap(r))*8 {
		t.Errorf("first event %v, want the EvNew of the array at %p of %d bytes", n, &r[0], cap(r)*8)
	}
	got = got[1:]
	for i, ev := range got {
		if ev.Kind != trace.EvWrite || ev.Addr != uint64(uintptr(unsafe.Pointer(&r[1+i]))) || ev.Value != words[i] {
			t.Errorf("event %d: %v at %#x word %d, want a write of %p word %d", i, ev.Kind, ev.Addr, ev.Value, &r[1+i], words[i])
		}
	}
}

type myErr struct{}

func (*myErr) Error() string { return "x" }

func TestHotPathDoesNotAllocate(t *testing.T) {
	var (
		x   int64
		p   *int
		mu  sync.Mutex
		rw  sync.RWMutex
		wg  sync.WaitGroup
		ch  = make(chan int, 1)
		m   = map[int]int{}
		ptr unsafe.Pointer
	)
	cur() // adopt the goroutine first: that allocates its state
	allocs := testing.AllocsPerRun(1000, func() {
		_ = *R(3001, &x)
		W(3002, &x, 7)
		W(3003, &p, nil)
		Wrote(3021, &p)
		Read(3004, unsafe.Pointer(&x))
		Write(3005, unsafe.Pointer(&x), 1)
		Lock(3006, &mu)
		Unlock(3007, &mu)
		RLock(3008, &rw)
		RUnlock(3009, &rw)
		WGAdd(3010, &wg, 1)
		WGDone(3011, &wg)
		Send(3012, ch, 1)
		Recv(3013, ch)
		MW(3014, m)[1] = 2
		_ = MR(3015, m)[1]
		AtomicAddInt64(3016, &x, 1)
		AtomicLoadPointer(3017, &ptr)
		Enter(3018)
		Exit(3019)
		SelectRecv(3020, 0, ChanAddr(ch), true)
		var l Local
		_ = *RL(&l, 3022, &x)
		WL(&l, 3023, &x, 8)
		WL(&l, 3024, &p, nil)
		WN(&l, 3025, &x, 9)
		WP(&l, 3026, &p, nil)
	})
	if allocs != 0 {
		t.Errorf("%v allocations per run", allocs)
	}
}

// TestValueWordEvicted checks that writing a type whose slot of the class
// cache another type took does not allocate: each such miss used to
// classify the type again, and two types sharing a slot allocated on every
// write.
func TestValueWordEvicted(t *testing.T) {
	type local struct{ a, b int16 }
	var (
		x     local
		e     any = &x
		slot      = classSlot((*[2]unsafe.Pointer)(unsafe.Pointer(&e))[0])
		other     = &classEntry{typ: unsafe.Pointer(&x), class: wordNone}
	)
	cur()
	W(8001, &x, x)
	if allocs := testing.AllocsPerRun(100, func() {
		slot.Store(other)
		W(8001, &x, local{1, 2})
	}); allocs != 0 {
		t.Errorf("%v allocations per write of an evicted type", allocs)
	}
	if slot.Load() == other {
		t.Errorf("the write did not put its type back in its slot")
	}
}

// TestWKeepsLocalsOnTheStack checks that W does not make its target
// escape: valueWord once took p into an interface for its type, which moved
// every local written through W to the heap, an allocation per call of
// each instrumented function with such a local.
func TestWKeepsLocalsOnTheStack(t *testing.T) {
	cur()
	if allocs := testing.AllocsPerRun(100, func() {
		var x int
		W(8101, &x, 1)
		wordSink = x
	}); allocs != 0 {
		t.Errorf("%v allocations per W of a local", allocs)
	}
}

var wordSink int

// TestAfterFuncFork: time.AfterFunc's callback, outside a synctest
// bubble, is recorded as a goroutine forked at the AfterFunc call, so
// detect/hb orders it after what its creator did before the call.
func TestAfterFuncFork(t *testing.T) {
	const base = 12100
	from := seqs.n.Load()
	parent := cur().id
	var x int
	done := make(chan struct{}, 1)
	W(base+1, &x, 7)
	AfterFunc(base+2, time.Millisecond, func() {
		_ = *R(base+3, &x)
		done <- struct{}{}
	})
	<-done
	evs := since(readTrace(t, tracePath), from)
	forks := siteEvents(evs, base+2, base+3)
	if len(forks) != 1 || forks[0].Kind != trace.EvFork || forks[0].Goroutine != parent {
		t.Fatalf("fork events %+v", forks)
	}
	child := goroutineEvents(evs, forks[0].Peer)
	if s := kindsString(child); !strings.HasPrefix(s, "Begin Read") {
		t.Errorf("callback recorded %s", s)
	}
	for _, ev := range child {
		if ev.Kind == trace.EvBegin && ev.Peer != parent {
			t.Errorf("callback's Begin parent %d, want %d", ev.Peer, parent)
		}
	}
}

// TestAfterFuncReset: a callback that Resets its own timer (a
// retransmission timer) runs again as the goroutine forked at the Reset,
// by the run that called it; a Stop that returned true cancelled the arm
// that Reset followed, so the run after that Reset is the Reset's. A
// timer NewTimer made records no fork at Reset or Stop.
func TestAfterFuncReset(t *testing.T) {
	const base = 12150
	from := seqs.n.Load()
	done := make(chan struct{}, 1)
	var timer *time.Timer
	runs := 0
	var mu sync.Mutex
	mu.Lock()
	timer = AfterFunc(base+1, time.Millisecond, func() {
		mu.Lock()
		defer mu.Unlock()
		runs++
		if runs == 1 {
			TimerReset(base+2, timer, time.Millisecond)
			return
		}
		done <- struct{}{}
	})
	mu.Unlock()
	<-done
	ran := make(chan struct{}, 1)
	stopped := AfterFunc(base+3, time.Hour, func() { ran <- struct{}{} })
	if !TimerStop(base+4, stopped) || TimerReset(base+5, stopped, time.Millisecond) {
		t.Error("Stop of an active timer returned false, or Reset of a stopped one true")
	}
	<-ran
	plain := time.NewTimer(time.Hour)
	if !TimerReset(base+6, plain, time.Hour) || !TimerStop(base+7, plain) {
		t.Error("Reset or Stop of an active NewTimer returned false")
	}
	evs := since(readTrace(t, tracePath), from)
	forks := forksAt(evs, base)
	if len(forks) != 4 {
		t.Fatalf("forks at %v, want AfterFunc's and Reset's of each AfterFunc timer", forks)
	}
	first := forks[base+1].Peer
	if reset := forks[base+2]; reset.Goroutine != first {
		t.Errorf("Reset forked on goroutine %d, want the first run's %d", reset.Goroutine, first)
	}
	if s := kindsString(goroutineEvents(evs, forks[base+2].Peer)); !strings.HasPrefix(s, "Begin") {
		t.Errorf("the run after Reset recorded %q, want it begun as the Reset's fork", s)
	}
	// The stopped timer's Reset: its run begins that fork, not the
	// cancelled AfterFunc's.
	if s := kindsString(goroutineEvents(evs, forks[base+5].Peer)); !strings.HasPrefix(s, "Begin") {
		t.Errorf("the run after the stopped timer's Reset recorded %q, want it begun as the Reset's fork", s)
	}
	if n := len(goroutineEvents(evs, forks[base+3].Peer)); n != 0 {
		t.Errorf("the cancelled arm's goroutine recorded %d events", n)
	}
}

// TestContextAfterFunc: context.AfterFunc's callback runs on a goroutine
// begun as the fork recorded at the call, on the caller's goroutine; a
// callback that stop kept from running leaves its fork with no goroutine.
func TestContextAfterFunc(t *testing.T) {
	const base = 12170
	from := seqs.n.Load()
	ran := make(chan struct{}, 1)
	ctx, cancel := context.WithCancel(context.Background())
	ContextAfterFunc(base+1, ctx, func() { ran <- struct{}{} })
	cancel()
	<-ran
	stopped, cancelStopped := context.WithCancel(context.Background())
	defer cancelStopped()
	if stop := ContextAfterFunc(base+2, stopped, func() { ran <- struct{}{} }); !stop() {
		t.Error("stop of a callback not yet run returned false")
	}
	evs := since(readTrace(t, tracePath), from)
	forks := forksAt(evs, base)
	if len(forks) != 2 {
		t.Fatalf("forks at %v, want one at each AfterFunc call", forks)
	}
	if s := kindsString(goroutineEvents(evs, forks[base+1].Peer)); !strings.HasPrefix(s, "Begin") {
		t.Errorf("the callback recorded %q, want it begun as the AfterFunc call's fork", s)
	}
	if n := len(goroutineEvents(evs, forks[base+2].Peer)); n != 0 {
		t.Errorf("the stopped callback's goroutine recorded %d events", n)
	}
}

// forksAt returns the forks among evs at the sites base to base+10, by
// site.
func forksAt(evs []trace.Event, base uint32) map[uint32]trace.Event {
	forks := map[uint32]trace.Event{}
	for _, ev := range siteEvents(evs, base, base+10) {
		if ev.Kind == trace.EvFork {
			forks[ev.Site] = ev
		}
	}
	return forks
}

// TestAfterTimerArms: a run begins the fork of the one arm waiting; with
// two waiting (a run that fired but had not begun when Reset armed the
// next), neither run is known to be whose until none waits, and a run
// with no arm waiting (a Reset precog did not see) begins none.
func TestAfterTimerArms(t *testing.T) {
	at := &afterTimer{pending: []timerArm{{id: 1}}}
	if arm, ok := at.begin(); !ok || arm.id != 1 {
		t.Errorf("the one arm: %v %v", arm, ok)
	}
	if _, ok := at.begin(); ok {
		t.Error("a run with no arm waiting began one")
	}
	at.pending = append(at.pending, timerArm{id: 2}, timerArm{id: 3})
	for range 2 {
		if arm, ok := at.begin(); ok {
			t.Errorf("a run of two waiting arms began %v", arm)
		}
	}
	at.pending = append(at.pending, timerArm{id: 4}, timerArm{id: 5})
	at.stopped(true)
	if arm, ok := at.begin(); !ok || arm.id != 4 {
		t.Errorf("after a Stop that cancelled the last arm: %v %v, want arm 4", arm, ok)
	}
	at.pending = append(at.pending, timerArm{id: 6})
	at.stopped(false)
	if arm, ok := at.begin(); !ok || arm.id != 6 {
		t.Errorf("after a Stop of a timer that had fired: %v %v, want arm 6", arm, ok)
	}
}

// TestSyncMapKey: a sync.Map's operations on one key are recorded at one
// location, which another key or another map does not share; an Atomic
// gated before the operation (by SyncMapGate, or by SyncMapRangeGate for
// a Range's visit) records it with the value given.
func TestSyncMapKey(t *testing.T) {
	const base = 12200
	key := func(m *sync.Map, k any) unsafe.Pointer { return cur().syncMapKey(m, k) }
	var m, other sync.Map
	a, a2, b := key(&m, "a"), key(&m, "a"), key(&m, "b")
	if a == nil || a != a2 || a == b || a == key(&other, "a") || a == key(&m, any(1)) {
		t.Fatalf("locations: a %p, a again %p, b %p", a, a2, b)
	}
	if n := testing.AllocsPerRun(100, func() { key(&m, "a"); key(&other, "a"); key(&m, 1.5) }); n != 0 {
		t.Errorf("locations of pairs already seen, of two maps in turn, allocate %v times, want 0", n)
	}
	// Keys of the shim's own table (scalarKey) and of the others, looked up
	// by two goroutines at once while the table grows: equal keys of one
	// type share a location, and keys of equal values but other types
	// (a named string type, a float64, which the table leaves to the
	// sync.Map), or of other values, do not.
	type name string
	var keys sync.Map
	locs := make([]map[unsafe.Pointer]any, 2)
	var wg sync.WaitGroup
	for w := range locs {
		own := map[unsafe.Pointer]any{} // this goroutine's
		locs[w] = own
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 2 {
				for i := range 2000 {
					s := strconv.Itoa(i)
					for _, k := range []any{i, int64(i), uint32(i), s, name(s), float64(i)} {
						p := key(&keys, k)
						if q, ok := own[p]; ok && q != k {
							t.Errorf("keys %T(%v) and %T(%v) share a location", k, k, q, q)
							return
						}
						own[p] = k
					}
				}
			}
		}()
	}
	wg.Wait()
	if len(locs[0]) != 12000 || !maps.Equal(locs[0], locs[1]) {
		t.Errorf("12000 keys have %d locations in one goroutine, %d in the other (equal: %v)", len(locs[0]), len(locs[1]), maps.Equal(locs[0], locs[1]))
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("the location of a key that is not comparable did not panic, as sync.Map's operation does")
			}
		}()
		key(&m, []int{1})
	}()
	evs := recorded(t, base, func() {
		g := AtomicGate(nil, base+1, true, a)
		m.Store("a", 1)
		g.Store(base+1, a, 1)
		g, p := SyncMapGate(base+2, false, &m, "a")
		if p != a {
			t.Errorf("SyncMapGate's location %p, want %p", p, a)
		}
		_, ok := m.Load("a")
		g.Load(base+2, a, map[bool]uint64{true: 1}[ok])
		var l Local // a Range's, which its visits share
		g, p = SyncMapRangeGate(&l, base+3, &m, "a")
		if p != a || l.g != g.g {
			t.Errorf("SyncMapRangeGate's location %p, want %p; its Local's state %p, its Atomic's %p", p, a, l.g, g.g)
		}
		g.Load(base+3, a, 1)
	})
	if s := kindsString(evs); s != "Begin AtomicStore AtomicLoad AtomicLoad End" {
		t.Fatalf("recorded %s", s)
	}
	for _, ev := range evs {
		if ev.Kind != trace.EvAtomicStore && ev.Kind != trace.EvAtomicLoad {
			continue // Begin, End, a collection's GCEpoch
		}
		if ev.Addr != uint64(uintptr(a)) || ev.Value != 1 {
			t.Errorf("%v at %#x value %d, want at %p value 1", ev.Kind, ev.Addr, ev.Value, a)
		}
	}
}

// TestSyncMapScalarKey: a key of an integer or string type, named or not,
// is not kept by SyncMapScalarGate: its conversion to an interface does not
// allocate (a test counting allocations passes recorded), and the table
// keeps a copy of a string key, so a key whose bytes change later keeps
// its location and another key with the bytes it had gets its own.
func TestSyncMapScalarKey(t *testing.T) {
	var m sync.Map
	type id uint16
	keys := []string{strconv.Itoa(12345), strconv.Itoa(678)}
	scalar := func(k any) unsafe.Pointer { return cur().mapKeys(&m).scalar(k) }
	for _, k := range keys {
		scalar(k) // entered before counting
	}
	if n := testing.AllocsPerRun(100, func() {
		for i, k := range keys {
			SyncMapScalarGate(1, false, &m, k)
			SyncMapScalarGate(1, false, &m, id(i+1000))
			scalar(k)
		}
	}); n != 0 {
		t.Errorf("the locations of string keys seen before allocate %v times, want 0", n)
	}
	b := []byte("abc")
	k := unsafe.String(&b[0], len(b))
	p := scalar(k)
	b[2] = 'd' // k is "abd" now
	if q := scalar("abc"); q != p {
		t.Errorf("key abc: location %p after its bytes changed, %p before", q, p)
	}
	if q := scalar("abd"); q == p {
		t.Errorf("key abd shares key abc's location %p", p)
	}
	if scalar(id(7)) == scalar(uint16(7)) || scalar(id(7)) != scalar(id(7)) || scalar(int8(-1)) == scalar(uint8(255)) {
		t.Error("keys of integer types share locations across types, or one key has two")
	}
	if scalar(1.5) != nil || scalar(struct{}{}) != nil || scalar(nil) != nil {
		t.Error("a float, struct or nil key has a location in the table of integer and string keys")
	}
}

// TestGateKeepsNoAddress: the gate passes control a sync object's address
// as a number, so a local the program only uses atomically stays on its
// stack recorded, as it does unrecorded (a call through the controlGate
// variable would leak a pointer).
func TestGateKeepsNoAddress(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() {
		var n int32
		AtomicAddInt32(1, &n, 1)
		AtomicLoadInt32(1, &n)
	}); n != 0 {
		t.Errorf("atomics on a local allocate %v times, want 0", n)
	}
}

// TestNextSegment: segments double from firstSegment, and one of a huge
// page or more starts at a multiple of hugePage and is a whole number of
// them, leaving a hole before it (populatePages).
func TestNextSegment(t *testing.T) {
	var off int64
	size := 0
	var sizes []int
	for off < 80<<20 {
		next, n := nextSegment(off, size, 100)
		if next < off+int64(size) {
			t.Fatalf("segment at %d overlaps the one at %d of %d bytes", next, off, size)
		}
		if n >= hugePage && (next%hugePage != 0 || n%hugePage != 0) {
			t.Fatalf("segment of %d bytes at %d: not whole huge pages", n, next)
		}
		off, size = next, n
		sizes = append(sizes, n>>10)
	}
	if want := []int{64, 128, 256, 512, 1024, 2048}; !slices.Equal(sizes[:6], want) {
		t.Errorf("first segments %v KiB, want %v", sizes[:6], want)
	}
	if last := sizes[len(sizes)-1]; last != maxSegment>>10 {
		t.Errorf("segment past smallTrace %d KiB, want %d", last, maxSegment>>10)
	}
	if _, n := nextSegment(0, 0, 3<<20); n != 4<<20 {
		t.Errorf("segment for 3 MiB is %d bytes, want 4 MiB", n)
	}
}

// TestChunkSize: a goroutine that writes alone gets chunks doubling up to
// maxChunk; among n goroutines writing at one pace each gets about a
// chunkShare-th of its share of a segment, so the chunks they hold add up
// to about a chunkShare-th of the segment; one that used little of its
// chunk while the trace grew by a segment (leaving a dropped one) gets the
// smallest chunk.
func TestChunkSize(t *testing.T) {
	const seg = maxSegment
	size, sizes := 4<<10, []int{}
	for range 6 {
		size = chunkSize(size, size, int64(size), seg)
		sizes = append(sizes, size>>10)
	}
	if want := []int{8, 16, 32, 64, 64, 64}; !slices.Equal(sizes, want) {
		t.Errorf("a lone goroutine's chunks %v KiB, want %v", sizes, want)
	}
	for _, n := range []int{4, 30, 130} {
		size := maxChunk
		for range 8 {
			size = chunkSize(size, size, int64(n*size), seg)
		}
		if held, most := n*size, seg/chunkShare+n*chunkAlign; held > most {
			t.Errorf("%d goroutines at one pace hold chunks of %d bytes, %d in all; want at most %d", n, size, held, most)
		}
		if size%chunkAlign != 0 || size < chunkAlign {
			t.Errorf("%d goroutines at one pace: chunk of %d bytes", n, size)
		}
	}
	if got := chunkSize(200, maxChunk, seg, seg); got != chunkAlign {
		t.Errorf("a goroutine that used 200 bytes of its chunk while a segment filled gets %d bytes, want %d", got, chunkAlign)
	}
}

// TestMapAhead: once the current segment is aheadFrom bytes or more, the
// goroutine whose chunk passes its first quarter maps the next one, at the
// offset and of the size nextSegment gives, before takeChunk returns to
// it; the chunk that does not fit the current segment comes from that one,
// not from a segment mapped then; and a goroutine's events written before
// and after the switch read back whole and in order. Then goroutines
// taking chunks at once across more switches get chunks that do not
// overlap, each within its segment; and a chunk larger than the segment
// mapped ahead comes from one mapped after it, the events on both sides of
// the unused one reading back.
func TestMapAhead(t *testing.T) {
	const base = 12400
	if out.mode != outMap {
		t.Skip("the trace is not mapped")
	}
	x := new(uint64)
	evs := recorded(t, base, func() {
		// A fresh segment of aheadFrom bytes or more: the one mapped
		// ahead, if earlier tests left one.
		out.mu.Lock()
		for len(out.seg) < aheadFrom || out.next > 0 {
			if err := mapSegment(0); err != nil {
				out.mu.Unlock()
				t.Fatal(err)
			}
		}
		out.mu.Unlock()
		ahead := func() ([]byte, int64, bool) {
			out.mu.Lock()
			defer out.mu.Unlock()
			return out.ahead, out.aheadOff, out.mapping
		}
		if mem, _, mapping := ahead(); mem != nil || mapping {
			t.Fatalf("a segment of %d bytes mapped ahead before any chunk was taken", len(mem))
		}
		out.mu.Lock()
		size, segOff := len(out.seg), out.segOff
		wantOff, wantSize := nextSegment(out.segOff, len(out.seg), maxChunk)
		out.mu.Unlock()

		g := cur()
		Write(base+1, unsafe.Pointer(x), 1)
		for {
			if c, _, _ := takeChunk(nil, 0, 0, 1); c == nil {
				t.Fatal("no chunk")
			}
			out.mu.Lock()
			next := out.next
			out.mu.Unlock()
			mem, off, mapping := ahead()
			if mapping {
				t.Fatal("takeChunk returned while its segment was being mapped ahead")
			}
			if next < size/4 {
				if mem != nil {
					t.Fatalf("a segment mapped ahead at %d of %d bytes", next, size)
				}
				continue
			}
			if mem == nil || off != wantOff || len(mem) != wantSize {
				t.Fatalf("past a quarter of the segment, a segment of %d bytes at %d mapped ahead, want %d at %d", len(mem), off, wantSize, wantOff)
			}
			break
		}
		mem, _, _ := ahead()
		for {
			c, _, _ := takeChunk(nil, 0, 0, 1)
			if c == nil {
				t.Fatal("no chunk")
			}
			out.mu.Lock()
			now := out.segOff
			out.mu.Unlock()
			if now == segOff {
				continue
			}
			if now != wantOff || unsafe.SliceData(c) != unsafe.SliceData(mem) {
				t.Fatalf("the chunk past the segment's end is at %d (%p), want the segment mapped ahead's start, %d (%p)", now, unsafe.SliceData(c), wantOff, unsafe.SliceData(mem))
			}
			break
		}
		Write(base+2, unsafe.Pointer(x), 2)
		g.refill(eventRoom)
		if start, end := uintptr(unsafe.Pointer(unsafe.SliceData(g.buf))), uintptr(unsafe.Pointer(unsafe.SliceData(mem))); start < end || start >= end+uintptr(len(mem)) {
			t.Fatalf("the goroutine's new chunk is not in the segment mapped ahead")
		}
		Write(base+3, unsafe.Pointer(x), 3)

		// Four goroutines at once, over two more switches.
		type span struct{ lo, hi int64 }
		var (
			mu    sync.Mutex
			spans []span
			wg    sync.WaitGroup
		)
		stop := wantOff + 3*int64(wantSize)
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var last []byte
				var seg uint64
				var at int64
				for at < stop {
					c, s, a := takeChunk(last, seg, at, 1)
					if c == nil {
						t.Error("no chunk")
						return
					}
					out.mu.Lock()
					segOff, segLen, cur := out.segOff, len(out.seg), uint64(len(out.old))
					out.mu.Unlock()
					if s == cur && (a < segOff || a+int64(cap(c)) > segOff+int64(segLen)) {
						t.Errorf("chunk at %d of %d bytes outside its segment at %d of %d bytes", a, cap(c), segOff, segLen)
					}
					mu.Lock()
					spans = append(spans, span{a, a + int64(cap(c))})
					mu.Unlock()
					last, seg, at = c[:cap(c)], s, a
				}
			}()
		}
		wg.Wait()
		slices.SortFunc(spans, func(a, b span) int { return int(a.lo - b.lo) })
		for i := 1; i < len(spans); i++ {
			if spans[i].lo < spans[i-1].hi {
				t.Fatalf("chunks [%d, %d) and [%d, %d) overlap", spans[i-1].lo, spans[i-1].hi, spans[i].lo, spans[i].hi)
			}
		}

		// A chunk larger than the segment mapped ahead: that one is
		// left unused, zeros in the file, and the chunk comes from a
		// segment mapped after it.
		for {
			if c, _, _ := takeChunk(nil, 0, 0, 1); c == nil {
				t.Fatal("no chunk")
			}
			if mem, _, _ := ahead(); mem != nil {
				break
			}
		}
		Write(base+4, unsafe.Pointer(x), 4)
		small, smallOff, _ := ahead()
		big := 2 * len(small)
		c, _, at := takeChunk(nil, 0, 0, big)
		if cap(c) < big || at < smallOff+int64(len(small)) {
			t.Fatalf("a chunk of %d bytes at %d, want %d bytes after the %d mapped ahead at %d", cap(c), at, big, len(small), smallOff)
		}
		g.refill(eventRoom)
		Write(base+5, unsafe.Pointer(x), 5)
	})
	var sites []uint32
	for _, ev := range evs {
		if ev.Kind == trace.EvWrite {
			sites = append(sites, ev.Site)
		}
	}
	if want := []uint32{base + 1, base + 2, base + 3, base + 4, base + 5}; !slices.Equal(sites, want) {
		t.Errorf("writes at sites %v, want %v", sites, want)
	}
}

// TestLeaveDropped: a goroutine whose chunk is in the segment before the
// current one goes on writing there (its pages are dropped only when the
// segment after the current one is mapped); once they are dropped, it
// takes a chunk of the current segment before its next event (a write there
// would fault the page back in), and its events read back whole and in
// order.
func TestLeaveDropped(t *testing.T) {
	const base = 12300
	if out.mode != outMap {
		t.Skip("the trace is not mapped")
	}
	x := new(uint64)
	evs := recorded(t, base, func() {
		next := func() uint64 {
			out.mu.Lock()
			err := mapSegment(0)
			cur := uint64(len(out.old))
			out.mu.Unlock()
			if err != nil {
				t.Fatal(err)
			}
			return cur
		}
		// Two segments on, the goroutine's chunk is in a dropped one
		// whatever it was: its first write takes one in the current.
		next()
		g, now := cur(), next()
		Write(base+1, unsafe.Pointer(x), 1)
		seg := g.seg
		if seg != now {
			t.Fatalf("the goroutine writes into segment %d, want the current one, %d", seg, now)
		}
		next()
		if dropped.Load() > seg {
			t.Fatalf("segment %d dropped (%d dropped) when the next was mapped", seg, dropped.Load())
		}
		Write(base+2, unsafe.Pointer(x), 2)
		if g.seg != seg {
			t.Errorf("the goroutine left segment %d for %d before it was dropped", seg, g.seg)
		}
		now = next()
		if dropped.Load() <= seg {
			t.Fatalf("segment %d not dropped (%d dropped) when the one after the next was mapped", seg, dropped.Load())
		}
		Write(base+3, unsafe.Pointer(x), 3)
		if g.seg != now {
			t.Errorf("the goroutine writes into segment %d after segment %d was dropped, want the current one, %d", g.seg, seg, now)
		}
	})
	var sites []uint32
	for _, ev := range evs {
		if ev.Kind == trace.EvWrite {
			sites = append(sites, ev.Site)
		}
	}
	if !slices.Equal(sites, []uint32{base + 1, base + 2, base + 3}) {
		t.Errorf("writes at sites %v, want %d, %d and %d", sites, base+1, base+2, base+3)
	}
}

// TestCASRecordsItsLoad: a successful compare-and-swap of a word records
// the load of the old value, at site 0 (never a plan's point), then its
// store; a failed one records the load of what it found, at its site; a
// pointer's swap records its load of nil or non-nil as 0 or 1.
func TestCASRecordsItsLoad(t *testing.T) {
	const base = 5300
	var x uint64 = 7
	var p unsafe.Pointer
	evs := recorded(t, base, func() {
		AtomicCompareAndSwapUint64(base+1, &x, 7, 9)
		AtomicCompareAndSwapUint64(base+2, &x, 7, 11)
		AtomicCompareAndSwapPointer(base+3, &p, nil, unsafe.Pointer(&x))
		AtomicCompareAndSwapPointer(base+4, &p, unsafe.Pointer(&x), nil)
	})
	var got []string
	for _, ev := range evs {
		if ev.Kind == trace.EvAtomicLoad || ev.Kind == trace.EvAtomicStore {
			got = append(got, fmt.Sprintf("%v@%d=%d", ev.Kind, ev.Site, ev.Value))
		}
	}
	want := fmt.Sprintf("[AtomicLoad@0=7 AtomicStore@%d=9 AtomicLoad@%d=9 AtomicLoad@0=0 AtomicStore@%d=1 AtomicLoad@0=1 AtomicStore@%d=0]", base+1, base+2, base+3, base+4)
	if s := fmt.Sprint(got); s != want {
		t.Errorf("recorded %s, want %s", s, want)
	}
}

// TestAtomicLoadTakesNoSeq: outside control an atomic load takes the seq
// counter's value without incrementing it (trace's "Order"), so it reads
// back after its goroutine's last seq with a Sub, as an access does, and
// two loads in a row share a seq unless another goroutine took one in
// between; a store takes a new seq (Sub 0). A read that repeats one from
// before a load is recorded all the same: the load ends the repeat
// filter's stretch although the seq stayed. With control on (this test
// binary's own setting) every load takes a new seq.
func TestAtomicLoadTakesNoSeq(t *testing.T) {
	const base = 5400
	var x int64
	y := new(int)
	run := func(control bool) []trace.Event {
		saved := controlGate
		if !control {
			controlGate = nil
		}
		defer func() { controlGate = saved }()
		evs := recorded(t, base, func() {
			AtomicLoadInt64(base+2, &x)
			_ = *R(base+1, y)
			AtomicLoadInt64(base+3, &x)
			_ = *R(base+1, y) // after a load: recorded
			_ = *R(base+1, y) // a repeat: left out
			AtomicStoreInt64(base+4, &x, 1)
		})
		evs = siteEvents(evs, base+1, base+5)
		var got []string
		for _, ev := range evs {
			got = append(got, fmt.Sprintf("%v@%d", ev.Kind, ev.Site-base))
		}
		if want := "[AtomicLoad@2 Read@1 AtomicLoad@3 Read@1 AtomicStore@4]"; fmt.Sprint(got) != want {
			t.Fatalf("control %v: recorded %v, want %s", control, got, want)
		}
		return evs
	}
	evs := run(false)
	l1, l2, r, st := evs[0], evs[2], evs[3], evs[4]
	if l1.Sub == 0 || l2.Sub == 0 || l2.Seq < l1.Seq || l2.Seq == l1.Seq && l2.Sub != l1.Sub+2 {
		t.Errorf("the loads read back at %d.%d and %d.%d: want a Sub after a seq, counting on where the seq is the same", l1.Seq, l1.Sub, l2.Seq, l2.Sub)
	}
	if l2.Seq != l1.Seq {
		t.Logf("another goroutine took a seq between the loads (%d, %d)", l1.Seq, l2.Seq)
	}
	if r.Seq != l2.Seq || r.Sub != l2.Sub+1 {
		t.Errorf("the read after the loads is at %d.%d, want %d.%d", r.Seq, r.Sub, l2.Seq, l2.Sub+1)
	}
	if st.Sub != 0 || st.Seq <= l2.Seq {
		t.Errorf("the store is at %d.%d, want a new seq after %d", st.Seq, st.Sub, l2.Seq)
	}

	evs = run(true)
	l1, l2 = evs[0], evs[2]
	if l1.Sub != 1 || l2.Sub != 1 || l2.Seq <= l1.Seq {
		t.Errorf("with control, the loads read back at %d.%d and %d.%d: want new seqs", l1.Seq, l1.Sub, l2.Seq, l2.Sub)
	}
}

// TestRecordNew: New records an EvNew with the object's address and size
// for an object on the heap, and, with the stack filter, nothing for one
// on the goroutine's stack (none of whose accesses are recorded either).
func TestRecordNew(t *testing.T) {
	const base = 12600
	type obj struct {
		a, b int64
		p    *int
	}
	var p *obj
	evs := recorded(t, base, func() {
		p = New(base+1, &obj{a: 1})
		var local obj
		if New(base+2, &local) != &local {
			t.Error("New returned another pointer than it took")
		}
	})
	var news []trace.Event
	for _, ev := range evs {
		if ev.Kind == trace.EvNew {
			news = append(news, ev)
		}
	}
	want := 1
	if !stackFilter {
		want = 2 // every object is recorded
	}
	if len(news) != want {
		t.Fatalf("recorded %v, want %d EvNew", news, want)
	}
	ev := news[0]
	if ev.Site != base+1 || ev.Addr != uint64(uintptr(unsafe.Pointer(p))) || ev.Value != uint64(unsafe.Sizeof(obj{})) {
		t.Errorf("recorded %v, want an EvNew at %p of %d bytes", ev, p, unsafe.Sizeof(obj{}))
	}
}
