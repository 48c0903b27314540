package shim

// Control: the shim can hold goroutines back at instrumented points so that
// a run takes an interleaving a driver chose. It is a gate around the real
// operations, never a replacement: a goroutine waits at a point until the
// plan lets it go, and every wait has a timeout, so a wrong plan cannot hang
// the program. Three modes:
//
//   - force: a partial order over points, edges "A before B" (ConMem-v's
//     validation, conmem.txt section 5: delay the goroutine at B until the
//     goroutine at A has passed A). The run ends confirmed (every edge
//     held), timed out (a wait gave up, and the result says which and why)
//     or diverged (the run cannot follow the plan: a goroutine ended, or
//     waited for itself, before reaching a step).
//   - perturb: seeded random delays or yields at chosen sites, or at every
//     sync site, within a total budget and a cap per delay. The decision at
//     a point depends only on the seed and the point, so the same seed makes
//     the same decisions at the points a run reaches.
//   - replay: a recorded total order of sync events, enforced: a goroutine
//     named in the order waits at each of its points until it is the next
//     one. The result says how far the replay got.
//
// Any mode can also force selects: a plan's selects name the case a select
// should take at a point (SelectPlan).
//
// # Points
//
// A point is (g, site, n): the n-th time (from 0) that the goroutine with
// logical id g arrives at the instrumented point with site id site. Logical
// ids are the shim's (see childID and testID in state.go): stable from run
// to run as long as the run takes the same path to the goroutine. Arrivals
// are counted per goroutine and site the way the trace counts events: every
// event of g at site with a nonzero site, in g's order (a driver turns a
// trace event into a point with pipeline/control). Events with site 0
// (Begin, End, TestStart, TestEnd, GCEpoch) are never points.
//
// When a point is passed matters for force. A goroutine arrives at a point
// before the operation (it waits there for the point's predecessors); it
// passes the point
//   - after the operation for what is recorded after it happened (Lock,
//     RLock, TryLock, WGWait, OnceDo, CondWait, the atomics) and for writes
//     W (the store is done). Write, which reports a store already done,
//     cannot be held back before it;
//   - when recorded, just before the operation, for what is recorded before
//     it happens (Unlock, RUnlock, WGAdd, WGDone, CondSignal, CondBroadcast);
//   - at arrival for channel operations, selects and go statements: a
//     channel operation has no step after it that control could wait for
//     (an unbuffered send waits for its receive);
//   - lazily for reads (R, Read, MR, MW, MI), whose access the caller makes
//     after the shim returns: at the goroutine's next instrumented event, or
//     once a successor has waited readGrace (1ms) since the read was
//     reached, or at once if no step waits for it (the last step of a plan
//     is often the access that crashes).
//
// Memory accesses reach control only while the plan names sites (force's
// edges, perturb's sites): otherwise an access costs one more load and
// branch than recording alone (accessGates), and then a call and a bitmap
// test, about 2.5ns (BenchmarkAccessNoPlan, BenchmarkAccessForcePlanElsewhere).
//
// Replay waits for a point's turn at arrival and passes it when recorded,
// except for operations that block until a later event of another
// goroutine (receive, select, WGWait, CondWait): they enter the operation
// once the blocking operations before them in the order have entered
// theirs, and wait for their turn after it, just before their event is
// recorded. Replay is exact for what locks, atomics, sends and single
// receivers order. Several goroutines receiving from one channel are its
// weak spot: a receive is recorded when it returns, not when it took its
// value, so a replay may hand the values out differently and then time out
// (TestReplayChannelReceivers).
//
// # Selects
//
// SelectPlan(site) runs before an instrumented select and passes the gate.
// If the plan has a ControlSelect for this arrival it returns the case to
// force and a channel closed after timeout_ms; else -1, nil. The case is the
// index SelectRecv and SelectSend report (the non-default clauses from 0 in
// source order), -1 for the default clause. The instrumented code
// (pipeline/instrument/rt) tries the forced clause alone until the channel
// closes, then runs the select as written. The result file gets a "select"
// line with the forced and the taken case.
//
// # Plan
//
// PRECOG_CONTROL names a JSON file holding a ControlPlan. The shim reads it
// at init and unsets the variable, so that processes the program starts do
// not follow the plan too. A plan works with or without PRECOG_TRACE. An
// example, forcing the MySQL proc_info crash (S1 check, S3 nil store, S2
// use):
//
//	{"mode": "force", "result": "/tmp/r.jsonl", "timeout_ms": 1000,
//	 "edges": [
//	   {"before": {"g": 7, "site": 12, "n": 0}, "after": {"g": 9, "site": 30, "n": 0}},
//	   {"before": {"g": 9, "site": 30, "n": 0}, "after": {"g": 7, "site": 13, "n": 0}}]}
//
// # Result
//
// The shim writes the result file as JSON lines, one ControlRecord each,
// with write(2) as each thing happens, so that a crash right after a forced
// step still leaves the evidence. The first line has event "plan"; then, by
// mode:
//
//	reached   force: a step was reached (point)
//	passed    force: a step was passed (point, seq, wait_us); replay: the
//	          event at pos of the order was passed
//	timeout   a wait gave up (point: the waiting step; before: the one it
//	          waited for; reason: what the shim saw of its goroutine)
//	delay     perturb: a goroutine slept wait_us at point
//	yield     perturb: a goroutine yielded at point
//	budget    perturb: the budget is used up, no more delays
//	capped    perturb: 10000 delay and yield lines written, no more
//	select    a forced select ran (point, case: forced, took: ran)
//	final     the outcome (state confirmed, timed out or diverged, reason;
//	          "error" if the shim rejected the plan); at most one; later
//	          points are let through, and force still writes "reached" for
//	          its steps reached late
//
// seq is taken from the trace's global counter when the step passes, so it
// places the pass among the trace's sync events. A file without a final
// line is from a run that ended (or crashed) before the plan was finished:
// pipeline/control reads it as diverged if some step was never reached,
// confirmed if every step passed.

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

	"github.com/precog-dev/precog/shim/trace"
)

// ControlPlan is the plan PRECOG_CONTROL names, in JSON; the comment at the
// top of control.go describes the modes and the result file.
type ControlPlan struct {
	Mode   string `json:"mode"`             // "force", "perturb" or "replay"
	Result string `json:"result,omitempty"` // the result file, created or truncated; none if empty

	// TimeoutMS bounds each wait (force, replay, select forcing); default
	// 1000. BudgetMS bounds the time goroutines spend held back, summed
	// over every wait or delay; default 10000 (perturb: 1000).
	TimeoutMS int `json:"timeout_ms,omitempty"`
	BudgetMS  int `json:"budget_ms,omitempty"`

	// Force: the partial order.
	Edges []ControlEdge `json:"edges,omitempty"`

	// Perturb. At each arrival at a site in Sites (every sync site if
	// empty; memory accesses only if named), with probability Delay the
	// goroutine sleeps up to MaxDelayUS microseconds (default 1000), else
	// with probability Yield it yields (runtime.Gosched).
	Seed       uint64   `json:"seed,omitempty"`
	Sites      []uint32 `json:"sites,omitempty"`
	Delay      float64  `json:"delay,omitempty"`
	Yield      float64  `json:"yield,omitempty"`
	MaxDelayUS int      `json:"max_delay_us,omitempty"`

	// Replay: the recorded order of sync events.
	Order []ControlPoint `json:"order,omitempty"`

	// Selects to force, in any mode.
	Selects []ControlSelect `json:"selects,omitempty"`
}

// A ControlPoint is the N-th arrival (from 0) of goroutine G at Site. Kind,
// optional, is the trace kind's name (trace.Kind.String) of the event there:
// replay checks it.
type ControlPoint struct {
	G    uint64 `json:"g"`
	Site uint32 `json:"site"`
	N    uint64 `json:"n"`
	Kind string `json:"kind,omitempty"`
}

// A ControlEdge says that Before is passed before After is: the goroutine
// arriving at After waits until Before has been passed.
type ControlEdge struct {
	Before ControlPoint `json:"before"`
	After  ControlPoint `json:"after"`
}

// A ControlSelect asks the select at a point to take case Case, the index
// SelectRecv or SelectSend reports for it, or the default case if -1.
type ControlSelect struct {
	ControlPoint
	Case int `json:"case"`
}

// A ControlRecord is one line of the result file.
type ControlRecord struct {
	Event  string        `json:"event"`
	T      int64         `json:"t_us"` // microseconds since the plan was loaded
	Mode   string        `json:"mode,omitempty"`
	PID    int           `json:"pid,omitempty"`
	Point  *ControlPoint `json:"point,omitempty"`
	Before *ControlPoint `json:"before,omitempty"`
	Seq    uint64        `json:"seq,omitempty"`
	WaitUS int64         `json:"wait_us,omitempty"`
	Pos    int           `json:"pos,omitempty"`  // replay: index in the order
	Of     int           `json:"of,omitempty"`   // replay: length of the order
	Case   *int          `json:"case,omitempty"` // select: the forced case
	Took   *int          `json:"took,omitempty"` // select: the case that ran
	State  string        `json:"state,omitempty"`
	Reason string        `json:"reason,omitempty"`
}

// Final states.
const (
	Confirmed = "confirmed"
	TimedOut  = "timed out"
	Diverged  = "diverged"
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
	path := os.Getenv("PRECOG_CONTROL")
	if path == "" || isPrecog() {
		return
	}
	os.Unsetenv("PRECOG_CONTROL")
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

func readPlan(path string) (*ControlPlan, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var p ControlPlan
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
	line, _ := json.Marshal(ControlRecord{Event: "final", State: "error", Reason: err.Error()})
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

	force   forceState
	replay  replayState
	perturb perturbState
	selects map[pointKey]int
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
	last    ControlPoint // the last named point reached
	lastK   trace.Kind
	lastT   time.Time
	seen    bool     // reached a named point
	pending *fpoint  // force: the step to pass after the operation
	replay  int      // replay: the position to pass when recorded, or -1
	turnAt  bool     // replay: wait for the turn when recorded, not at arrival
	sel     *selWait // select forced at the last SelectPlan
}

type selWait struct {
	pt    ControlPoint
	force int
}

type pointKey struct {
	g    uint64
	site uint32
	n    uint64
}

func keyOf(p ControlPoint) pointKey { return pointKey{p.G, p.Site, p.N} }

// installControl loads plan p, replacing any plan loaded before (tests load
// several, one at a time); the hooks must already point at control.
func installControl(p *ControlPlan) (*control, error) {
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
	case "force":
		c.mode = modeForce
		if err := c.force.load(c, p.Edges); err != nil {
			return nil, err
		}
		gated = len(p.Edges) > 0
	case "perturb":
		c.mode = modePerturb
		c.budget = int64(ms(p.BudgetMS, defaultPerturbBudget))
		if err := c.perturb.load(c, p); err != nil {
			return nil, err
		}
		gated = len(p.Sites) > 0
	case "replay":
		c.mode = modeReplay
		if err := c.replay.load(c, p.Order); err != nil {
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
		c.selects[keyOf(s.ControlPoint)] = s.Case
	}
	if p.Result != "" {
		f, err := os.OpenFile(p.Result, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o644)
		if err != nil {
			return nil, err
		}
		c.out = f
	}
	c.emit(ControlRecord{Event: "plan", Mode: p.Mode, PID: os.Getpid()})
	if c.mode == modeForce && c.force.left == 0 {
		c.mu.Lock()
		c.finish(Confirmed, "the plan has no edges")
		c.mu.Unlock()
	}
	if old := ctl.Swap(c); old != nil {
		old.close()
	}
	accessGates.Store(gated)
	return c, nil
}

// uninstallControl unloads the plan and closes its result file.
func uninstallControl() {
	accessGates.Store(false)
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
func (c *control) emit(r ControlRecord) {
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
	c.emit(ControlRecord{Event: "final", State: state, Reason: reason})
}

// goroutine returns g's control state, making it. c.mu is held.
func (c *control) goroutine(g *gstate) *gctl {
	if gc := c.own(g); gc != nil {
		return gc
	}
	gc := c.gs[g.id]
	if gc == nil {
		gc = &gctl{c: c, id: g.id, replay: -1}
		c.gs[g.id] = gc
	}
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
func (gc *gctl) arrive(site uint32, k trace.Kind) ControlPoint {
	if gc.counts == nil {
		gc.counts = make(map[uint32]uint64)
	}
	n := gc.counts[site]
	gc.counts[site] = n + 1
	gc.last = ControlPoint{G: gc.id, Site: site, N: n, Kind: k.String()}
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
	t0 := time.Now()
	timer := time.NewTimer(d)
	select {
	case <-ch:
		ok = true
	case <-c.giveUp:
		ok = true // the caller checks c.final
	case <-timer.C:
	}
	timer.Stop()
	c.used.Add(int64(time.Since(t0)))
	c.mu.Lock()
	return ok
}

// describe says what control saw of goroutine id, for a wait that gave up
// on its point p. c.mu is held.
func (c *control) describe(p ControlPoint) string {
	gc := c.gs[p.G]
	g := "goroutine " + strconv.FormatUint(p.G, 10)
	if gc == nil || (!gc.began && !gc.seen && !gc.ended) {
		return g + " never reached an instrumented point control watches (did it start? its id may differ in this run)"
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
	case trace.EvChanMake, trace.EvChanSend, trace.EvChanRecv, trace.EvChanClose, trace.EvSelect,
		trace.EvFork, trace.EvTaskGo, trace.EvFuncEnter, trace.EvFuncExit:
		return true
	}
	return false
}

// passLazily reports whether a point of kind k is an access the caller
// makes after the shim call returns (R, MR, MW, MI): it is passed at the
// goroutine's next instrumented event, or once a successor has waited
// readGrace for it, whichever comes first.
func passLazily(k trace.Kind) bool {
	switch k {
	case trace.EvRead, trace.EvMapRead, trace.EvMapWrite, trace.EvMapIter:
		return true
	}
	return false
}

// readGrace is how long a successor waits for a lazily passed step whose
// goroutine has reached it but not made another event since: the access
// itself takes nanoseconds, so the goroutine is busy elsewhere.
const readGrace = time.Millisecond

// The hooks. ctlGate is the gate (gate.go) of sync operations; ctlAccess
// that of memory accesses; ctlRecording and ctlRecorded run just before and
// after a sync event is appended; ctlSelectPlan and ctlSelected are the
// select's.

func ctlGate(g *gstate, site uint32, k trace.Kind, _ unsafe.Pointer) {
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
	c.arrival(g, site, k)
}

func ctlAccess(g *gstate, site uint32, k trace.Kind) {
	c := ctl.Load()
	if c == nil {
		return
	}
	if c.own(g).due() {
		c.flush(g) // the access before this one has happened
	}
	if c.named(site) {
		c.arrival(g, site, k)
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

// arrival handles g's arrival at a named site.
func (c *control) arrival(g *gstate, site uint32, k trace.Kind) {
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
		c.force.arrive(c, gc, pt, k)
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
func (c *control) passPending(gc *gctl) {
	if p := gc.pending; p != nil {
		gc.pending = nil
		c.force.pass(c, p)
	}
	if gc.replay >= 0 {
		pos := gc.replay
		gc.replay, gc.turnAt = -1, false
		c.replay.advance(c, pos)
	}
}

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
	gc.ended = true
	if c.final {
		return
	}
	switch c.mode {
	case modeForce:
		c.force.ended(c, gc)
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
		c.emit(ControlRecord{Event: "select", Point: &pt, Case: &forced, Took: &took})
	}
}
