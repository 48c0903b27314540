package shim

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/precog-dev/precog/shim/trace"
)

// fakeTB is a TB whose outcome and cleanups the test controls.
type fakeTB struct {
	name            string
	failed, skipped bool
	cleanups        []func()
}

func (f *fakeTB) Name() string      { return f.name }
func (f *fakeTB) Failed() bool      { return f.failed }
func (f *fakeTB) Skipped() bool     { return f.skipped }
func (f *fakeTB) Cleanup(fn func()) { f.cleanups = append(f.cleanups, fn) }
func (f *fakeTB) runCleanups() {
	for i := len(f.cleanups) - 1; i >= 0; i-- {
		f.cleanups[i]()
	}
}

// onGoroutine runs f on a new goroutine the shim has not seen and waits.
func onGoroutine(f func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	<-done
}

// spawnTree is a test body that forks two goroutines at one site and one
// at another, each forking one grandchild; it returns the ids of the
// children it forked in order.
func spawnTree(siteA, siteB uint32) []uint64 {
	var (
		wg  sync.WaitGroup
		mu  sync.Mutex
		ids []uint64
	)
	spawn := func(site uint32, depth int) {
		id := Go(site)
		mu.Lock()
		ids = append(ids, id)
		mu.Unlock()
		wg.Add(1)
		go func() {
			Begin(id)
			defer End()
			defer wg.Done()
			if depth == 0 {
				gid := Go(siteB)
				mu.Lock()
				ids = append(ids, gid)
				mu.Unlock()
				wg.Add(1)
				go func() {
					Begin(gid)
					defer End()
					wg.Done()
				}()
			}
		}()
		wg.Wait() // one at a time, so that ids is in a fixed order
	}
	spawn(siteA, 0)
	spawn(siteA, 0)
	spawn(siteB, 1)
	return ids
}

// TestLogicalIDsAreStable runs one test body twice, as a test that runs
// again in the same process (go test -count): each run's ids must follow
// from its test's id by childID, which is what makes them the same in
// every process, and no id may repeat.
func TestLogicalIDsAreStable(t *testing.T) {
	const name = "TestStable/tree"
	seen := map[uint64]bool{}
	for run := 0; run < 2; run++ {
		test := nextTestID(name)
		var ids []uint64
		onGoroutine(func() {
			tb := &fakeTB{name: name}
			TestStart(tb)
			ids = spawnTree(4001, 4002)
			tb.runCleanups()
		})
		if len(ids) != 5 {
			t.Fatalf("forked %d goroutines, want 5", len(ids))
		}
		if ids[0] != childID(test, 4001, 0) || ids[2] != childID(test, 4001, 1) || ids[4] != childID(test, 4002, 0) ||
			ids[1] != childID(ids[0], 4002, 0) || ids[3] != childID(ids[2], 4002, 0) {
			t.Errorf("run %d: ids %x do not follow childID", run, ids)
		}
		for i, id := range append(ids, test) {
			if seen[id] || id == mainID || id == trace.NoParent {
				t.Errorf("run %d, fork %d: id %#x reused", run, i, id)
			}
			seen[id] = true
		}
	}
}

func TestTestStartAndOutcomes(t *testing.T) {
	cases := []struct {
		name    string
		run     func(tb *fakeTB)
		outcome trace.Outcome
	}{
		{"pass", func(tb *fakeTB) { tb.runCleanups() }, trace.Pass},
		{"fail", func(tb *fakeTB) { tb.failed = true; tb.runCleanups() }, trace.Fail},
		{"skip", func(tb *fakeTB) { tb.skipped = true; tb.runCleanups() }, trace.Skip},
		{"panic", func(tb *fakeTB) {
			defer func() { recover() }()
			defer tb.runCleanups()
			panic("boom")
		}, trace.Panic},
	}
	ids := make(map[string]uint64)
	for _, c := range cases {
		tb := &fakeTB{name: "TestOutcome/" + c.name}
		ids[c.name] = nextTestID(tb.name)
		onGoroutine(func() {
			TestStart(tb)
			Read(5000, nil)
			TestStart(tb) // a helper literal taking the test's t, called directly: records nothing
			c.run(tb)
		})
	}
	evs := readTrace(t, tracePath)
	for _, c := range cases {
		var outcome trace.Outcome = 99
		gevs := goroutineEvents(evs, ids[c.name])
		for _, ev := range gevs {
			switch ev.Kind {
			case trace.EvBegin:
				if ev.Peer != trace.NoParent {
					t.Errorf("%s: Begin parent %d, want NoParent", c.name, ev.Peer)
				}
			case trace.EvTestStart:
				if ev.Name != "TestOutcome/"+c.name {
					t.Errorf("%s: TestStart name %q", c.name, ev.Name)
				}
			case trace.EvTestEnd:
				outcome = trace.Outcome(ev.Value)
			}
		}
		if outcome != c.outcome {
			t.Errorf("%s: outcome %v, want %v", c.name, outcome, c.outcome)
		}
		// The Read after TestStart names the test's T (site 0).
		if got := kindsString(gevs); got != "Begin TestStart Read Read TestEnd End" {
			t.Errorf("%s: events %s", c.name, got)
		}
	}
}

// runSub is a subtest's function that names no test (testify's suite
// methods): its goroutine's first event adopts it.
type runSub struct{ site uint32 }

func (r runSub) run(*testing.T) { Read(r.site, nil) }

// TestRunSubtestParent: a goroutine that testing.T.Run started, first seen
// with no TestStart, begins with the goroutine that called Run as parent,
// and the id of that parent's n-th such subtest; one that a plain go
// statement started has none.
func TestRunSubtestParent(t *testing.T) {
	Read(5200, nil)
	parent := cur().id
	for _, site := range []uint32{5201, 5202} {
		t.Run("sub", runSub{site}.run)
	}
	onGoroutine(func() { Read(5203, nil) })
	evs := readTrace(t, tracePath)
	for k, site := range []uint32{5201, 5202, 5203} {
		var g uint64
		for _, ev := range evs {
			if ev.Site == site {
				g = ev.Goroutine
			}
		}
		want, wantParent := trace.ChildID(parent, 0, uint64(k)), parent
		if site == 5203 {
			want, wantParent = g, trace.NoParent
		}
		gevs := goroutineEvents(evs, g)
		begin := slices.IndexFunc(gevs, func(ev trace.Event) bool { return ev.Kind == trace.EvBegin })
		if g != want || begin < 0 || gevs[begin].Peer != wantParent {
			t.Errorf("site %d: goroutine %#x, events %s, want goroutine %#x beginning with parent %#x", site, g, kindsString(gevs), want, wantParent)
		}
	}
}

// TestBubbleParent: the goroutine that runs a function passed to
// synctest.Test (which testing starts on the bubble's goroutine, neither
// of them seen by the shim) begins with the goroutine that called Test as
// parent, named by BubbleFunc on that goroutine before Test ran, and the
// id of that parent's n-th such child, as a subtest of T.Run does, then
// records EvBubble; a goroutine that the function starts by a go
// statement the shim does not see begins with none.
func TestBubbleParent(t *testing.T) {
	Read(5500, nil)
	parent := cur().id
	for _, site := range []uint32{5501, 5502} {
		synctest.Test(t, BubbleFunc(site+100, func(*testing.T) {
			Read(site, nil)
			onGoroutine(func() { Read(site+10, nil) })
		}))
	}
	evs := readTrace(t, tracePath)
	for k, site := range []uint32{5501, 5502, 5511} {
		var g uint64
		for _, ev := range evs {
			if ev.Site == site {
				g = ev.Goroutine
			}
		}
		want, wantParent, wantKinds := trace.ChildID(parent, 0, uint64(k)), parent, "Begin Bubble Read"
		if site == 5511 {
			want, wantParent, wantKinds = g, trace.NoParent, "Begin Below Creator Read"
		}
		gevs := goroutineEvents(evs, g)
		begin := slices.IndexFunc(gevs, func(ev trace.Event) bool { return ev.Kind == trace.EvBegin })
		if g != want || begin < 0 || gevs[begin].Peer != wantParent || kindsString(gevs) != wantKinds {
			t.Errorf("site %d: goroutine %#x, events %s, want goroutine %#x beginning with parent %#x, events %s", site, g, kindsString(gevs), want, wantParent, wantKinds)
		}
	}
}

// TestStackCreator: a goroutine's creator is its own "created by" line,
// not an ancestor's that GODEBUG=tracebackancestors prints after it.
func TestStackCreator(t *testing.T) {
	for _, c := range []struct {
		stack string
		gid   uint64
		run   bool
		ok    bool
	}{
		{"goroutine 5 [running]:\nmain.serve.func1()\n\t/a/main.go:16 +0x6a\ncreated by main.serve in goroutine 19\n\t/a/main.go:13 +0x59\n", 19, false, true},
		{"goroutine 5 [running]:\nmain.serve.func1()\n\t/a/main.go:16 +0x6a\ncreated by main.serve in goroutine 19\n\t/a/main.go:13 +0x59\n" +
			"[originating from goroutine 19]:\nmain.serve(...)\n\t/a/main.go:19 +0x59\ncreated by main.main in goroutine 1\n\t/a/main.go:24 +0x5f\n" +
			"[originating from goroutine 1]:\nmain.main(...)\n\t/a/main.go:27 +0x5f\n", 19, false, true},
		{"goroutine 8 [running]:\nshim.runSub.run()\n\t/a/x_test.go:3 +0x1\ncreated by testing.(*T).Run in goroutine 7\n\t/t/testing.go:1 +0x1\n" +
			"[originating from goroutine 7]:\ntesting.(*T).Run(...)\n\t/t/testing.go:1 +0x1\ncreated by testing.(*T).Run in goroutine 1\n\t/t/testing.go:1 +0x1\n", 7, true, true},
		{"goroutine 1 [running]:\nmain.main()\n\t/a/main.go:27 +0x5f\n", 0, false, false},
	} {
		gid, run, ok := stackCreator([]byte(c.stack))
		if gid != c.gid || run != c.run || ok != c.ok {
			t.Errorf("stackCreator(%q) = %d, %v, %v, want %d, %v, %v", c.stack, gid, run, ok, c.gid, c.run, c.ok)
		}
	}
}

// TestCreatorChain: the chain of a goroutine's creation is its own
// "created by" function, then the frames of its creation sections, one
// function per run of one package's; an ancestor's "created by" line adds
// nothing that the next section's first frame does not name.
func TestCreatorChain(t *testing.T) {
	const conn = "goroutine 9 [running]:\nexample.com/m.handler()\n\t/m/h.go:3 +0x1\nnet/http.(*conn).serve(...)\n\t/g/server.go:2 +0x1\ncreated by net/http.(*Server).Serve in goroutine 8\n\t/g/server.go:3 +0x2\n"
	for _, c := range []struct {
		stack string
		want  []string
	}{
		{conn, []string{"net/http.(*Server).Serve"}},
		{conn + "[originating from goroutine 8]:\nnet/http.(*Server).Serve(...)\n\t/g/server.go:3 +0x2\nnet/http.ListenAndServe(...)\n\t/g/server.go:9 +0x2\n" +
			"github.com/stripe/goproxy.(*Proxy).Run(...)\n\t/d/p.go:4 +0x3\ngithub.com/stripe/goproxy.Start.func1(...)\n\t/d/p.go:8 +0x3\ncreated by github.com/stripe/goproxy.Start in goroutine 7\n\t/d/p.go:8 +0x4\n" +
			"[originating from goroutine 7]:\ngithub.com/stripe/goproxy.Start(...)\n\t/d/p.go:8 +0x4\nexample.com/m.TestProxy(...)\n\t/m/p_test.go:5 +0x5\ntesting.tRunner(...)\n\t/t/testing.go:1 +0x1\n",
			[]string{"net/http.(*Server).Serve", "github.com/stripe/goproxy.(*Proxy).Run", "example.com/m.TestProxy", "testing.tRunner"}},
		{"goroutine 1 [running]:\nmain.main()\n\t/a/main.go:27 +0x5f\n", nil},
	} {
		if got := creatorChain([]byte(c.stack)); !slices.Equal(got, c.want) {
			t.Errorf("creatorChain(%q) = %q, want %q", c.stack, got, c.want)
		}
	}
	// Bounded: at most trace.MaxCreators functions, each cut.
	long := "goroutine 9 [running]:\ncreated by " + strings.Repeat("x", 2*trace.MaxCreatorLen) + ".F in goroutine 8\n\t/a.go:1 +0x1\n[originating from goroutine 8]:\n"
	for i := range 2 * trace.MaxCreators {
		long += fmt.Sprintf("p%d.F(...)\n\t/a.go:1 +0x1\n", i)
	}
	got := creatorChain([]byte(long))
	if len(got) != trace.MaxCreators || len(got[0]) != trace.MaxCreatorLen || got[1] != "p0.F" {
		t.Errorf("creatorChain of a long chain = %d functions, the first %d bytes, the second %q; want %d, %d bytes, p0.F", len(got), len(got[0]), got[1], trace.MaxCreators, trace.MaxCreatorLen)
	}
}

// TestRunSubtestParentAncestors runs TestRunSubtestParent in a process
// of its own with GODEBUG=tracebackancestors=1, where every stack the
// shim reads also holds its creator's stack at the creation.
func TestRunSubtestParentAncestors(t *testing.T) {
	if os.Getenv("PRECOG_SHIM_ANCESTORS_CHILD") != "" {
		t.Skip("the child process")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestRunSubtestParent$", "-test.count=1")
	cmd.Env = append(os.Environ(), "GODEBUG=tracebackancestors=1", "PRECOG_SHIM_ANCESTORS_CHILD=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("TestRunSubtestParent with tracebackancestors=1: %v\n%s", err, out)
	}
}

// TestRealSubtests runs TestStart under the testing package itself.
func TestRealSubtests(t *testing.T) {
	ids := make(map[string]uint64)
	for _, name := range []string{"a", "b"} {
		ids[name] = nextTestID("TestRealSubtests/" + name)
		t.Run(name, func(t *testing.T) {
			TestStart(t)
			Read(5100, nil)
			TestLog(5101, t)             // a use of the test's T
			TestLog(5102, new(int))      // not a test's T: nothing
			TestLog(5103, testing.TB(t)) // through an interface
		})
	}
	evs := readTrace(t, tracePath)
	for _, name := range []string{"a", "b"} {
		gevs := goroutineEvents(evs, ids[name])
		for _, ev := range gevs {
			if ev.Kind == trace.EvTestEnd && trace.Outcome(ev.Value) != trace.Pass {
				t.Errorf("%s: outcome %v", name, trace.Outcome(ev.Value))
			}
		}
		// The T named at site 0 right after TestStart is the one
		// TestLog's reads are of, directly and through an interface.
		var named, log, iface *trace.Event
		for i, ev := range gevs {
			switch {
			case ev.Kind == trace.EvRead && ev.Site == 0 && i > 0 && gevs[i-1].Kind == trace.EvTestStart:
				named = &gevs[i]
			case ev.Site == 5101:
				log = &gevs[i]
			case ev.Site == 5103:
				iface = &gevs[i]
			case ev.Site == 5102:
				t.Errorf("%s: TestLog recorded a value that is not a test's T", name)
			}
		}
		if named == nil || log == nil || iface == nil || named.Addr == 0 || log.Addr != named.Addr || iface.Addr != named.Addr {
			t.Errorf("%s: T named %v, TestLog reads %v and %v; events %s", name, named, log, iface, kindsString(gevs))
		}
	}
}

// TestTableEviction runs more goroutines at once than the goroutine table
// has slots: evicted states must be found again, not re-adopted.
func TestTableEviction(t *testing.T) {
	n := 1<<tableBits + 500
	if testing.Short() {
		n = 1<<tableBits/2 + 100
	}
	cur() // adopt the test goroutine before counting adoptions
	states.mu.Lock()
	adoptedBefore := states.adopted
	states.mu.Unlock()
	var (
		ready, done sync.WaitGroup
		release     = make(chan struct{})
		ids         = make([]uint64, n)
	)
	for i := range ids {
		ids[i] = Go(6001)
		ready.Add(1)
		done.Add(1)
		go func(id uint64) {
			Begin(id)
			// done.Done after End: the overflow check below must see
			// every child's state already given back.
			defer done.Done()
			defer End()
			Read(6002, nil)
			ready.Done()
			<-release
			Read(6003, nil)
		}(ids[i])
	}
	ready.Wait()
	close(release)
	done.Wait()
	states.mu.Lock()
	adopted := states.adopted - adoptedBefore
	children := map[uint64]bool{}
	for _, id := range ids {
		children[id] = true
	}
	overflow := 0
	for _, g := range states.overflow {
		if children[g.id] {
			overflow++
		}
	}
	states.mu.Unlock()
	if adopted != 0 {
		t.Errorf("%d goroutines adopted: evicted states were lost", adopted)
	}
	if overflow != 0 {
		t.Errorf("%d states of ended goroutines left in the overflow map", overflow)
	}
	evs := readTrace(t, tracePath)
	count := map[uint64]int{}
	for _, ev := range siteEvents(evs, 6002, 6004) {
		count[ev.Goroutine]++
	}
	for _, id := range ids {
		if count[id] != 2 {
			t.Fatalf("goroutine %#x recorded %d reads, want 2", id, count[id])
		}
	}
}

func TestGCEpoch(t *testing.T) {
	from := seqs.n.Load()
	var e0 uint64
	onGoroutine(func() {
		Read(7001, nil)
		e0 = gcEpoch.Load()
		for deadline := time.Now().Add(10 * time.Second); gcEpoch.Load() == e0 && time.Now().Before(deadline); {
			runtime.GC()
			time.Sleep(time.Millisecond)
		}
		Read(7002, nil)
	})
	evs := since(readTrace(t, tracePath), from)
	var g uint64
	for _, ev := range evs {
		if ev.Site == 7002 {
			g = ev.Goroutine
		}
	}
	var last trace.Event
	for _, ev := range goroutineEvents(evs, g) {
		if ev.Site == 7002 {
			break
		}
		last = ev
	}
	if last.Kind != trace.EvGCEpoch {
		t.Fatalf("event before the read after a GC is %v, want GCEpoch", last.Kind)
	}
	if now := gcEpoch.Load(); last.Value <= e0 || last.Value > now {
		t.Errorf("GCEpoch %d, epoch %d before the collection and %d now", last.Value, e0, now)
	}
}

// TestBeginWithoutGo checks the parent recorded for a goroutine whose Go
// the shim never saw: NoParent, not a made-up one.
func TestBeginWithoutGo(t *testing.T) {
	from := seqs.n.Load()
	const id = 0x5eed
	onGoroutine(func() {
		Begin(id)
		defer End()
		Read(9001, nil)
	})
	evs := goroutineEvents(since(readTrace(t, tracePath), from), id)
	if len(evs) > 0 && evs[0].Kind == trace.EvGCEpoch {
		evs = evs[1:] // a collection finished since this state last recorded
	}
	if len(evs) == 0 || evs[0].Kind != trace.EvBegin || evs[0].Peer != trace.NoParent {
		t.Errorf("goroutine %#x recorded %v, want Begin parent=none first", id, evs)
	}
}

// TestBelow: goroutines that plain go statements (code precog does not
// instrument) started below a recorded goroutine, directly and through
// one that records nothing (a server's accept loop), begin with no parent
// and then name the recorded one in EvBelow.
func TestBelow(t *testing.T) {
	// The package's other tests may have spent the process's dumps.
	ancestry.mu.Lock()
	ancestry.dumps = 0
	ancestry.mu.Unlock()
	from := seqs.n.Load()
	const id = 0x5eef
	done := make(chan struct{})     // closed once both have recorded
	recorded := make(chan struct{}) // a send from each after its Read
	var wg sync.WaitGroup
	wg.Add(4)
	go func() { // as an instrumented go statement's child
		Begin(id)
		defer End()
		defer wg.Done()
		go func() { // records nothing
			defer wg.Done()
			go func() {
				defer wg.Done()
				Read(9102, nil)
				recorded <- struct{}{}
			}()
			<-done // its creator lives until it was adopted
		}()
		go func() {
			defer wg.Done()
			Read(9103, nil)
			recorded <- struct{}{}
		}()
		<-done
	}()
	<-recorded
	<-recorded
	close(done)
	wg.Wait()
	evs := since(readTrace(t, tracePath), from)
	for _, site := range []uint32{9102, 9103} {
		var g uint64
		for _, ev := range evs {
			if ev.Site == site {
				g = ev.Goroutine
			}
		}
		// A collection may end anywhere among them (its EvGCEpoch).
		gevs := slices.DeleteFunc(goroutineEvents(evs, g), func(ev trace.Event) bool { return ev.Kind == trace.EvGCEpoch })
		if len(gevs) < 2 || gevs[0].Kind != trace.EvBegin || gevs[0].Peer != trace.NoParent || gevs[1].Kind != trace.EvBelow || gevs[1].Peer != id {
			t.Errorf("site %d: goroutine %#x recorded %s, want Begin parent=none, then Below parent=%#x", site, g, kindsString(gevs), uint64(id))
		}
		// Its creator, a function literal of this test (the chain
		// stops there without GODEBUG=tracebackancestors).
		const creator = "github.com/precog-dev/precog/shim.TestBelow.func1"
		if len(gevs) < 3 || gevs[2].Kind != trace.EvCreator || !strings.HasPrefix(gevs[2].Name, creator) {
			t.Errorf("site %d: goroutine %#x recorded %s, want Begin, Below, then Creator naming %s...: %v", site, g, kindsString(gevs), creator, gevs)
		}
	}
}

// TestPendingForks forks more children than states.kids has slots, at two
// sites in turn, before any of them begins, and begins them in reverse
// order: each child's Begin must name its parent (from its slot, or from
// states.parent where another child held the slot), and its id must
// follow childID with the per-site counts, as the map of counts gave.
func TestPendingForks(t *testing.T) {
	from := seqs.n.Load()
	var parent uint64
	var ids []uint64
	counts := map[uint32]uint64{}
	onGoroutine(func() {
		parent = cur().id
		for i := range 3 * kidSlots {
			site := uint32(9101 + i%3/2) // 9101, 9101, 9102, ...
			ids = append(ids, Go(site))
			if want := childID(parent, site, counts[site]); ids[i] != want {
				t.Errorf("fork %d at site %d: id %#x, want childID(parent, %d, %d) = %#x", i, site, ids[i], site, counts[site], want)
			}
			counts[site]++
		}
		var wg sync.WaitGroup
		for _, id := range slices.Backward(ids) {
			wg.Add(1)
			go func() {
				Begin(id)
				defer End()
				wg.Done()
			}()
			wg.Wait() // one at a time: Begin in reverse order of the forks
		}
	})
	states.mu.Lock()
	left, used := 0, 0
	for _, id := range ids {
		if _, ok := states.parent[id]; ok {
			left++
		}
		if s := states.kids[id&(kidSlots-1)]; s.used && s.child == id {
			used++
		}
	}
	states.mu.Unlock()
	if left != 0 || used != 0 {
		t.Errorf("%d children left in states.parent, %d in states.kids after every Begin", left, used)
	}
	begins := map[uint64]uint64{}
	for _, ev := range since(readTrace(t, tracePath), from) {
		if ev.Kind == trace.EvBegin {
			begins[ev.Goroutine] = ev.Peer
		}
	}
	for i, id := range ids {
		if p, ok := begins[id]; !ok || p != parent {
			t.Fatalf("child %d (%#x): Begin with parent %#x (recorded %v), want %#x", i, id, p, ok, parent)
		}
	}
}

// TestNextSpawn checks nextSpawn against a map of counts per site, over
// forks that go back and forth between sites and a state bound to a new
// goroutine (newState), which counts from 0 again.
func TestNextSpawn(t *testing.T) {
	g := &gstate{}
	want := map[uint32]uint64{}
	sites := []uint32{0, 7, 7, 7, 3, 7, 0, 0, 3, 9, 7, 3}
	for round := range 2 {
		for i, site := range sites {
			if n := g.nextSpawn(site); n != want[site] {
				t.Fatalf("round %d, fork %d at site %d: count %d, want %d", round, i, site, n, want[site])
			}
			want[site]++
		}
		states.mu.Lock()
		states.free = append(states.free, g)
		if h := newState(0, 0); h != g {
			t.Fatal("newState did not take the free state")
		}
		states.mu.Unlock()
		clear(want)
	}
}

// TestRan: Ran records EvRan on the goroutine whose t.Run returned, after
// the subtest's events, and that goroutine's next access carries its seq
// (before, the access after t.Run carried the seq of the last sync event
// before the call, and read as if it came before the subtest).
func TestRan(t *testing.T) {
	Read(5600, nil)
	if !Ran(5601, t.Run("sub", func(*testing.T) { Read(5602, nil) })) {
		t.Fatal("the subtest failed")
	}
	Read(5603, nil)
	evs := readTrace(t, tracePath)
	at := func(site uint32, k trace.Kind) int {
		return slices.IndexFunc(evs, func(ev trace.Event) bool { return ev.Site == site && ev.Kind == k })
	}
	before, sub, ran, after := at(5600, trace.EvRead), at(5602, trace.EvRead), at(5601, trace.EvRan), at(5603, trace.EvRead)
	if before < 0 || sub < 0 || ran < 0 || after < 0 {
		t.Fatalf("events at 5600 %d, 5602 %d, Ran at 5601 %d, 5603 %d: want all", before, sub, ran, after)
	}
	// The global order is (Seq, Sub); the file holds each goroutine's
	// events in batches.
	less := func(a, b trace.Event) bool { return a.Seq < b.Seq || a.Seq == b.Seq && a.Sub < b.Sub }
	b, s, r, a := evs[before], evs[sub], evs[ran], evs[after]
	if !less(b, s) || !less(s, r) || !less(r, a) || a.Seq != r.Seq || a.Goroutine != r.Goroutine || b.Goroutine != r.Goroutine {
		t.Errorf("read %v, subtest's read %v, Ran %v, read after %v: want them in that order, the last with Ran's goroutine and seq", b, s, r, a)
	}
}
