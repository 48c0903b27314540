package shim

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/precog-dev/precog/shim/plan"
	"github.com/precog-dev/precog/shim/trace"
)

// The package's tests run with control's hooks in place and, outside the
// control tests, no plan loaded. Each control test loads its plan with
// installControl, as init does, and unloads it when done.
func init() { hookControl() }

// loadPlan installs p with a result file in a temporary directory and
// returns the file's path; the plan is unloaded when the test ends.
func loadPlan(t *testing.T, p *plan.Plan) string {
	t.Helper()
	p.Result = filepath.Join(t.TempDir(), "result.jsonl")
	if _, err := installControl(p); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(uninstallControl)
	return p.Result
}

func readResult(t *testing.T, path string) []plan.Record {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs []plan.Record
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r plan.Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("result line %q: %v", sc.Text(), err)
		}
		recs = append(recs, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return recs
}

// final returns the result's final record (Event "" if it has none).
func final(recs []plan.Record) plan.Record {
	for _, r := range recs {
		if r.Event == "final" {
			return r
		}
	}
	return plan.Record{}
}

// passedSeq returns the seq at which step p passed, 0 if it did not.
func passedSeq(recs []plan.Record, p plan.Point) uint64 {
	for _, r := range recs {
		if r.Event == "passed" && r.Point != nil && keyOf(*r.Point) == keyOf(p) {
			return r.Seq
		}
	}
	return 0
}

// roots numbers the root goroutines of the test programs.
var roots atomic.Uint64

// freshRoot returns a logical id for the root goroutine of a test program
// that no other goroutine of the process has had: a logical id is recorded
// by one goroutine per process (go test -count runs the tests again in the
// same process). The test programs' goroutines take their ids from it.
func freshRoot() uint64 { return 0x726f6f7400000000 + roots.Add(1) }

// spawn starts f as an instrumented goroutine forked at site and returns
// its logical id and a channel closed when it returns. It is Go, Begin and
// End as the instrumenter writes them, except that the child waits for
// start, so that a test can load a plan naming the child's id first.
func spawn(site uint32, start <-chan struct{}, f func()) (uint64, <-chan struct{}) {
	id := Go(site)
	done := make(chan struct{})
	go func() {
		defer close(done)
		<-start
		Begin(id)
		defer End()
		f()
	}()
	return id, done
}

// TestForceWriteOrder forces the order of two goroutines' writes to one
// variable, both ways, and checks it by the value left behind and by the
// passes in the result file.
func TestForceWriteOrder(t *testing.T) {
	const base = 10000
	for _, aFirst := range []bool{true, false} {
		for range 20 {
			var x int
			start := make(chan struct{})
			a, aDone := spawn(base+1, start, func() { W(base+3, &x, 1) })
			b, bDone := spawn(base+2, start, func() { W(base+4, &x, 2) })
			pa, pb := plan.Point{G: a, Site: base + 3}, plan.Point{G: b, Site: base + 4}
			edge := plan.Edge{Before: pa, After: pb}
			want := 2
			if !aFirst {
				edge, want = plan.Edge{Before: pb, After: pa}, 1
			}
			res := loadPlan(t, &plan.Plan{Mode: "force", Edges: []plan.Edge{edge}})
			close(start)
			<-aDone
			<-bDone
			uninstallControl()
			if x != want {
				t.Fatalf("edge %v: x = %d, want %d", edge, x, want)
			}
			recs := readResult(t, res)
			if f := final(recs); f.State != plan.Confirmed {
				t.Fatalf("final %+v, want confirmed", f)
			}
			if sb, sa := passedSeq(recs, edge.After), passedSeq(recs, edge.Before); sa == 0 || sb <= sa {
				t.Errorf("passes at seq %d (before) and %d (after)", sa, sb)
			}
		}
	}
}

// TestForceAtomicOrderInTrace forces the order of two goroutines' atomic
// stores, both ways, and checks it in the trace.
func TestForceAtomicOrderInTrace(t *testing.T) {
	const base = 10100
	for _, aFirst := range []bool{true, false} {
		var x int64
		start := make(chan struct{})
		a, aDone := spawn(base+1, start, func() { AtomicStoreInt64(base+3, &x, 1) })
		b, bDone := spawn(base+2, start, func() { AtomicStoreInt64(base+4, &x, 2) })
		pa, pb := plan.Point{G: a, Site: base + 3}, plan.Point{G: b, Site: base + 4}
		edge := plan.Edge{Before: pa, After: pb}
		if !aFirst {
			edge = plan.Edge{Before: pb, After: pa}
		}
		res := loadPlan(t, &plan.Plan{Mode: "force", Edges: []plan.Edge{edge}})
		close(start)
		<-aDone
		<-bDone
		uninstallControl()
		if f := final(readResult(t, res)); f.State != plan.Confirmed {
			t.Fatalf("final %+v", f)
		}
		var seqA, seqB uint64
		for _, ev := range readTrace(t, tracePath) {
			switch {
			case ev.Kind == trace.EvAtomicStore && ev.Goroutine == a:
				seqA = ev.Seq
			case ev.Kind == trace.EvAtomicStore && ev.Goroutine == b:
				seqB = ev.Seq
			}
		}
		if seqA == 0 || seqB == 0 || (seqA < seqB) != aFirst {
			t.Errorf("a first %v: trace has a's store at seq %d, b's at %d", aFirst, seqA, seqB)
		}
	}
}

// procInfo is the MySQL proc_info kernel (testdata/kernels/mysql) written
// as the instrumenter writes it: the session stores &state, runs, and
// stores nil (S3); SHOW PROCESSLIST checks for nil (S1), then reads again
// and uses the value (S2). Instead of dereferencing nil it reports whether
// it would have.
type procInfo struct{ p *string }

const (
	siteSession = 10201
	siteShow    = 10202
	siteSet     = 10203
	siteS1      = 10204
	siteS2      = 10205
	siteS3      = 10206
)

// runProcInfo runs the kernel once in goroutines forked by root; force, if
// not nil, is called with the ids of the session and show goroutines before
// they start. It reports whether SHOW PROCESSLIST read nil at S2.
func runProcInfo(root uint64, execute time.Duration, force func(session, show uint64)) (crashed bool) {
	done := make(chan bool)
	go func() {
		Begin(root) // a chosen id: the test knows its children's ids
		defer End()
		var thd procInfo
		running := make(chan struct{})
		start := make(chan struct{})
		session, sDone := spawn(siteSession, start, func() {
			state := "executing"
			W(siteSet, &thd.p, &state)
			close(running)
			time.Sleep(execute)
			W(siteS3, &thd.p, nil)
		})
		var nilUse bool
		show, shDone := spawn(siteShow, start, func() {
			<-running
			if *R(siteS1, &thd.p) != nil {
				p := *R(siteS2, &thd.p)
				nilUse = p == nil // *p would crash
			}
		})
		if force != nil {
			force(session, show)
		}
		close(start)
		<-sDone
		<-shDone
		done <- nilUse
	}()
	return <-done
}

// procInfoPlan is the ConMem-v order for the Con-NULL pair (S3, S2): the
// check S1 before the nil store S3, S3 before the use S2.
func procInfoPlan(session, show uint64) *plan.Plan {
	s1 := plan.Point{G: show, Site: siteS1}
	s2 := plan.Point{G: show, Site: siteS2}
	s3 := plan.Point{G: session, Site: siteS3}
	return &plan.Plan{Mode: "force", Edges: []plan.Edge{{Before: s1, After: s3}, {Before: s3, After: s2}}}
}

func TestForceProcInfo(t *testing.T) {
	const runs = 100
	const execute = 200 * time.Microsecond
	natural := 0
	for range runs {
		if raceEnabled {
			break // the unforced kernel races, as it should
		}
		if runProcInfo(freshRoot(), execute, nil) {
			natural++
		}
	}
	forced := 0
	for i := range runs {
		var res string
		crashed := runProcInfo(freshRoot(), execute, func(session, show uint64) {
			res = loadPlan(t, procInfoPlan(session, show))
		})
		uninstallControl()
		if crashed {
			forced++
		}
		if f := final(readResult(t, res)); f.State != plan.Confirmed {
			t.Errorf("run %d: final %+v", i, f)
		}
	}
	if raceEnabled {
		t.Logf("proc_info nil use: %d of %d runs forced (natural rate not measured under -race)", forced, runs)
	} else {
		t.Logf("proc_info nil use: %d of %d runs natural, %d of %d forced", natural, runs, forced, runs)
	}
	if forced != runs {
		t.Errorf("forced order crashed %d of %d runs", forced, runs)
	}
}

func TestForceTimeout(t *testing.T) {
	const base = 10300
	var x int
	start := make(chan struct{})
	a, aDone := spawn(base+1, start, func() { W(base+3, &x, 1) })
	ghost := plan.Point{G: 12345, Site: base + 4} // no such goroutine
	res := loadPlan(t, &plan.Plan{Mode: "force", TimeoutMS: 50,
		Edges: []plan.Edge{{Before: ghost, After: plan.Point{G: a, Site: base + 3}}}})
	t0 := time.Now()
	close(start)
	<-aDone
	if d := time.Since(t0); d < 50*time.Millisecond || d > 2*time.Second {
		t.Errorf("the wait took %v, want about 50ms", d)
	}
	if x != 1 {
		t.Error("the write did not happen after the timeout")
	}
	recs := readResult(t, res)
	f := final(recs)
	if f.State != plan.TimedOut || !strings.Contains(f.Reason, "never reached") || !strings.Contains(f.Reason, "waited 50ms") {
		t.Errorf("final %+v", f)
	}
	var timeout *plan.Record
	for i := range recs {
		if recs[i].Event == "timeout" {
			timeout = &recs[i]
		}
	}
	if timeout == nil || timeout.Before == nil || *timeout.Before != ghost {
		t.Errorf("timeout record %+v", timeout)
	}
}

// TestForceTimeoutBlocked: the predecessor's goroutine is alive but held
// elsewhere; the reason says where it was last seen.
func TestForceTimeoutBlocked(t *testing.T) {
	const base = 10400
	var x, y int
	start, release := make(chan struct{}), make(chan struct{})
	a, aDone := spawn(base+1, start, func() {
		W(base+3, &y, 1)
		<-release
		W(base+4, &x, 1)
	})
	b, bDone := spawn(base+2, start, func() { W(base+5, &x, 2) })
	res := loadPlan(t, &plan.Plan{Mode: "force", TimeoutMS: 30, Edges: []plan.Edge{
		{Before: plan.Point{G: a, Site: base + 3}, After: plan.Point{G: b, Site: base + 6}}, // never reached by b: unused
		{Before: plan.Point{G: a, Site: base + 4}, After: plan.Point{G: b, Site: base + 5}},
	}})
	close(start)
	<-bDone
	close(release)
	<-aDone
	recs := readResult(t, res)
	f := final(recs)
	if f.State != plan.TimedOut || !strings.Contains(f.Reason, "never reached site 10404") ||
		!strings.Contains(f.Reason, "last watched point was site 10403") || !strings.Contains(f.Reason, "still running") {
		t.Errorf("final %+v", f)
	}
	// a reaches the step after the timeout: the result says so.
	if last := recs[len(recs)-1]; last.Event != "reached" || last.Point.Site != base+4 {
		t.Errorf("last record %+v, want a's late arrival at site %d", last, base+4)
	}
}

// TestForceDiverged: the predecessor's goroutine ends without reaching its
// step, so the waiter is let go at once rather than after the timeout.
func TestForceDiverged(t *testing.T) {
	const base = 10500
	var x int
	start := make(chan struct{})
	aStarted := make(chan struct{})
	a, aDone := spawn(base+1, start, func() { close(aStarted) })
	b, bDone := spawn(base+2, start, func() {
		<-aStarted
		W(base+4, &x, 2)
	})
	res := loadPlan(t, &plan.Plan{Mode: "force", TimeoutMS: 5000, Edges: []plan.Edge{
		{Before: plan.Point{G: a, Site: base + 3}, After: plan.Point{G: b, Site: base + 4}},
	}})
	t0 := time.Now()
	close(start)
	<-aDone
	<-bDone
	if d := time.Since(t0); d > 2*time.Second {
		t.Errorf("the diverged run took %v", d)
	}
	f := final(readResult(t, res))
	if f.State != plan.Diverged || !strings.Contains(f.Reason, "ended") {
		t.Errorf("final %+v", f)
	}
}

func TestForceSelfWaitDiverges(t *testing.T) {
	const base = 10600
	var x int
	start := make(chan struct{})
	a, aDone := spawn(base+1, start, func() {
		W(base+3, &x, 1)
		W(base+4, &x, 2)
	})
	res := loadPlan(t, &plan.Plan{Mode: "force", TimeoutMS: 5000, Edges: []plan.Edge{
		{Before: plan.Point{G: a, Site: base + 4}, After: plan.Point{G: a, Site: base + 3}},
	}})
	close(start)
	<-aDone
	if f := final(readResult(t, res)); f.State != plan.Diverged || !strings.Contains(f.Reason, "its own goroutine") {
		t.Errorf("final %+v", f)
	}
}

func TestPlanErrors(t *testing.T) {
	p := plan.Point{G: 1, Site: 5}
	q := plan.Point{G: 2, Site: 6}
	for _, tc := range []struct {
		plan plan.Plan
		want string
	}{
		{plan.Plan{Mode: "nope"}, "unknown control mode"},
		{plan.Plan{Mode: "force", Edges: []plan.Edge{{Before: p, After: q}, {Before: q, After: p}}}, "cycle"},
		{plan.Plan{Mode: "force", Edges: []plan.Edge{{Before: p, After: plan.Point{G: 3}}}}, "site 0"},
		{plan.Plan{Mode: "perturb", Delay: 0.7, Yield: 0.7}, "probabilities"},
		{plan.Plan{Mode: "replay"}, "empty order"},
		{plan.Plan{Mode: "replay", Order: []plan.Point{p, p}}, "both"},
	} {
		if _, err := installControl(&tc.plan); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", tc.plan, err, tc.want)
		}
	}
	if ctl.Load() != nil {
		t.Error("a bad plan was installed")
	}
}

// TestForceLockOrder forces which of two goroutines takes a mutex first;
// the mutex step passes after Lock returned, so the order of the critical
// sections follows.
func TestForceLockOrder(t *testing.T) {
	const base = 10700
	for _, aFirst := range []bool{true, false} {
		var (
			mu    sync.Mutex
			order []int
		)
		start := make(chan struct{})
		crit := func(me int, site uint32) func() {
			return func() {
				Lock(site, &mu)
				order = append(order, me)
				Unlock(site+10, &mu)
			}
		}
		a, aDone := spawn(base+1, start, crit(1, base+3))
		b, bDone := spawn(base+2, start, crit(2, base+4))
		edge := plan.Edge{Before: plan.Point{G: a, Site: base + 3}, After: plan.Point{G: b, Site: base + 4}}
		want := []int{1, 2}
		if !aFirst {
			edge.Before, edge.After = plan.Point{G: b, Site: base + 4}, plan.Point{G: a, Site: base + 3}
			want = []int{2, 1}
		}
		res := loadPlan(t, &plan.Plan{Mode: "force", Edges: []plan.Edge{edge}})
		close(start)
		<-aDone
		<-bDone
		uninstallControl()
		if len(order) != 2 || order[0] != want[0] {
			t.Errorf("critical sections ran in order %v, want %v", order, want)
		}
		if f := final(readResult(t, res)); f.State != plan.Confirmed {
			t.Errorf("final %+v", f)
		}
	}
}

func TestPerturbDecisionsPerSeed(t *testing.T) {
	mk := func(seed uint64) *perturbState {
		return &perturbState{seed: seed, delay: 0.3, yield: 0.3, maxDelayUS: 500}
	}
	a, b, c := mk(1), mk(1), mk(2)
	same, n := 0, 0
	for g := uint64(1); g < 5; g++ {
		for site := uint32(1); site < 20; site++ {
			for i := uint64(0); i < 5; i++ {
				pt := plan.Point{G: g, Site: site, N: i}
				x, dx := a.decide(pt)
				y, dy := b.decide(pt)
				if x != y || dx != dy {
					t.Fatalf("seed 1 decided %d %v and %d %v at %+v", x, dx, y, dy, pt)
				}
				if dx > 500*time.Microsecond {
					t.Fatalf("delay %v over the cap", dx)
				}
				z, dz := c.decide(pt)
				if z == x && dz == dx {
					same++
				}
				n++
			}
		}
	}
	if same > n*3/4 {
		t.Errorf("seeds 1 and 2 agree at %d of %d points", same, n)
	}
}

// TestPerturbFollowsDecisions runs a small program under a seed: every
// point's delay or yield is the one decide makes for it, so the same seed
// makes the same decisions at the same points (with the logical ids of a
// process, which are the same from run to run: see TestControlProcesses).
func TestPerturbFollowsDecisions(t *testing.T) {
	const base = 10800
	root := freshRoot()
	var res string
	done := make(chan struct{})
	go func() {
		defer close(done)
		Begin(root)
		defer End()
		var mu sync.Mutex
		var x int64
		start := make(chan struct{})
		var dones []<-chan struct{}
		for i := range 3 {
			_, d := spawn(base+1, start, func() {
				for j := range 10 {
					Lock(base+2, &mu)
					AtomicAddInt64(base+3, &x, int64(i*j))
					Unlock(base+4, &mu)
				}
			})
			dones = append(dones, d)
		}
		res = loadPlan(t, &plan.Plan{Mode: "perturb", Seed: 7, Delay: 0.2, Yield: 0.3, MaxDelayUS: 100})
		close(start)
		for _, d := range dones {
			<-d
		}
	}()
	<-done
	uninstallControl()
	got := map[plan.Point]string{}
	for _, r := range readResult(t, res) {
		if r.Event == "delay" || r.Event == "yield" {
			got[*r.Point] = r.Event + time.Duration(r.WaitUS*1000).String()
		}
	}
	s := perturbState{seed: 7, delay: 0.2, yield: 0.3, maxDelayUS: 100}
	want := map[plan.Point]string{}
	for i := range 3 {
		g := childID(root, base+1, uint64(i))
		for n := range uint64(10) {
			for site, kind := range map[uint32]string{base + 2: "Lock", base + 3: "AtomicStore", base + 4: "Unlock"} {
				pt := plan.Point{G: g, Site: site, N: n, Kind: kind}
				switch act, d := s.decide(pt); act {
				case actDelay:
					want[pt] = "delay" + d.String()
				case actYield:
					want[pt] = "yield0s"
				}
			}
		}
	}
	if len(want) == 0 || !mapsEqual(got, want) {
		t.Errorf("the run made %d decisions, the seed %d:\n%v\n%v", len(got), len(want), got, want)
	}
}

func mapsEqual(a, b map[plan.Point]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestPerturbBudget(t *testing.T) {
	const base = 10900
	start := make(chan struct{})
	_, done := spawn(base+1, start, func() {
		var x int64
		for range 200 {
			AtomicAddInt64(base+2, &x, 1)
		}
	})
	res := loadPlan(t, &plan.Plan{Mode: "perturb", Seed: 1, Delay: 1, MaxDelayUS: 1000, BudgetMS: 5})
	t0 := time.Now()
	close(start)
	<-done
	if d := time.Since(t0); d > time.Second {
		t.Errorf("200 delays under a 5ms budget took %v", d)
	}
	var spent bool
	for _, r := range readResult(t, res) {
		spent = spent || r.Event == "budget"
	}
	if !spent {
		t.Error("no budget record")
	}
}

// racyAppends runs three goroutines forked by a goroutine with the fixed id
// root, each appending its number to a shared list under a mutex five
// times, with yields between: the order of the list varies from run to
// run.
func racyAppends(root uint64, load func()) []int {
	const base = 11000
	var list []int
	done := make(chan struct{})
	go func() {
		defer close(done)
		Begin(root)
		defer End()
		var mu sync.Mutex
		start := make(chan struct{})
		var dones []<-chan struct{}
		for i := range 3 {
			_, d := spawn(base+1, start, func() {
				for range 5 {
					Lock(base+2, &mu)
					list = append(list, i)
					Unlock(base+3, &mu)
					time.Sleep(time.Duration(i*7%5) * time.Microsecond)
				}
			})
			dones = append(dones, d)
		}
		if load != nil {
			load()
		}
		close(start)
		for _, d := range dones {
			<-d
		}
	}()
	<-done
	return list
}

// orderOf turns the sync events with sites of the goroutines in ids, with
// seqs in (from, to], into a replay order: each event is the n-th of its
// goroutine at its site. pipeline/control does the same for drivers.
func orderOf(evs []trace.Event, ids map[uint64]bool, from, to uint64) []plan.Point {
	var sel []trace.Event
	for _, ev := range evs {
		if ids[ev.Goroutine] && ev.Kind.IsSync() && ev.Site != 0 && ev.Seq > from && ev.Seq <= to {
			sel = append(sel, ev)
		}
	}
	sort.Slice(sel, func(i, j int) bool { return sel[i].Seq < sel[j].Seq })
	type gs struct {
		g    uint64
		site uint32
	}
	count := map[gs]uint64{}
	var order []plan.Point
	for _, ev := range sel {
		k := gs{ev.Goroutine, ev.Site}
		order = append(order, plan.Point{G: ev.Goroutine, Site: ev.Site, N: count[k], Kind: ev.Kind.String()})
		count[k]++
	}
	return order
}

// children returns the logical ids of racyAppends' goroutines under root.
func children(root uint64) []uint64 {
	return []uint64{childID(root, 11001, 0), childID(root, 11001, 1), childID(root, 11001, 2)}
}

// recordRacy runs racyAppends under root and returns its order and list.
func recordRacy(t *testing.T, root uint64) ([]plan.Point, []int) {
	ids := map[uint64]bool{}
	for _, id := range children(root) {
		ids[id] = true
	}
	from := seqs.n.Load()
	list := racyAppends(root, nil)
	return orderOf(readTrace(t, tracePath), ids, from, seqs.n.Load()), list
}

// renamed returns order with the goroutines of root's program renamed to
// those of root2's. The replays run under other roots than the recording,
// since one logical id is recorded by one goroutine per process; a replay
// in a new process keeps the ids.
func renamed(order []plan.Point, root, root2 uint64) []plan.Point {
	m := map[uint64]uint64{}
	for i, id := range children(root) {
		m[id] = children(root2)[i]
	}
	out := append([]plan.Point(nil), order...)
	for i := range out {
		out[i].G = m[out[i].G]
	}
	return out
}

func TestReplayRacyOrder(t *testing.T) {
	root := freshRoot()
	order, recorded := recordRacy(t, root)
	if len(order) != 30 {
		t.Fatalf("the order has %d events, want 30", len(order))
	}
	for i := range 3 {
		var res string
		root2 := freshRoot()
		p := &plan.Plan{Mode: "replay", Order: renamed(order, root, root2)}
		from := seqs.n.Load()
		got := racyAppends(root2, func() { res = loadPlan(t, p) })
		uninstallControl()
		if !intsEqual(got, recorded) {
			t.Errorf("replay %d appended %v, the recorded run %v", i, got, recorded)
		}
		// The replayed run's trace has the recorded order too.
		ids := map[uint64]bool{}
		for _, id := range children(root2) {
			ids[id] = true
		}
		again := orderOf(readTrace(t, tracePath), ids, from, seqs.n.Load())
		if len(again) != len(p.Order) {
			t.Errorf("replay %d: %d events in the trace, %d in the order", i, len(again), len(p.Order))
		}
		for j := range again {
			if j < len(p.Order) && again[j] != p.Order[j] {
				t.Errorf("replay %d: trace position %d is %+v, the order's %+v", i, j, again[j], p.Order[j])
				break
			}
		}
		recs := readResult(t, res)
		if f := final(recs); f.State != plan.Confirmed {
			t.Errorf("replay %d: final %+v", i, f)
		}
	}
}

func TestReplayTimeout(t *testing.T) {
	root, root2 := freshRoot(), freshRoot()
	order, _ := recordRacy(t, root)
	order = renamed(order, root, root2)
	// A position that no goroutine reaches, early in the order: the rest
	// waits for it and gives up.
	ghost := plan.Point{G: 999, Site: 11002, Kind: "Lock"}
	order = append(order[:5:5], append([]plan.Point{ghost}, order[5:]...)...)
	var res string
	racyAppends(root2, func() { res = loadPlan(t, &plan.Plan{Mode: "replay", Order: order, TimeoutMS: 30}) })
	uninstallControl()
	f := final(readResult(t, res))
	if f.State != plan.TimedOut || !strings.Contains(f.Reason, "position 5") {
		t.Errorf("final %+v", f)
	}
}

func intsEqual(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestSelectPlan forces a select's case: SelectPlan names it and gives a
// timeout, and the case that ran is in the result.
func TestSelectPlan(t *testing.T) {
	const base = 11100
	start := make(chan struct{})
	ready := make(chan int, 1)
	other := make(chan int, 1)
	var took int
	a, done := spawn(base+1, start, func() {
		// The select protocol, written out: try the forced case alone
		// until the timeout, then run the select as written.
		force, timeout := SelectPlan(base + 2)
		if force == 1 && timeout != nil {
			select {
			case v := <-other:
				SelectRecv(base+2, 1, ChanAddr(other), true)
				took = v
				return
			case <-timeout:
			}
		}
		select {
		case v := <-ready:
			SelectRecv(base+2, 0, ChanAddr(ready), true)
			took = v
		case v := <-other:
			SelectRecv(base+2, 1, ChanAddr(other), true)
			took = v
		}
	})
	res := loadPlan(t, &plan.Plan{Mode: "force", Selects: []plan.Select{{Point: plan.Point{G: a, Site: base + 2}, Case: 1}}})
	ready <- 1
	close(start)
	time.Sleep(5 * time.Millisecond)
	other <- 2
	<-done
	if took != 2 {
		t.Errorf("the select took the value %d, want the forced case's 2", took)
	}
	var sel *plan.Record
	for _, r := range readResult(t, res) {
		if r.Event == "select" {
			sel = &r
		}
	}
	if sel == nil || *sel.Case != 1 || *sel.Took != 1 {
		t.Errorf("select record %+v", sel)
	}
}

func TestNamedSites(t *testing.T) {
	c := &control{}
	for _, s := range []uint32{1, 63, 64, 1000, maxBitmapSite - 1, maxBitmapSite, 1<<32 - 1} {
		c.name(s)
	}
	for _, s := range []uint32{1, 63, 64, 1000, maxBitmapSite - 1, maxBitmapSite, 1<<32 - 1} {
		if !c.named(s) {
			t.Errorf("site %d not named", s)
		}
	}
	for _, s := range []uint32{0, 2, 65, 999, maxBitmapSite + 1, 1<<32 - 2} {
		if c.named(s) {
			t.Errorf("site %d named", s)
		}
	}
	if len(c.sites) > maxBitmapSite/64 {
		t.Errorf("bitmap of %d words", len(c.sites))
	}
}

func TestNoPlanNoWait(t *testing.T) {
	if ctl.Load() != nil || accessGates.Load() {
		t.Fatal("a plan is loaded")
	}
	force, timeout := SelectPlan(1)
	if force != -1 || timeout != nil {
		t.Errorf("SelectPlan without a plan = %d, %v", force, timeout)
	}
}

var sinkInt int

// BenchmarkAccessNoPlan measures a recorded write and read with control's
// hooks in place and no plan, and with a plan that names no access site;
// compare with the same under PRECOG_CONTROL unset (the shim's own
// benchmarks).
func BenchmarkAccessNoPlan(b *testing.B) {
	var x int
	cur()
	for b.Loop() {
		W(1, &x, 1)
		sinkInt = *R(2, &x)
	}
}

func BenchmarkAccessForcePlanElsewhere(b *testing.B) {
	var x int
	cur()
	if _, err := installControl(&plan.Plan{Mode: "force", Edges: []plan.Edge{
		{Before: plan.Point{G: 1, Site: 900000}, After: plan.Point{G: 2, Site: 900001}}}}); err != nil {
		b.Fatal(err)
	}
	defer uninstallControl()
	for b.Loop() {
		W(1, &x, 1)
		sinkInt = *R(2, &x)
	}
}

func BenchmarkLockUnlockNoPlan(b *testing.B) {
	var mu sync.Mutex
	cur()
	for b.Loop() {
		Lock(3, &mu)
		Unlock(4, &mu)
	}
}

// consumers runs a producer sending 1..9 on an unbuffered channel to three
// consumers, under a goroutine with the fixed id root, and returns what
// each consumer received: which one gets which value varies from run to
// run.
func consumers(root uint64, load func()) [3][]int {
	const base = 11200
	var got [3][]int
	done := make(chan struct{})
	go func() {
		defer close(done)
		Begin(root)
		defer End()
		ch := make(chan int)
		start := make(chan struct{})
		_, pDone := spawn(base+1, start, func() {
			for v := 1; v <= 9; v++ {
				Send(base+2, ch, v)
			}
			Close(base+3, ch)
		})
		var dones []<-chan struct{}
		for i := range 3 {
			_, d := spawn(base+4, start, func() {
				for {
					v, ok := Recv2(base+5, ch)
					if !ok {
						return
					}
					got[i] = append(got[i], v)
					time.Sleep(time.Duration(v%3) * 10 * time.Microsecond)
				}
			})
			dones = append(dones, d)
		}
		if load != nil {
			load()
		}
		close(start)
		<-pDone
		for _, d := range dones {
			<-d
		}
	}()
	<-done
	return got
}

func consumerIDs(root uint64) []uint64 {
	return []uint64{childID(root, 11201, 0), childID(root, 11204, 0), childID(root, 11204, 1), childID(root, 11204, 2)}
}

// TestReplayChannelReceivers replays a program whose unbuffered channel
// has three receivers. This is replay's weak spot: a receive is recorded
// when it returns, which is not always the order in which the receivers
// took their values, so a replay may give a receiver another value than
// the recording, and then its turn may never come. The test checks that
// every replay ends, within its timeouts, with a final state, and logs
// how the replays went.
func TestReplayChannelReceivers(t *testing.T) {
	root := freshRoot()
	ids := map[uint64]bool{}
	for _, id := range consumerIDs(root) {
		ids[id] = true
	}
	from := seqs.n.Load()
	recorded := consumers(root, nil)
	order := orderOf(readTrace(t, tracePath), ids, from, seqs.n.Load())
	if len(order) != 9+1+9+3 {
		t.Fatalf("the order has %d events, want 22", len(order))
	}
	states := map[string]int{}
	same := 0
	for range 5 {
		root2 := freshRoot()
		m := map[uint64]uint64{}
		for j, id := range consumerIDs(root) {
			m[id] = consumerIDs(root2)[j]
		}
		p := &plan.Plan{Mode: "replay", TimeoutMS: 100, Order: append([]plan.Point(nil), order...)}
		for j := range p.Order {
			p.Order[j].G = m[p.Order[j].G]
		}
		var res string
		got := consumers(root2, func() { res = loadPlan(t, p) })
		uninstallControl()
		if fmt.Sprint(got) == fmt.Sprint(recorded) {
			same++
		}
		f := final(readResult(t, res))
		if f.State == "" {
			t.Errorf("a replay ended without a final state")
		}
		states[f.State]++
	}
	t.Logf("replays: %v; %d of 5 gave each receiver the values it got in the recording", states, same)
}

// TestForceCloseBeforeSend forces a Con-Dangling order on channels: the
// close of a channel before another goroutine's send on it, which panics.
// Channel steps pass at arrival, so neither side waits for the other's
// operation to complete.
func TestForceCloseBeforeSend(t *testing.T) {
	if raceEnabled {
		// The close passes at arrival, before it happens, so the race
		// detector sees the close and the send unordered: the bug.
		t.Skip("the race detector reports the forced close and send, as it should")
	}
	const base = 11300
	for _, force := range []bool{false, true} {
		ch := make(chan int, 1)
		start := make(chan struct{})
		sent := make(chan struct{})
		var panicked any
		a, aDone := spawn(base+1, start, func() {
			defer func() { panicked = recover() }()
			Send(base+3, ch, 1)
			close(sent)
		})
		b, bDone := spawn(base+2, start, func() {
			if !force {
				<-sent // the program's own order: close after the send
			}
			Close(base+4, ch)
		})
		var res string
		if force {
			res = loadPlan(t, &plan.Plan{Mode: "force", Edges: []plan.Edge{
				{Before: plan.Point{G: b, Site: base + 4}, After: plan.Point{G: a, Site: base + 3}}}})
		}
		close(start)
		<-aDone
		<-bDone
		uninstallControl()
		if got := panicked != nil; got != force {
			t.Errorf("forced %v: send panicked: %v", force, panicked)
		}
		if force {
			if f := final(readResult(t, res)); f.State != plan.Confirmed {
				t.Errorf("final %+v", f)
			}
		}
	}
}

// TestPerturbAccessSites delays at a memory access a plan names; the sync
// events around it are left alone.
func TestPerturbAccessSites(t *testing.T) {
	const base = 11400
	start := make(chan struct{})
	var mu sync.Mutex
	var x int
	_, done := spawn(base+1, start, func() {
		for i := range 20 {
			Lock(base+2, &mu)
			W(base+3, &x, i)
			_ = *R(base+4, &x)
			Unlock(base+5, &mu)
		}
	})
	res := loadPlan(t, &plan.Plan{Mode: "perturb", Seed: 1, Delay: 1, MaxDelayUS: 10, Sites: []uint32{base + 3}})
	close(start)
	<-done
	uninstallControl()
	n := 0
	for _, r := range readResult(t, res) {
		if r.Event == "delay" {
			if r.Point.Site != base+3 || r.Point.Kind != "Write" {
				t.Errorf("delay at %+v", r.Point)
			}
			n++
		}
	}
	if n != 20 {
		t.Errorf("%d delays, want 20", n)
	}
}

// TestForceInstance orders the third of a goroutine's writes at one site
// before another goroutine's write.
func TestForceInstance(t *testing.T) {
	const base = 11500
	for range 10 {
		var x int
		start := make(chan struct{})
		a, aDone := spawn(base+1, start, func() {
			for i := 1; i <= 3; i++ {
				time.Sleep(100 * time.Microsecond)
				W(base+3, &x, i)
			}
		})
		b, bDone := spawn(base+2, start, func() { W(base+4, &x, 10) })
		res := loadPlan(t, &plan.Plan{Mode: "force", Edges: []plan.Edge{
			{Before: plan.Point{G: a, Site: base + 3, N: 2}, After: plan.Point{G: b, Site: base + 4}}}})
		close(start)
		<-aDone
		<-bDone
		uninstallControl()
		if x != 10 {
			t.Fatalf("x = %d: b's write came before a's third", x)
		}
		if f := final(readResult(t, res)); f.State != plan.Confirmed {
			t.Fatalf("final %+v", f)
		}
	}
}

// TestForceBudget: the budget bounds a wait before its timeout does.
func TestForceBudget(t *testing.T) {
	const base = 11600
	var x int
	start := make(chan struct{})
	a, done := spawn(base+1, start, func() { W(base+2, &x, 1) })
	res := loadPlan(t, &plan.Plan{Mode: "force", TimeoutMS: 5000, BudgetMS: 30, Edges: []plan.Edge{
		{Before: plan.Point{G: 4242, Site: base + 3}, After: plan.Point{G: a, Site: base + 2}}}})
	t0 := time.Now()
	close(start)
	<-done
	if d := time.Since(t0); d > 2*time.Second {
		t.Errorf("the wait took %v under a 30ms budget", d)
	}
	if f := final(readResult(t, res)); f.State != plan.TimedOut || !strings.Contains(f.Reason, "budget of 30ms ran out") {
		t.Errorf("final %+v", f)
	}
}

// TestPlanElsewhereDoesNotAllocate: under a plan, the points it does not
// name cost no allocation.
func TestPlanElsewhereDoesNotAllocate(t *testing.T) {
	var (
		x  int64
		mu sync.Mutex
		ch = make(chan int, 1)
	)
	cur()
	loadPlan(t, &plan.Plan{Mode: "force", Edges: []plan.Edge{
		{Before: plan.Point{G: 1, Site: 900000}, After: plan.Point{G: 2, Site: 900001}}}})
	allocs := testing.AllocsPerRun(1000, func() {
		_ = *R(3101, &x)
		W(3102, &x, 7)
		Lock(3103, &mu)
		Unlock(3104, &mu)
		Send(3105, ch, 1)
		Recv(3106, ch)
		AtomicAddInt64(3107, &x, 1)
	})
	if allocs != 0 {
		t.Errorf("%v allocations per run", allocs)
	}
}

// TestForceTogether releases two goroutines that reach their steps 5ms
// apart at the same instant: both steps pass, and the one that arrived
// first left after the other arrived, not before.
func TestForceTogether(t *testing.T) {
	const base = 10100
	m := map[int]int{}
	var mu sync.Mutex // the test's map writes must not really race
	var left [2]time.Time
	var arrivedLate time.Time
	start := make(chan struct{})
	a, aDone := spawn(base+1, start, func() {
		MW(base+3, m)
		left[0] = time.Now()
		mu.Lock()
		m[1] = 1
		mu.Unlock()
	})
	b, bDone := spawn(base+2, start, func() {
		time.Sleep(5 * time.Millisecond)
		arrivedLate = time.Now()
		MW(base+4, m)
		left[1] = time.Now()
		mu.Lock()
		m[2] = 2
		mu.Unlock()
	})
	pa, pb := plan.Point{G: a, Site: base + 3}, plan.Point{G: b, Site: base + 4}
	res := loadPlan(t, &plan.Plan{Mode: "force", Together: [][]plan.Point{{pa, pb}}})
	close(start)
	<-aDone
	<-bDone
	uninstallControl()
	recs := readResult(t, res)
	if f := final(recs); f.State != plan.Confirmed {
		t.Fatalf("final %+v, want confirmed", f)
	}
	if passedSeq(recs, pa) == 0 || passedSeq(recs, pb) == 0 {
		t.Errorf("a step did not pass: %+v", recs)
	}
	// arrivedLate is ordered by <-bDone above (spawn closes done when the
	// goroutine returns).
	late := arrivedLate
	if left[0].Before(late) {
		t.Errorf("the first goroutine left %v before the second arrived", late.Sub(left[0]))
	}
	if _, err := installControl(&plan.Plan{Mode: "force", Together: [][]plan.Point{{pa, {G: a, Site: base + 5}}}}); err == nil || !strings.Contains(err.Error(), "two steps of goroutine") {
		t.Errorf("a group with two steps of one goroutine: %v", err)
	}
	uninstallControl()
}

// TestForceReadThenBusy: a write waits for another goroutine's read, whose
// goroutine then blocks without an instrumented event until the write is
// done. The read is passed lazily, at that goroutine's next event, which
// never comes here; the waiter, woken when the read is let go, passes it
// after its grace (wokenGrace), finding the reader blocked, rather than
// running into the plan's timeout. The timeout is long, so that only a
// waiter that waits for the reader's next event reaches it, whatever the
// load.
func TestForceReadThenBusy(t *testing.T) {
	const base = 10400
	var x, y int // the steps need not touch one variable: no data race under -race
	start, reader, release := make(chan struct{}), make(chan struct{}), make(chan struct{})
	a, aDone := spawn(base+1, start, func() {
		<-reader // the writer waits at its step first, mostly
		_ = *R(base+3, &y)
		<-release
	})
	b, bDone := spawn(base+2, start, func() { W(base+4, &x, 2) })
	pr, pw := plan.Point{G: a, Site: base + 3}, plan.Point{G: b, Site: base + 4}
	res := loadPlan(t, &plan.Plan{Mode: "force", TimeoutMS: 60_000, Edges: []plan.Edge{{Before: pr, After: pw}}})
	close(start)
	time.Sleep(20 * time.Millisecond)
	close(reader)
	<-bDone
	close(release)
	<-aDone
	uninstallControl()
	if f := final(readResult(t, res)); f.State != plan.Confirmed {
		t.Errorf("final %+v, want confirmed", f)
	}
}

// TestForceSeeded: a force plan with a seed yields at the sync operations
// that are not its steps, as perturb mode does, and still forces its
// order; without a seed it perturbs nothing.
func TestForceSeeded(t *testing.T) {
	const base = 10500
	for _, seed := range []uint64{0, 7} {
		var x int
		var mu sync.Mutex
		start := make(chan struct{})
		a, aDone := spawn(base+1, start, func() {
			for range 10 {
				Lock(base+5, &mu)
				Unlock(base+6, &mu)
			}
			W(base+3, &x, 1)
		})
		b, bDone := spawn(base+2, start, func() { W(base+4, &x, 2) })
		pa, pb := plan.Point{G: a, Site: base + 3}, plan.Point{G: b, Site: base + 4}
		res := loadPlan(t, &plan.Plan{Mode: "force", Seed: seed, Yield: 1, Edges: []plan.Edge{{Before: pa, After: pb}}})
		close(start)
		<-aDone
		<-bDone
		uninstallControl()
		recs := readResult(t, res)
		yields := 0
		for _, r := range recs {
			if r.Event == "yield" {
				yields++
			}
		}
		if f := final(recs); f.State != plan.Confirmed || x != 2 {
			t.Errorf("seed %d: final %+v, x = %d; want confirmed and 2", seed, f, x)
		}
		if want := map[uint64]int{0: 0, 7: 20}[seed]; yields != want {
			t.Errorf("seed %d: %d yields, want %d (one per Lock and Unlock)", seed, yields, want)
		}
	}
}

// TestForceAccessAddresses checks that the result file has its version on
// the plan line and that a force step's "reached" line names the memory
// its access touched (a map's header for a map access), so that a driver
// can tell two forced accesses to one location from accesses at the same
// sites to different memory.
func TestForceAccessAddresses(t *testing.T) {
	const base = 10300
	x, y := new(int), new(int)
	m := map[int]int{}
	start := make(chan struct{})
	a, aDone := spawn(base+1, start, func() { W(base+3, x, 1) })
	b, bDone := spawn(base+2, start, func() {
		_ = *R(base+4, y)
		MW(base+5, m)[1] = 1
	})
	pa, pb, pm := plan.Point{G: a, Site: base + 3}, plan.Point{G: b, Site: base + 4}, plan.Point{G: b, Site: base + 5}
	res := loadPlan(t, &plan.Plan{Mode: "force", Edges: []plan.Edge{{Before: pa, After: pb}, {Before: pb, After: pm}}})
	close(start)
	<-aDone
	<-bDone
	uninstallControl()
	recs := readResult(t, res)
	if len(recs) == 0 || recs[0].Event != plan.EvPlan || recs[0].Version != plan.ResultVersion {
		t.Fatalf("first line %+v, want the plan line with version %d", recs[0], plan.ResultVersion)
	}
	want := map[pointKey]uint64{
		keyOf(pa): uint64(uintptr(unsafe.Pointer(x))),
		keyOf(pb): uint64(uintptr(unsafe.Pointer(y))),
		keyOf(pm): uint64(uintptr(*(*unsafe.Pointer)(unsafe.Pointer(&m)))),
	}
	for _, r := range recs {
		if r.Event != plan.EvReached {
			continue
		}
		if w := want[keyOf(*r.Point)]; r.Addr != w {
			t.Errorf("step %v reached at address %#x, want %#x", *r.Point, r.Addr, w)
		}
		delete(want, keyOf(*r.Point))
	}
	if len(want) > 0 {
		t.Errorf("steps never reached: %v", want)
	}
}
