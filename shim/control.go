package shim

// Control: the shim can hold goroutines back at instrumented points so that
// a run takes an interleaving a driver chose. It is a gate around the real
// operations, never a replacement: a goroutine waits at a point until the
// plan lets it go, and every wait has a timeout, so a wrong plan cannot hang
// the program. The plan (PRECOG_CONTROL), its three modes (force, perturb,
// replay), its points and the result file are package shim/plan's; this
// file and control_*.go carry them out.
//
// # Points
//
// A point (plan.Point) is the n-th arrival of goroutine g at site. Logical
// ids are the shim's (see childID and testID in state.go).
//
// When a point is passed matters for force. A goroutine arrives at a point
// before the operation (it waits there for the point's predecessors); it
// passes the point
//   - after the operation for what is recorded after it happened (Lock,
//     RLock, TryLock, WGWait, OnceDo, CondWait, the atomics) and for writes
//     W (the store is done). Write, which reports a store already done,
//     cannot be held back before it;
//   - after the operation too for the releases recorded before they happen
//     (Unlock, RUnlock, WGAdd, WGDone, CondSignal, CondBroadcast,
//     ChanClose; recorded first so that the crash they may cause is in the
//     trace): a successor
//     let go when the event was recorded could run before the release (a
//     WGAdd forced after a WGDone added first, and the Done did not panic;
//     a send forced after a close filled a buffered channel first, and did
//     not panic).
//     A release that panics never passes: its successors wait until their
//     timeout or until the panic ends the process;
//   - for a send, once its value is in the channel (Send tries it
//     without blocking first), or, if it would block, just before it
//     blocks: its successor may be its receive. A successor let go at
//     arrival could close the channel, or find it empty, before a send
//     that would not have blocked. Outside force, and in a synctest
//     bubble, at arrival still;
//   - at arrival for the other channel operations, selects and go
//     statements: they may block until a successor runs. Cancelling's
//     EvCancel passes when recorded, before the program calls the cancel
//     function (not changed; the detectors' orders put a cancel nowhere);
//   - lazily for reads (R, Read, MR, MW, MI), whose access the caller makes
//     after the shim returns (R returns the pointer; the caller loads
//     through it): at the goroutine's next instrumented event or its end,
//     or at once if no step waits for it (the last step of a plan is often
//     the access that crashes). A successor that has waited readGrace
//     (1ms; 50ms under -race) since the read was let go (wokenGrace, 50ms,
//     for a successor already waiting then) asks the runtime where the
//     reader is (goroutineState): blocked where the shim records nothing
//     (a channel, select, sleep, a sync primitive, a system call), or
//     gone, it made its load before and makes no event until something
//     else happens, and the successor passes the read; running or
//     runnable, it may still be between R and its load (a goroutine, or
//     its thread on a loaded machine, can be descheduled there for any
//     time), and the successor waits on, asking again under a backoff,
//     until the plan's timeout, which ends the run timed out, never
//     confirmed. A wall-clock grace alone decided before: on a loaded
//     machine the successor stored before the reader loaded
//     (TestForceProcInfo failed 11 of 400 times at load 9-18;
//     bench/RESULTS.md, "Lazy reads"). A reader that spins on its read
//     makes no event but the read's repeats, which the repeat filter
//     (repeat.go) leaves out: the first repeat reaches control all the
//     same, and passes the read (passAgain). What is left: the reader's
//     next event proves its load only if that event is in a later
//     expression. Go loads the operands of one expression after all its
//     calls (f(*R(s1, &a), g()) loads *R(s1, &a) after g returned), so an
//     event in g, or a blocking call in g, passes the read before its
//     load (the fix is the rewriter's: a read whose value the shim loads).
//
// Memory accesses reach control only while the plan names sites (force's
// edges, perturb's sites): otherwise an access costs one more load and
// branch than recording alone (accessGates), and then a call and a bitmap
// test, about 2.5ns (BenchmarkAccessNoPlan, BenchmarkAccessForcePlanElsewhere).
//
// Replay waits for a point's turn at arrival and passes it when recorded
// (a release once it returned), except for operations that block until a
// later event of another goroutine (receive, select, WGWait, CondWait):
// they enter the operation once the blocking operations before them in the
// order have entered theirs, and wait for their turn after it, just before
// their event is recorded. Replay is exact for what locks, atomics, sends and single
// receivers order. Several goroutines receiving from one channel are its
// weak spot: a receive is recorded when it returns, not when it took its
// value, so a replay may hand the values out differently and then time out
// (TestReplayChannelReceivers).
//
// A force plan with an order (plan.Plan.Until) follows the order the same
// way, while it forces its edges, but softly: where replay would end the
// run diverged or timed out, it writes a "left" line and lets the order
// go, and once the first Until positions passed it lets it go too
// ("replayed"); a point of the order after Until waits until then. The
// edges' confirmation waits for the order to be let go.
//
// # Selects
//
// SelectPlan(site) runs before an instrumented select and passes the gate.
// If the plan has a plan.Select for this arrival it returns the case to
// force and a channel closed after timeout_ms; else -1, nil. The case is the
// index SelectRecv and SelectSend report (the non-default clauses from 0 in
// source order), -1 for the default clause. The instrumented code
// (shim/rt) tries the forced clause alone until the channel
// closes, then runs the select as written. The result file gets a "select"
// line with the forced and the taken case.

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/precog-dev/precog/shim/plan"
	"github.com/precog-dev/precog/shim/trace"
)

const (
	defaultTimeout       = time.Second
	defaultBudget        = 10 * time.Second
	defaultPerturbBudget = time.Second
	defaultMaxDelay      = time.Millisecond
	// maxPerturbRecords caps the delay and yield lines of the result file.
	maxPerturbRecords = 10000
)

const (
	modeForce = iota
	modePerturb
	modeReplay
)

// ctl is the loaded plan, nil without one. Control's hooks run only if
// controlGate is set (at init, when PRECOG_CONTROL names a plan); they then
// load ctl, which tests swap in and out.
var ctl atomic.Pointer[control]

// accessGates is true while the plan names sites that memory accesses may
// reach: then every access asks control (ctlAccess).
var accessGates atomic.Bool

func init() {
	path := os.Getenv(plan.EnvVar)
	if path == "" {
		return
	}
	os.Unsetenv(plan.EnvVar)
	p, err := readPlan(path)
	if err == nil {
		_, err = installControl(p)
	}
	if err != nil {
		os.Stderr.WriteString("precog shim: no control: " + err.Error() + "\n")
		if p != nil && p.Result != "" {
			writeErrorResult(p.Result, err)
		}
		return
	}
	hookControl()
	enable()
}

// hookControl points the shim's hooks at control. It runs during package
// initialization only.
func hookControl() {
	controlGate = ctlGate
	selectPlan = ctlSelectPlan
}

func readPlan(path string) (*plan.Plan, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var p plan.Plan
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("reading plan %s: %w", path, err)
	}
	return &p, nil
}

func writeErrorResult(path string, err error) {
	f, ferr := os.Create(path)
	if ferr != nil {
		return
	}
	defer f.Close()
	line, _ := json.Marshal(plan.Record{Event: plan.EvFinal, State: plan.Rejected, Reason: err.Error()})
	f.Write(append(line, '\n'))
}

// A control is a loaded plan and the state of its run.
type control struct {
	mode    int
	timeout time.Duration
	budget  int64 // nanoseconds
	used    atomic.Int64
	start   time.Time

	outMu sync.Mutex
	out   *os.File

	// sites is a bitmap of the sites the plan names below maxBitmapSite,
	// big holds those above; all makes every site with a sync event count
	// (perturb without sites).
	sites []uint64
	big   map[uint32]bool
	all   bool

	mu     sync.Mutex
	gs     map[uint64]*gctl
	final  bool
	giveUp chan struct{} // closed with the final record: every wait ends

	stackMu  sync.Mutex
	stackBuf []byte // goroutineState's buffer, under stackMu

	force   forceState
	replay  replayState
	perturb perturbState
	// perturbing: a force plan with a seed also perturbs (perturb's
	// settings) the arrivals that are not its steps.
	perturbing bool
	// replaying: a force plan with an order (plan.Plan.Until) follows it
	// too, in replay's soft mode, until it is let go (replay.off).
	replaying bool
	selects   map[pointKey]int
}

// gctl is control's state for one goroutine, under control.mu. The
// goroutine's gstate points at it (gstate.ctl), so that the goroutine finds
// it without the lock; only the goroutine itself writes the fields that it
// reads so (pending, replay, turnAt).
type gctl struct {
	c       *control
	id      uint64
	counts  map[uint32]uint64 // arrivals so far per named site
	began   bool
	ended   bool
	last    plan.Point // the last named point reached
	lastK   trace.Kind
	lastT   time.Time
	seen    bool    // reached a named point
	pending *fpoint // force: the step to pass after the operation
	// release: pending is a release recorded before it happens
	// (releaseBefore), passed only once it returned (ctlReleased).
	release bool
	// again: pending is a read whose repeat the repeat filter lets
	// through to control once (passAgain): it passes the read.
	again     bool
	againSite uint32
	againAddr uintptr // not a pointer: addr must not escape (a local W stays on the stack)
	// send: pending is a send, passed by Send (ctlSendDue), released so
	// too.
	send   bool
	replay int      // replay: the position to pass when recorded, or -1
	turnAt bool     // replay: wait for the turn when recorded, not at arrival
	sel    *selWait // select forced at the last SelectPlan
	bubble bool     // the goroutine runs in a synctest bubble (gstate.bubble)
}

type selWait struct {
	pt    plan.Point
	force int
}

type pointKey struct {
	g    uint64
	site uint32
	n    uint64
}

func keyOf(p plan.Point) pointKey { return pointKey{p.G, p.Site, p.N} }

// installControl loads plan p, replacing any plan loaded before (tests load
// several, one at a time); the hooks must already point at control.
func installControl(p *plan.Plan) (*control, error) {
	c := &control{
		timeout: ms(p.TimeoutMS, defaultTimeout),
		budget:  int64(ms(p.BudgetMS, defaultBudget)),
		start:   time.Now(),
		gs:      make(map[uint64]*gctl),
		giveUp:  make(chan struct{}),
		selects: make(map[pointKey]int),
	}
	var gated bool // memory accesses may reach a named site
	switch p.Mode {
	case plan.Force:
		c.mode = modeForce
		if err := c.force.load(c, p.Edges, p.Together); err != nil {
			return nil, err
		}
		gated = len(p.Edges) > 0 || len(p.Together) > 0
		if len(p.Order) > 0 {
			// A recorded run's schedule to follow while forcing.
			c.replaying = true
			if err := c.replay.load(c, p.Order, p.Until, true); err != nil {
				return nil, err
			}
			c.replay.hold = make(map[uint64]bool, len(p.Hold))
			for _, g := range p.Hold {
				c.replay.hold[g] = true
			}
		}
		if p.Seed != 0 {
			// A seeded force plan perturbs the arrivals that are not
			// its steps, as perturb mode does: a retry of an order
			// that diverged takes another interleaving.
			c.perturbing = true
			if err := c.perturb.load(c, p); err != nil {
				return nil, err
			}
		}
	case plan.Perturb:
		c.mode = modePerturb
		c.budget = int64(ms(p.BudgetMS, defaultPerturbBudget))
		if err := c.perturb.load(c, p); err != nil {
			return nil, err
		}
		gated = len(p.Sites) > 0
	case plan.Replay:
		c.mode = modeReplay
		if err := c.replay.load(c, p.Order, 0, false); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("unknown control mode %q", p.Mode)
	}
	for _, s := range p.Selects {
		if s.Site == 0 {
			return nil, errors.New("select point with site 0")
		}
		c.name(s.Site)
		c.selects[keyOf(s.Point)] = s.Case
	}
	if p.Result != "" {
		f, err := os.OpenFile(p.Result, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o644)
		if err != nil {
			return nil, err
		}
		c.out = f
	}
	c.emit(plan.Record{Event: plan.EvPlan, Version: plan.ResultVersion, Mode: p.Mode, PID: os.Getpid()})
	if c.mode == modeForce && c.force.left == 0 && !c.replaying {
		c.mu.Lock()
		c.finish(plan.Confirmed, "the plan has no edges")
		c.mu.Unlock()
	}
	if old := ctl.Swap(c); old != nil {
		old.close()
	}
	installSuppress(c, p.Suppress)
	accessGates.Store(gated)
	return c, nil
}

// uninstallControl unloads the plan and closes its result file.
func uninstallControl() {
	accessGates.Store(false)
	installSuppress(nil, nil)
	if c := ctl.Swap(nil); c != nil {
		c.close()
	}
}

func (c *control) close() {
	c.mu.Lock()
	if !c.final {
		c.final = true
		close(c.giveUp)
	}
	c.mu.Unlock()
	c.outMu.Lock()
	if c.out != nil {
		c.out.Close()
		c.out = nil
	}
	c.outMu.Unlock()
}

func ms(n int, def time.Duration) time.Duration {
	if n <= 0 {
		return def
	}
	return time.Duration(n) * time.Millisecond
}

// maxBitmapSite bounds the bitmap of named sites (512 KiB): the
// instrumenter numbers sites from 1, so larger ids are rare.
const maxBitmapSite = 1 << 22

// name adds site to the named sites.
func (c *control) name(site uint32) {
	if site >= maxBitmapSite {
		if c.big == nil {
			c.big = make(map[uint32]bool)
		}
		c.big[site] = true
		return
	}
	w := int(site >> 6)
	if w >= len(c.sites) {
		c.sites = append(c.sites, make([]uint64, w+1-len(c.sites))...)
	}
	c.sites[w] |= 1 << (site & 63)
}

func (c *control) named(site uint32) bool {
	if w := int(site >> 6); w < len(c.sites) {
		return c.sites[w]&(1<<(site&63)) != 0
	}
	return c.big != nil && c.big[site]
}

// emit writes r as one line of the result file, with one write(2).
func (c *control) emit(r plan.Record) {
	r.T = time.Since(c.start).Microseconds()
	line, err := json.Marshal(r)
	if err != nil {
		return
	}
	line = append(line, '\n')
	c.outMu.Lock()
	if c.out != nil {
		c.out.Write(line)
	}
	c.outMu.Unlock()
}

// finish writes the final record and lets every wait go. c.mu is held.
func (c *control) finish(state, reason string) {
	if c.final {
		return
	}
	c.final = true
	close(c.giveUp)
	c.emit(plan.Record{Event: plan.EvFinal, State: state, Reason: reason})
}

// goroutine returns g's control state, making it. c.mu is held.
func (c *control) goroutine(g *gstate) *gctl {
	if gc := c.own(g); gc != nil {
		gc.bubble = g.bubble
		return gc
	}
	gc := c.gs[g.id]
	if gc == nil {
		gc = &gctl{c: c, id: g.id, replay: -1}
		c.gs[g.id] = gc
	}
	gc.bubble = g.bubble
	g.ctl = unsafe.Pointer(gc)
	return gc
}

// own returns g's control state if it has one under plan c. Only g's own
// goroutine calls it.
func (c *control) own(g *gstate) *gctl {
	if gc := (*gctl)(g.ctl); gc != nil && gc.c == c {
		return gc
	}
	return nil
}

// due reports whether gc has a step to pass after its operation. Only gc's
// goroutine calls it.
func (gc *gctl) due() bool { return gc != nil && (gc.pending != nil || gc.replay >= 0) }

// arrive counts an arrival of gc at site and returns its instance. c.mu
// is held.
func (gc *gctl) arrive(site uint32, k trace.Kind) plan.Point {
	if gc.counts == nil {
		gc.counts = make(map[uint32]uint64)
	}
	n := gc.counts[site]
	gc.counts[site] = n + 1
	gc.last = plan.Point{G: gc.id, Site: site, N: n, Kind: k.String()}
	gc.lastK, gc.lastT, gc.seen = k, time.Now(), true
	return gc.last
}

// wait waits for ch to close, at most the timeout and what is left of the
// budget. It reports false if it gave up, with why. c.mu is held; it is
// released while waiting.
func (c *control) wait(ch <-chan struct{}) (ok bool, why string) {
	d := min(c.timeout, time.Duration(c.budget-c.used.Load()))
	if d <= 0 {
		return false, "the control budget of " + time.Duration(c.budget).String() + " is used up"
	}
	if c.waitFor(ch, d) {
		return true, ""
	}
	if d < c.timeout {
		return false, "the control budget of " + time.Duration(c.budget).String() + " ran out"
	}
	return false, "waited " + d.String()
}

// waitFor waits at most d for ch to close (or the run to be decided),
// counting the time against the budget. c.mu is held; it is released while
// waiting.
func (c *control) waitFor(ch <-chan struct{}, d time.Duration) (ok bool) {
	c.mu.Unlock()
	t0 := nanotime()
	if cur().bubble {
		ok = pollUntil(ch, c.giveUp, t0+int64(d)) // the caller checks c.final
	} else {
		timer := time.NewTimer(d)
		select {
		case <-ch:
			ok = true
		case <-c.giveUp:
			ok = true // the caller checks c.final
		case <-timer.C:
		}
		timer.Stop()
	}
	c.used.Add(nanotime() - t0)
	c.mu.Lock()
	return ok
}

// timedOut ends the run after a wait at a gate gave up with reason. A
// goroutine of a testing/synctest bubble held at a gate is not durably
// blocked (it yields or sleeps in a system call, see pollUntil), so the
// bubble's clock stands still while it waits: when the step it waited for
// needs the clock to move, no run of the program can take the order, and
// the run diverged. c.mu is held.
func (c *control) timedOut(reason string) {
	if cur().bubble {
		c.finish(plan.Diverged, reason+"; "+bubbleHeld)
		return
	}
	c.finish(plan.TimedOut, reason)
}

// bubbleHeld is why a wait of a bubble goroutine that gave up diverged.
const bubbleHeld = "the waiting goroutine runs in a synctest bubble, whose clock does not advance while control holds a goroutine: the order needs virtual time to pass first, which the program cannot do"

// describe says what control saw of goroutine id, for a wait that gave up
// on its point p. c.mu is held.
func (c *control) describe(p plan.Point) string {
	gc := c.gs[p.G]
	g := "goroutine " + strconv.FormatUint(p.G, 10)
	if gc == nil || (!gc.began && !gc.seen && !gc.ended) {
		// otlptracegrpc's Stop (held-out rehearsal 49) started, then
		// waited in sdk/trace, uninstrumented, for the goroutine control
		// held: the question "did it start?" sent the reader astray.
		return g + " never reached an instrumented point control watches: it did not start, or started under another id in this run, or waits in code precog does not instrument, perhaps for a goroutine control holds"
	}
	s := g
	switch n := gc.counts[p.Site]; {
	case n > p.N:
		s += " had already passed site " + u32(p.Site) + " instance " + u64(p.N)
	case n == 0:
		s += " never reached site " + u32(p.Site)
	default:
		s += " reached site " + u32(p.Site) + " " + u64(n) + " times, not instance " + u64(p.N)
	}
	if gc.seen {
		s += "; its last watched point was site " + u32(gc.last.Site) + " instance " + u64(gc.last.N) +
			" (" + gc.lastK.String() + ") " + time.Since(gc.lastT).Round(time.Microsecond).String() + " ago"
	}
	if gc.ended {
		s += "; it has ended"
	} else {
		s += "; it is still running (blocked, or busy elsewhere)"
	}
	return s
}

func u32(x uint32) string { return strconv.FormatUint(uint64(x), 10) }
func u64(x uint64) string { return strconv.FormatUint(x, 10) }

// passAtArrival reports whether a point of kind k is passed when reached
// rather than when its event is recorded (see Points in the doc above).
func passAtArrival(k trace.Kind) bool {
	switch k {
	case trace.EvChanMake, trace.EvChanSend, trace.EvChanRecv, trace.EvSelect,
		trace.EvFork, trace.EvTaskGo, trace.EvFuncEnter, trace.EvFuncExit:
		return true
	}
	return false
}

// passLazily reports whether a point of kind k is an access the caller
// makes after the shim call returns (R, MR, MW, MI): it is passed at the
// goroutine's next instrumented event or end, or by a successor that
// found the goroutine blocked after readGrace (see Points).
func passLazily(k trace.Kind) bool {
	switch k {
	case trace.EvRead, trace.EvMapRead, trace.EvMapWrite, trace.EvMapIter:
		return true
	}
	return false
}

// readGrace (grace_norace.go, grace_race.go) is how long a successor
// waits for a lazily passed step whose goroutine has reached it but not
// made another event since, before it asks where that goroutine is (see
// Points): the access itself takes nanoseconds, and the first look at the
// goroutine's state stops the world.

// wokenGrace is the grace of a successor that was already waiting when
// the read was let go: it gives the reader time to be scheduled and reach
// its next event, and pass the read itself, which orders the read before
// the successor for the race detector too (a pass by the successor does
// not), before the world is stopped to look at it.
const wokenGrace = 50 * time.Millisecond

// The hooks. ctlGate is the gate (gate.go) of sync operations; ctlAccess
// that of memory accesses; ctlRecording and ctlRecorded run just before and
// after a sync event is appended; ctlSelectPlan and ctlSelected are the
// select's.

func ctlGate(g *gstate, site uint32, k trace.Kind, addr uintptr) {
	c := ctl.Load()
	if c == nil {
		return
	}
	if site == 0 {
		switch {
		case k == trace.EvBegin:
			c.begin(g)
		case k == trace.EvEnd, k == trace.EvTestEnd && g.testOnly:
			c.end(g)
		}
		return
	}
	if c.own(g).due() {
		c.flush(g) // a TryRLock that failed records nothing: its step is passed now
	}
	if !c.all && !c.named(site) {
		return
	}
	c.arrival(g, site, k, addr)
}

// ctlAccess is the gate of a memory access of kind k to addr (a map's
// header for map accesses).
func ctlAccess(g *gstate, site uint32, k trace.Kind, addr unsafe.Pointer) {
	c := ctl.Load()
	if c == nil {
		return
	}
	if gc := c.own(g); gc.due() {
		again := gc.again && k == trace.EvRead && site == gc.againSite && uintptr(addr) == gc.againAddr
		c.flush(g) // the access before this one has happened
		if again {
			return // a repeat the recording left out: no arrival (passAgain)
		}
	}
	if c.named(site) {
		c.arrival(g, site, k, uintptr(addr))
	}
}

func ctlRecording(g *gstate) {
	c := ctl.Load()
	if c == nil {
		return
	}
	if gc := c.own(g); gc == nil || !gc.turnAt {
		return
	}
	c.mu.Lock()
	if gc := c.own(g); gc.turnAt {
		gc.turnAt = false
		c.replay.waitTurn(c, gc.replay)
	}
	c.mu.Unlock()
}

func ctlRecorded(g *gstate) {
	c := ctl.Load()
	if c == nil || !c.own(g).due() {
		return
	}
	c.flush(g)
}

// ctlReleased runs after a release recorded before it happened
// (releaseBefore) has returned: its step passes now.
func ctlReleased(g *gstate) {
	c := ctl.Load()
	if c == nil || !c.own(g).due() {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if gc := c.own(g); gc != nil {
		gc.release, gc.send = false, false
		c.passPending(gc)
	}
}

// ctlSendDue reports whether the send g has just recorded is a force step
// that passes once its value is in the channel (Send tries it first, then
// calls ctlReleased).
func ctlSendDue(g *gstate) bool {
	c := ctl.Load()
	if c == nil {
		return false
	}
	gc := c.own(g)
	return gc != nil && gc.send && gc.pending != nil
}

// arrival handles g's arrival at a named site, whose operation touches
// addr (the memory of an access, a map, a sync object; nil if none).
func (c *control) arrival(g *gstate, site uint32, k trace.Kind, addr uintptr) {
	c.mu.Lock()
	defer c.mu.Unlock()
	gc := c.goroutine(g)
	c.passPending(gc)
	pt := gc.arrive(site, k)
	if k == trace.EvSelect {
		gc.sel = nil
		if cs, ok := c.selects[keyOf(pt)]; ok {
			gc.sel = &selWait{pt: pt, force: cs}
		}
	}
	if c.mode == modeForce {
		if c.replaying && !c.final {
			c.replay.arrive(c, gc, pt, k)
		}
		if c.perturbing && !c.final && c.force.points[keyOf(pt)] == nil {
			c.perturb.arrive(c, gc, pt, k)
		}
		c.force.arrive(c, gc, pt, k, addr)
		if p := gc.pending; p != nil && p.lazy && k == trace.EvRead {
			gc.passAgain(g, site, addr)
		}
		return
	}
	if c.final {
		return
	}
	switch c.mode {
	case modeReplay:
		c.replay.arrive(c, gc, pt, k)
	case modePerturb:
		c.perturb.arrive(c, gc, pt, k)
	}
}

// replayOff notes that a force plan's order was let go: the run is
// confirmed if every edge has passed. c.mu is held.
func (c *control) replayOff() {
	if c.mode == modeForce && c.force.left == 0 {
		c.finish(plan.Confirmed, "")
	}
}

// flush passes the step g left pending after its operation.
func (c *control) flush(g *gstate) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gc := c.own(g); gc != nil {
		c.passPending(gc)
	}
}

// passPending passes the steps gc left to pass after its operation. c.mu
// is held.
//
// A release's step (gc.release) passes only by ctlReleased, after the
// release returned: an event of gc before that is one the release ran
// (a sync.Locker's Unlock) or a deferred call run while the release
// panicked (a negative WaitGroup counter), so the step stays pending; at
// gc's end it never passes (abandon). Passing it at the goroutine's End
// while the panic unwound let a WGAdd forced after a panicking WGDone run,
// and the test could pass before the panic ended the process.
func (c *control) passPending(gc *gctl) {
	if p := gc.pending; p != nil && !gc.release {
		gc.pending, gc.again = nil, false
		c.force.pass(c, p)
	}
	if gc.replay >= 0 {
		pos := gc.replay
		gc.replay, gc.turnAt = -1, false
		c.replay.advance(c, pos)
	}
}

// passAgain lets the next repeat of g's read of addr at site, a lazy
// step that g has just reached, through the repeat filter (repeat.go) to
// control, which passes the step there: a goroutine spinning on the read
// (for !x.done {}) makes no other event, and the repeat comes after the
// read's load. The slot of the read gets a seq no event has, so the repeat
// is not found there; control does not count it as an arrival (ctlAccess),
// as the recording did not count it, and the filter's slot is the read's
// again after it. Any other event of g passes the step first and ends
// this (passPending): no recorded read replaced the slot meanwhile, no
// write of g cleared it, and g's seq is the read's. Only g's own
// goroutine calls it.
func (gc *gctl) passAgain(g *gstate, site uint32, addr uintptr) {
	if !repeatFilter {
		return
	}
	if s := g.readSlot(addr, site); s.addr == addr && s.site == site {
		s.seq = noSeq
		gc.again, gc.againSite, gc.againAddr = true, site, addr
	}
}

// noSeq is a seq no event has (seqs count up from 1).
const noSeq = ^uint64(0)

func (c *control) begin(g *gstate) {
	c.mu.Lock()
	c.goroutine(g).began = true
	c.mu.Unlock()
}

// end notes that g ended: a plan step of g that it never reached now never
// will be.
func (c *control) end(g *gstate) {
	if c.own(g).due() {
		c.flush(g)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	gc := c.goroutine(g)
	if p := gc.pending; p != nil && gc.release {
		gc.pending, gc.release, gc.send = nil, false, false
		c.force.abandon(p)
	}
	gc.ended = true
	if c.final {
		return
	}
	switch c.mode {
	case modeForce:
		if c.replaying {
			c.replay.ended(c, gc)
		}
		if !c.final {
			c.force.ended(c, gc)
		}
	case modeReplay:
		c.replay.ended(c, gc)
	}
}

// ctlSelectPlan is SelectPlan's answer: the case the plan forces at this
// arrival, and a channel closed after the timeout.
func ctlSelectPlan(g *gstate, site uint32) (int, <-chan struct{}) {
	c := ctl.Load()
	if c == nil {
		return -1, nil
	}
	c.mu.Lock()
	gc := c.own(g)
	var force *selWait
	if gc != nil && gc.sel != nil && gc.sel.pt.Site == site {
		force = gc.sel
	}
	c.mu.Unlock()
	if force == nil {
		return -1, nil
	}
	if g.bubble {
		// The timeout below would be a timer of the bubble, whose
		// firing could move the bubble's clock: refuse.
		c.mu.Lock()
		c.finish(plan.Diverged, fmt.Sprintf("select %s is forced inside a synctest bubble, where control cannot bound its wait without a timer of the bubble", pointString(force.pt)))
		c.mu.Unlock()
		return -1, nil
	}
	ch := make(chan struct{})
	time.AfterFunc(c.timeout, func() { close(ch) })
	return force.force, ch
}

// ctlSelected reports the case a forced select took.
func ctlSelected(g *gstate, site uint32, index int) {
	c := ctl.Load()
	if c == nil {
		return
	}
	c.mu.Lock()
	gc := c.own(g)
	var sw *selWait
	if gc != nil && gc.sel != nil && gc.sel.pt.Site == site {
		sw, gc.sel = gc.sel, nil
	}
	c.mu.Unlock()
	if sw != nil {
		pt, forced, took := sw.pt, sw.force, index
		c.emit(plan.Record{Event: plan.EvSelect, Point: &pt, Case: &forced, Took: &took})
	}
}
