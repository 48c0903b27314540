// Package plan is the wire format of the shim's control: the plan a driver
// hands the program under test (a JSON file named by PRECOG_CONTROL) and the
// result file the shim writes back (JSON lines, one Record each). It is
// shared by the shim, which reads plans and writes results, and by the
// driver (pipeline/control), which writes plans and reads results, the way
// the Go runtime's internal/trace/tracev2 is shared by the tracer and its
// readers: a driver imports this package, never the shim itself, whose
// initialization starts recording.
//
// The package uses only the standard library and compiles at language
// version go1.22, because precog injects it, with the shim, into the build
// of the code under test.
//
// # Modes
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
//   - force with an order: a force plan may carry a replay order too, and
//     then follows the recorded run's schedule first (its first Until
//     positions, all if Until is 0) while it forces its edges: a
//     re-execution of a recorded run that changes one thing (precog
//     explain's suppression, race and violation runs). Where the run
//     cannot follow the order (a point not in it, a wait that gave up, a
//     goroutine that ended early) the shim writes a "left" line and lets
//     the order go, but goes on forcing the edges; once the first Until
//     positions have passed it writes "replayed" and lets the order go.
//     Points of the order after Until wait until then. The final state
//     is the edges' (confirmed once every edge held and the order was let
//     go).
//
// Any mode can also force selects: a plan's Selects name the case a select
// should take at a point.
//
// # Points
//
// A point is (g, site, n): the n-th time (from 0) that the goroutine with
// logical id g arrives at the instrumented point with site id site. Logical
// ids are the shim's: stable from run to run as long as the run takes the
// same path to the goroutine. Arrivals are counted per goroutine and site
// the way the trace counts events: every event of g at site with a nonzero
// site, in g's order (pipeline/control.Points turns trace events into
// points). Events with site 0 (Begin, End, TestStart, TestEnd, GCEpoch) are
// never points. The shim's control.go says when a point counts as passed.
//
// # Plan
//
// The shim reads the plan at init and unsets PRECOG_CONTROL, so that
// processes the program starts do not follow the plan too. A plan works
// with or without PRECOG_TRACE. An example, forcing the MySQL proc_info
// crash (S1 check, S3 nil store, S2 use):
//
//	{"mode": "force", "result": "/tmp/r.jsonl", "timeout_ms": 1000,
//	 "edges": [
//	   {"before": {"g": 7, "site": 12, "n": 0}, "after": {"g": 9, "site": 30, "n": 0}},
//	   {"before": {"g": 9, "site": 30, "n": 0}, "after": {"g": 7, "site": 13, "n": 0}}]}
//
// # Result
//
// The shim writes the result file as JSON lines, one Record each, with
// write(2) as each thing happens, so that a crash right after a forced step
// still leaves the evidence. The first line has event "plan" and the
// file's version (ResultVersion; a file without one is version 1, which
// had no addresses); then, by mode:
//
//	reached   force: a step was reached (point; addr: what its operation
//	          touches, the memory of a read or write, a map's header, a
//	          sync object, absent if nothing (a function entry) or nil;
//	          epoch, with addr: the collections the shim had counted,
//	          see the shim's epoch.go)
//	passed    force: a step was passed (point, seq, wait_us); replay: the
//	          event at pos of the order was passed
//	timeout   a wait gave up (point: the waiting step; before: the one it
//	          waited for; reason: what the shim saw of its goroutine)
//	delay     perturb: a goroutine slept wait_us at point
//	yield     perturb: a goroutine yielded at point
//	budget    perturb: the budget is used up, no more delays
//	capped    perturb: 10000 delay and yield lines written, no more
//	select    a forced select ran (point, case: forced, took: ran)
//	suppressed a write was skipped (Suppress; point, reason "dependence"
//	          if it was skipped for what it read), at most 10000 lines
//	left      force with an order: the run left the order (pos: the
//	          position it was at, of: Until; point: the goroutine's point
//	          that left it, if one did; reason)
//	replayed  force with an order: its first Until positions passed (pos,
//	          of: Until)
//	panicked  force: a goroutine ended by a panic before it reached one of
//	          its steps (point: that step; reason). Nothing can recover
//	          the panic then, so the process is dying: no final line
//	          follows, and the held goroutines stay held, so the crash
//	          came while the order held (a section forced first that
//	          panics before its Unlock)
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
package plan

// EnvVar is the environment variable that names the plan file for the
// program under test.
const EnvVar = "PRECOG_CONTROL"

// The environment variables that narrow what a recording run records, for
// CFP (detect/cfp): its cheap run records function entries and exits and
// sync events but no memory access, and its guided run records the memory
// accesses of the functions it selected.
const (
	// AccessesEnv names a file listing the access sites to record, one
	// decimal site id per line, and every access a goroutine makes
	// while it holds a lock (the detectors read a critical section
	// whole: shim/filter.go); "none" records no access. Unset, every
	// access is recorded.
	AccessesEnv = "PRECOG_ACCESSES"
	// FuncsEnv set to "0" records no function entry or exit.
	FuncsEnv = "PRECOG_FUNCS"
	// MapsEnv set to "0" records no allocation events, EvMapMake and
	// EvNew (bench/runtime measures what they cost with it).
	MapsEnv = "PRECOG_MAPS"
	// StacksEnv set to "1" records accesses to a goroutine's own stack
	// too (precog explain's full tracing); unset, they are not recorded:
	// no other goroutine can reach them (see shim/stack.go).
	StacksEnv = "PRECOG_STACKS"
	// RepeatsEnv set to "1" records every read and map read; unset, a
	// read (or map read) that repeats a read of the same location (map)
	// by the goroutine at the same site since its last sync event, with
	// no write of it between, is not recorded (see shim/repeat.go).
	RepeatsEnv = "PRECOG_REPEATS"
	// TraceLimitEnv, a decimal number of bytes, stops the recording
	// before the trace file would grow past it: the trace then ends in
	// state Limited (package trace). CFP's cheap run sets it to
	// detection's -max-trace, since it measures no coverage over that
	// size and the rest of such a trace (GiBs, for some tests) would be
	// written only to be skipped.
	TraceLimitEnv = "PRECOG_TRACE_LIMIT"
)

// The modes of a plan.
const (
	Force   = "force"
	Perturb = "perturb"
	Replay  = "replay"
)

// Plan is the plan EnvVar names, in JSON; the package doc describes the
// modes and the result file.
type Plan struct {
	Mode   string `json:"mode"`             // Force, Perturb or Replay
	Result string `json:"result,omitempty"` // the result file, created or truncated; none if empty

	// TimeoutMS bounds each wait (force, replay, select forcing); default
	// 1000. BudgetMS bounds the time goroutines spend held back, summed
	// over every wait or delay; default 10000 (perturb: 1000).
	TimeoutMS int `json:"timeout_ms,omitempty"`
	BudgetMS  int `json:"budget_ms,omitempty"`

	// Force: the partial order.
	Edges []Edge `json:"edges,omitempty"`
	// Force: groups of steps released at the same instant. A goroutine
	// arriving at a step of a group (after the steps its edges name)
	// waits until every step of the group has arrived; then they all
	// go, spinning the last microseconds so that they leave together.
	// For operations that fail only when they really overlap, such as two
	// map writes that Go's map detects as concurrent.
	Together [][]Point `json:"together,omitempty"`

	// Perturb. At each arrival at a site in Sites (every sync site if
	// empty; memory accesses only if named), with probability Delay the
	// goroutine sleeps up to MaxDelayUS microseconds (default 1000), else
	// with probability Yield it yields (runtime.Gosched). A force plan
	// with a Seed perturbs so too, at the arrivals that are not its
	// steps: a retry of an order that diverged, in another interleaving.
	Seed       uint64   `json:"seed,omitempty"`
	Sites      []uint32 `json:"sites,omitempty"`
	Delay      float64  `json:"delay,omitempty"`
	Yield      float64  `json:"yield,omitempty"`
	MaxDelayUS int      `json:"max_delay_us,omitempty"`

	// Replay, and force with an order: the recorded order of sync
	// events. Until, in a force plan, is how many positions of it to
	// follow (all if 0); replay follows all.
	Order []Point `json:"order,omitempty"`
	Until int     `json:"until,omitempty"`
	// Hold, in a force plan with an order, are goroutines of the
	// recorded run that have no position in the order (the run ended
	// before their first): they wait at their first point until the
	// order is let go.
	Hold []uint64 `json:"hold,omitempty"`

	// Selects to force, in any mode.
	Selects []Select `json:"selects,omitempty"`

	// Suppress, in any mode, names write instances (points of write
	// sites) that the shim skips, and with them every later write that
	// depends on a location they left unwritten: precog explain's
	// execution suppression (see the shim's suppress.go). Each skipped
	// write gets a "suppressed" line in the result file.
	Suppress []Point `json:"suppress,omitempty"`
}

// A Point is the N-th arrival (from 0) of goroutine G at Site. Kind,
// optional, is the trace kind's name (trace.Kind.String) of the event there:
// replay checks it.
type Point struct {
	G    uint64 `json:"g"`
	Site uint32 `json:"site"`
	N    uint64 `json:"n"`
	Kind string `json:"kind,omitempty"`
}

// An Edge says that Before is passed before After is: the goroutine
// arriving at After waits until Before has been passed.
type Edge struct {
	Before Point `json:"before"`
	After  Point `json:"after"`
}

// A Select asks the select at a point to take case Case, the index the
// shim's SelectRecv or SelectSend reports for it (the non-default clauses
// from 0 in source order), or the default case if -1.
type Select struct {
	Point
	Case int `json:"case"`
}

// ResultVersion is the version of the result file's layout, on its "plan"
// line. Version 2 added addr and epoch to the "reached" lines.
const ResultVersion = 2

// A Record is one line of the result file.
type Record struct {
	Event   string `json:"event"`             // one of the Ev constants
	T       int64  `json:"t_us"`              // microseconds since the plan was loaded
	Version int    `json:"version,omitempty"` // plan: ResultVersion
	Mode    string `json:"mode,omitempty"`
	PID     int    `json:"pid,omitempty"`
	Point   *Point `json:"point,omitempty"`
	Before  *Point `json:"before,omitempty"`
	Seq     uint64 `json:"seq,omitempty"`
	WaitUS  int64  `json:"wait_us,omitempty"`
	Pos     int    `json:"pos,omitempty"`  // replay: index in the order
	Of      int    `json:"of,omitempty"`   // replay: length of the order
	Case    *int   `json:"case,omitempty"` // select: the forced case
	Took    *int   `json:"took,omitempty"` // select: the case that ran
	State   string `json:"state,omitempty"`
	Reason  string `json:"reason,omitempty"`
	// Addr and Epoch, on a force step's "reached" line: the address
	// its operation touches (0 if none) and the collections counted
	// when it arrived there.
	Addr  uint64 `json:"addr,omitempty"`
	Epoch uint64 `json:"epoch,omitempty"`
}

// The events of a Record; the package doc says what each carries.
const (
	EvPlan    = "plan"
	EvReached = "reached"
	EvPassed  = "passed"
	EvTimeout = "timeout"
	EvDelay   = "delay"
	EvYield   = "yield"
	EvBudget  = "budget"
	EvCapped  = "capped"
	EvSelect  = "select"
	EvFinal   = "final"
	// EvSuppressed: a write the plan's Suppress skipped (point; reason
	// "dependence" if it was skipped for reading a suppressed location).
	EvSuppressed = "suppressed"
	// EvLeft and EvReplayed: a force plan's order was let go, because
	// the run left it or because its Until positions passed.
	EvLeft     = "left"
	EvReplayed = "replayed"
	// EvPanicked: a goroutine's panic ended it before one of its force
	// steps (point), the process about to die.
	EvPanicked = "panicked"
)

// The states of a final Record: the outcome of a forced or replayed run,
// or Rejected if the shim refused the plan.
const (
	Confirmed = "confirmed"
	TimedOut  = "timed out"
	Diverged  = "diverged"
	Rejected  = "error"
)

// Godebug returns the GODEBUG of a recorded or forced run of a test,
// given the user's (os.Getenv("GODEBUG")) and whether the test may reach
// a marked call (instrument.Result.Marked): with marks,
// tracebackancestors=5, so that a goroutine's stack shows its creator's
// stack at its creation, and its creator's creator's at that one's, up
// to 5 (the shim orders a goroutine that code precog does not instrument
// created after a recorded ancestor's mark on the line of that
// ancestor's creating frame: shim/mark.go; httptest.NewServer's
// connection goroutines need two), then the user's settings, which win
// over it, as the later setting of a key does. Without marks the shim
// matches nothing, and the setting would only cost: the runtime copies
// the creator's pcs at every go statement (pond's 100,000 goroutines
// ran 1.21x dearer), so the user's settings are returned as they are.
// The runtime reads the setting once, at start (a later os.Setenv does
// not change it), so it is decided per test process, each top-level
// test's, before it runs.
func Godebug(user string, marks bool) string {
	switch {
	case !marks:
		return user
	case user == "":
		return "tracebackancestors=5"
	}
	return "tracebackancestors=5," + user
}
