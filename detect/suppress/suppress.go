// Package suppress is the trace side of execution suppression
// (execution-suppression.txt, Jeffrey et al.): from the full trace of a
// failing run (precog explain's recording mode, every load and store of
// the packages under test, local variables included), it finds the failure
// point, the location whose value caused the failure, and its last
// definition (Fig. 1, lines 5-7), and at that definition the accesses that
// make a data race (Fig. 2: WAR or WAW before it, RAW after it, with
// another goroutine and no happens-before order) or a potential atomicity
// or order violation (Fig. 3: W1R2W1, R1W2W1 before it, R1W2R1, W1W2R1
// after it, and the two-access order violation). Re-executing the program
// to tell a harmful race or a true violation from a harmless one, and
// suppressing, is the driver's (pipeline/explain): this package reads
// traces only.
//
// # The failure point
//
// The failure is given as the positions of the failing goroutine's stack
// (innermost first) and its message. The failure point is the last
// execution of the innermost instrumented line of that stack by the
// goroutine that ran it last: the reads of that execution are the
// candidate locations. Of them, the one whose value the message names
// (the index of "index out of range [5] with length 3", the value of a
// failed assertion "got 7, want 3") is the failure location; for a nil
// dereference, the pointer whose last definition stored nil; otherwise the
// last read of the line (Go evaluates the operand that fails last). The
// last definition is the last write to that location before the read, in
// the trace's order, that was not suppressed.
//
// A location is an address within a GC epoch (detect/hb), but a failing
// read may be of an object that lived through a collection, defined before
// it: when no write in the read's epoch defined the address, the last
// writes of earlier epochs do. Without that, a collection that happened to
// fall between a definition and its use (the finalizer that counts epochs
// runs when the scheduler lets it, so where it falls varies from run to
// run) made the line's reads look never written, and the search went on
// to an outer frame and a wrong answer (axel's, once in a loaded CI run:
// the test's own argument). The address could instead have been freed and
// reused by an object that uninstrumented code initialized; the value the
// failure names, when it names one, still picks among the candidates.
//
// A local variable on a goroutine's stack moves when the runtime grows
// the stack (or shrinks it in a collection, which precog explain turns
// off), and its uses after the move are at another address than its
// definition; where a stack grows varies from run to run (the shim's own
// work on the goroutine, writing a suppression record, can grow it). So
// shim.Def, which records every x := v and var x = v of full tracing,
// makes the variable escape to the heap, and what it points to with it.
// Parameters, results and variables declared without a value stay on the
// stack: a use of one after a move finds no definition at its address
// (parameters have none in the trace anyway: the caller's arguments
// define them), and the search goes on to an outer frame.
//
// Sound for: failures that read a corrupted location on the failing line
// in instrumented code. Not found: a failure inside code that is not
// instrumented (the standard library) with no instrumented read on the
// calling line; a hang in which no goroutine polls (see Hangs); a failure
// message that names no value and a line that reads several candidates
// (the last read is then a guess, which the report says).
//
// # Hangs
//
// A run killed at its time bound (or that go test timed out) has no
// failing statement. As the paper does for mozilla-3 (its tool killed a
// run in which one instruction executed again and again), the failure
// point is then the read that a goroutine still running at the end of the
// trace repeats: of each such goroutine's last 64 events, a read of one
// location at one site at least 3 times, the most repeated one. Its last
// definition is the value the loop waits to see change. A goroutine
// blocked for good on a channel, a lock or a WaitGroup reads nothing
// again: such a hang falls back to the stack's frames (the test's,
// blocked where it waits), and usually has no failure point.
//
// # Where Go's suppression over- or under-suppresses
//
// The shim (suppress.go) suppresses write instances and propagates through
// a goroutine's taint: a read of a suppressed location taints the goroutine
// until its next write, which is suppressed. Compared with the paper's
// shadow registers:
//
//   - calls: a tainted argument flows into the callee, and the first write
//     inside the callee absorbs the taint (over-suppression there) while the
//     caller's assignment of the result then is not suppressed
//     (under-suppression). Pure helpers (no writes) carry it through.
//   - channels: a value sent on a channel carries no taint to the receiver:
//     the receiver's writes are not suppressed (under-suppression).
//   - maps: map assignments are not suppressible (the shim records map
//     accesses, not the stored values); a suppressed key or value still
//     lands in the map (under-suppression).
//   - interfaces and multiple assignments: the stores of multiple
//     assignments and of range and select variables are done before the
//     shim sees them; they are not undone, only their dependents are
//     suppressed.
//   - control dependence: a branch on a suppressed value taints the next
//     write after it, in or after the branch (an approximation of the
//     paper's "suppress the whole conditional structure").
//
// # Repeated values
//
// Go cannot suppress the failing read itself (the paper suppresses every
// statement instance that uses a suppressed location, the failing one
// included): with its last definition suppressed, the read sees the
// value of the write before, and when that wrote the same value (two
// goroutines running the same statement, a loop storing one value again)
// the same failure comes back, once per such write, each a suppression
// run and its race checks. So when the failure names the value its
// definition stored (the number of its message, nil for a nil
// dereference), the failure point also lists the writes of that value
// the read could have seen instead (Point.Repeats), and the driver
// suppresses them with the definition, checking for races and violations
// at the definition only, as the paper checks the one definition the read
// saw. Only a named value counts: value words are exact for numbers and
// nil, not for other pointers or strings (whose word is a length).
//
// This is acceptable because suppression only has to avoid the failure it
// suppresses and let the run go on: an under-suppression that lets the
// same failure happen again shows as the same failure point, which the
// driver detects and reports instead of looping; an over-suppression can
// only hide later corruption, which makes the answer the last definition
// found, closer to the failure than the root, never a wrong concurrency
// bug (those are confirmed by re-execution).
package suppress

import (
	"cmp"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/precog-dev/precog/detect/hb"
	"github.com/precog-dev/precog/shim/trace"
)

// A Frame is one position of the failing goroutine's stack.
type Frame struct {
	File string
	Line int
}

// A Failure is what the failing run's output says.
type Failure struct {
	Frames  []Frame // innermost first
	Message string
	Nil     bool // a nil pointer dereference, nil map write or call of a nil func
	// Hang: the run was killed at its time bound or timed out, with no
	// statement that failed. The failure point is then the read that a
	// goroutine still running at the end repeats in a loop (see the
	// package doc, Hangs), else the frames' as for any failure.
	Hang bool
}

// An Instance names a statement instance as the shim's plans name points:
// the N-th event (from 0) of goroutine G at Site.
type Instance struct {
	G    uint64
	Site uint32
	N    uint64
}

// An Access is one read or write event of the trace.
type Access struct {
	Index int // in the trace's events
	Instance
	Write bool
	Addr  uint64
	Value uint64 // writes: the value word
}

// A Point is the failure point and its last definition.
type Point struct {
	// Use is the read of the failure location on the failing line; Def
	// the write that last defined it (nil if none: the location was
	// never written in the trace; reads carry no value, so it held its
	// zero value or what uninstrumented code wrote into it).
	Use *Access
	Def *Access
	// Why says how the location was chosen among the line's reads.
	Why string
	// Line is the failing line found in the trace.
	Line Frame
	// Suppressed: a read of the failing line's execution is of a location
	// whose last write was suppressed. The failing statement uses
	// suppressed data, so the paper's suppression would have suppressed
	// it: the failure is not a new one, it is the suppression's.
	Suppressed *Access
	// Repeats are, when the failure names the value Def stored (the
	// number of its message, or nil for a nil dereference), the other
	// writes of that value to the location that the read could have seen
	// in Def's place: back from the read, the writes of the same value
	// word up to the first of another one. See the package doc, Repeated
	// values.
	Repeats []*Access
}

// Analysis is one trace prepared for the queries below.
type Analysis struct {
	Events []trace.Event
	Sites  *trace.SiteTable
	Graph  *hb.Graph
	// Suppressed are the write instances that did not happen (the result
	// file's "suppressed" lines).
	Suppressed map[Instance]bool
	inst       []uint64
	byLine     map[Frame]bool
}

// Analyze prepares evs (in the trace's global order) with their site table.
// suppressed names the writes recorded that a suppressing plan skipped.
func Analyze(evs []trace.Event, sites *trace.SiteTable, suppressed map[Instance]bool) *Analysis {
	a := &Analysis{Events: evs, Sites: sites, Suppressed: suppressed,
		Graph: hb.Analyze(evs, hb.Options{Sites: sites, LockOrder: true})}
	a.inst = make([]uint64, len(evs))
	for i := range evs {
		a.inst[i] = a.Graph.Instance(i)
	}
	return a
}

func (a *Analysis) access(i int) *Access {
	e := a.Events[i]
	return &Access{Index: i, Instance: Instance{e.Goroutine, e.Site, a.inst[i]},
		Write: e.Kind == trace.EvWrite, Addr: e.Addr, Value: e.Value}
}

// site returns the site of event i.
func (a *Analysis) site(i int) (trace.Site, bool) {
	if a.Sites == nil {
		return trace.Site{}, false
	}
	return a.Sites.Lookup(a.Events[i].Site)
}

// Pos is the file:line of a site id.
func (a *Analysis) Pos(site uint32) Frame {
	s, ok := a.Sites.Lookup(site)
	if !ok {
		return Frame{}
	}
	return Frame{s.File, s.Line}
}

// sameFile reports whether two paths name one file: equal, or one the
// other's suffix at a path separator (stacks print absolute paths, which
// a build with -trimpath shortens).
func sameFile(a, b string) bool {
	if a == b {
		return true
	}
	if len(a) < len(b) {
		a, b = b, a
	}
	return strings.HasSuffix(a, string(filepath.Separator)+b) || filepath.Base(a) == b
}

var numRE = regexp.MustCompile(`-?\d+`)

// FailurePoint finds the failure point of f in the trace, or nil if no
// frame of the stack is a line with instrumented reads.
//
// A line whose reads have no definition in the trace (a function's
// parameters, which the caller's argument expressions define) gives way
// to the next frame out, the call's line.
func (a *Analysis) FailurePoint(f Failure) *Point {
	if f.Hang {
		if p := a.hangPoint(); p != nil {
			return p
		}
	}
	var first *Point
	for _, fr := range f.Frames {
		p := a.failureAt(fr, f)
		if p == nil {
			continue
		}
		if p.Def != nil || p.Suppressed != nil {
			return p
		}
		if first == nil {
			first = p
		}
	}
	return first
}

func (a *Analysis) onLine(i int, fr Frame) bool {
	s, ok := a.site(i)
	return ok && s.Line == fr.Line && sameFile(s.File, fr.File)
}

func (a *Analysis) failureAt(fr Frame, f Failure) *Point {
	// The goroutine that ran the line last, nearest its own end: the
	// failing one (a panicking goroutine's deferred calls may still
	// record a few events after the line).
	last := make(map[uint64]int) // goroutine -> its last event index on the line
	after := make(map[uint64]int)
	for i, e := range a.Events {
		if e.Kind == trace.EvRead || e.Kind == trace.EvWrite || e.Kind == trace.EvMapRead || e.Kind == trace.EvMapWrite {
			if a.onLine(i, fr) {
				last[e.Goroutine] = i
				after[e.Goroutine] = 0
				continue
			}
		}
		if _, ok := last[e.Goroutine]; ok {
			after[e.Goroutine]++
		}
	}
	if len(last) == 0 {
		return nil
	}
	var gs []uint64
	for g := range last {
		gs = append(gs, g)
	}
	slices.SortFunc(gs, func(x, y uint64) int {
		return cmp.Or(cmp.Compare(after[x], after[y]), cmp.Compare(last[y], last[x]))
	})
	g := gs[0]
	// The reads of the line's last execution: back from the last event
	// on the line, over the goroutine's events on the line, stopping at
	// a write on the line (the end of an earlier execution of it) once
	// a read was seen.
	var reads []int
	gi := a.Graph.Goroutine(last[g])
	evs := a.Graph.Goroutines[gi].Events
	k := slices.Index(evs, last[g])
	for ; k >= 0; k-- {
		i := evs[k]
		e := a.Events[i]
		if !a.onLine(i, fr) {
			if e.Kind.IsSync() && len(reads) > 0 {
				break
			}
			continue
		}
		if e.Kind == trace.EvWrite {
			if len(reads) > 0 {
				break
			}
			continue
		}
		if e.Kind == trace.EvRead {
			reads = append(reads, i)
		}
	}
	if len(reads) == 0 {
		return nil
	}
	type cand struct {
		use, def int
	}
	nums := make(map[uint64]bool)
	for _, m := range numRE.FindAllString(f.Message, -1) {
		if n, err := strconv.ParseInt(m, 10, 64); err == nil {
			nums[uint64(n)] = true
		}
	}
	var cs []cand
	for _, r := range reads {
		// Of the writes the read may have seen, the one whose value
		// the failure shows: nil for a nil dereference, a number the
		// message names; else lastDef's choice.
		d := -1
		ds := a.defs(r)
		for _, w := range ds {
			v := a.Events[w].Value
			if !a.suppressedAt(w) && (f.Nil && v == 0 || !f.Nil && v > 1 && nums[v]) {
				d = w
				break
			}
		}
		if d < 0 {
			d = a.lastDef(r)
		}
		cs = append(cs, cand{r, d})
	}
	pick := func(c cand, why string, named bool) *Point {
		p := &Point{Use: a.access(c.use), Why: why, Line: fr}
		if c.def >= 0 {
			p.Def = a.access(c.def)
			if named {
				for _, w := range a.repeats(c.use, c.def) {
					p.Repeats = append(p.Repeats, a.access(w))
				}
			}
		}
		if w := a.lastWrite(c.use); w >= 0 && a.suppressedAt(w) {
			// The location's last write was suppressed: it keeps the
			// value of the definition before, which Go cannot keep
			// the failing statement from using (the paper suppresses
			// the use too). That definition is the next one to look
			// at; with none (the zero value), the failure is the
			// suppression's own.
			if c.def >= 0 {
				p.Why = why + "; its last definition was suppressed, it keeps the value of the one before"
				return p
			}
			p.Def, p.Suppressed = a.access(w), a.access(w)
			p.Why = "the failing statement reads a location whose definition was suppressed"
			return p
		}
		if c.def < 0 {
			// Never written: if what the goroutine read since its
			// last write before the statement was suppressed (the
			// shim's taint), the value is the suppression's.
			for _, r := range a.readsBefore(evs, reads) {
				if w := a.lastWrite(r); w >= 0 && a.suppressedAt(w) {
					p.Def, p.Suppressed = a.access(w), a.access(w)
					p.Why = "the failing statement depends on a location whose definition was suppressed"
					return p
				}
			}
		}
		return p
	}
	if f.Nil {
		for _, c := range cs {
			if c.def >= 0 && a.Events[c.def].Value == 0 && a.pointerish(c.use) {
				return pick(c, "the pointer read there was nil", true)
			}
		}
		for _, c := range cs {
			if c.def < 0 && a.pointerish(c.use) {
				return pick(c, "the pointer read there was never set", false)
			}
		}
	}
	if len(nums) > 0 {
		for _, c := range cs {
			if c.def >= 0 && nums[a.Events[c.def].Value] && a.Events[c.def].Value > 1 {
				return pick(c, "the value read there is the one the failure names ("+strconv.FormatUint(a.Events[c.def].Value, 10)+")", true)
			}
		}
		for _, c := range cs {
			if c.def >= 0 && nums[a.Events[c.def].Value] {
				return pick(c, "the value read there is the one the failure names ("+strconv.FormatUint(a.Events[c.def].Value, 10)+")", true)
			}
		}
	}
	for _, c := range cs {
		if c.def >= 0 {
			return pick(c, "the last read of the failing line with a definition", false)
		}
	}
	return pick(cs[0], "the last read of the failing line", false)
}

// A goroutine polls a location when, among its last spinWindow events,
// it read the location at one site at least spinMin times.
const (
	spinWindow = 64
	spinMin    = 3
)

// hangPoint is the failure point of a hang: the last of the reads that a
// goroutine which had not ended repeated in its last events, with its last
// definition; nil if no goroutine polls. Of several, the loop's condition
// (a read whose site decides a loop's exit) comes first, then a location
// another goroutine defined (what a wait waits for), then one with a
// definition at all (the loop's other reads, of its own locals, never
// change), then the most repeated, then the latest.
func (a *Analysis) hangPoint() *Point {
	type key struct {
		site uint32
		addr uint64
	}
	type cand struct{ i, n, rank int }
	var best cand
	best.i = -1
	for gi := range a.Graph.Goroutines {
		evs := a.Graph.Goroutines[gi].Events
		if len(evs) == 0 || a.Events[evs[len(evs)-1]].Kind == trace.EvEnd {
			continue
		}
		count := make(map[key]int)
		last := make(map[key]int)
		var keys []key
		for _, i := range evs[max(0, len(evs)-spinWindow):] {
			if e := a.Events[i]; e.Kind == trace.EvRead {
				k := key{e.Site, e.Addr}
				if count[k] == 0 {
					keys = append(keys, k)
				}
				count[k]++
				last[k] = i
			}
		}
		for _, k := range keys {
			if count[k] < spinMin {
				continue
			}
			c := cand{i: last[k], n: count[k]}
			if s, ok := a.site(c.i); ok && s.Used(trace.UseLoopExit) {
				c.rank += 4
			}
			if d := a.lastWrite(c.i); d >= 0 {
				c.rank++
				if a.Events[d].Goroutine != a.Events[c.i].Goroutine {
					c.rank += 2
				}
			}
			if best.i < 0 || cmp.Or(cmp.Compare(c.rank, best.rank), cmp.Compare(c.n, best.n), cmp.Compare(c.i, best.i)) > 0 {
				best = c
			}
		}
	}
	if best.i < 0 {
		return nil
	}
	bestN := best.n
	p := &Point{Use: a.access(best.i), Line: a.Pos(a.Events[best.i].Site),
		Why: fmt.Sprintf("the hung goroutine read it %d times in its last %d events (a loop waiting for it to change)", bestN, spinWindow)}
	d := a.lastDef(best.i)
	if d >= 0 {
		p.Def = a.access(d)
	}
	if w := a.lastWrite(best.i); w >= 0 && a.suppressedAt(w) {
		if d >= 0 {
			p.Why += "; its last definition was suppressed, it keeps the value of the one before"
		} else {
			p.Def, p.Suppressed = a.access(w), a.access(w)
			p.Why = "the hung goroutine waits on a location whose definition was suppressed"
		}
	}
	return p
}

// UnsentReceive returns the last channel receive (a receive or a select's
// receive case) that the goroutine of event use made before it, when no
// instrumented code sent on or closed that channel in the trace: a timer's
// (time.After, a Timer's C), or one that the standard library or a
// dependency sends on or closes (a context's Done). Nil when the last
// receive's channel had a send or close in the trace, or there was none.
// A failure whose point has no definition after such a receive is likely
// a timing failure: the goroutine stopped waiting (a select's timeout
// case) before what it waited for arrived, which no definition explains.
func (a *Analysis) UnsentReceive(use int) *Access {
	gi := a.Graph.Goroutine(use)
	evs := a.Graph.Goroutines[gi].Events
	k, _ := slices.BinarySearch(evs, use)
	for k--; k >= 0; k-- {
		i := evs[k]
		e := a.Events[i]
		switch e.Kind {
		case trace.EvChanRecv:
		case trace.EvSelect:
			s, ok := a.site(i)
			if e.Arg < 0 || !ok || int(e.Arg) >= len(s.Cases) || s.Cases[e.Arg] != 'r' {
				continue
			}
		default:
			continue
		}
		if a.sentOn(e.Addr) {
			return nil
		}
		return &Access{Index: i, Instance: Instance{e.Goroutine, e.Site, a.inst[i]}, Addr: e.Addr}
	}
	return nil
}

// sentOn reports whether the trace has a send on, or a close of, the
// channel at addr.
func (a *Analysis) sentOn(addr uint64) bool {
	for i, e := range a.Events {
		if e.Addr != addr {
			continue
		}
		switch e.Kind {
		case trace.EvChanSend, trace.EvChanClose:
			return true
		case trace.EvSelect:
			if s, ok := a.site(i); ok && e.Arg >= 0 && int(e.Arg) < len(s.Cases) && s.Cases[e.Arg] == 's' {
				return true
			}
		}
	}
	return false
}

// maxRepeats bounds the repeats of a failure point.
const maxRepeats = 64

// repeats returns the writes other than def that the read at event use
// could have seen with def's value word: the unsuppressed writes to its
// location, in def's epoch, back from the read in the trace's order until
// one of another value, and those of other goroutines after the read that
// happens-before does not order after it (defs' candidates).
func (a *Analysis) repeats(use, def int) []int {
	loc := a.Graph.Loc(def)
	v := a.Events[def].Value
	var out []int
	add := func(j int) {
		if j != def && !slices.Contains(out, j) && len(out) < maxRepeats {
			out = append(out, j)
		}
	}
	for j := use - 1; j >= 0 && len(out) < maxRepeats; j-- {
		e := a.Events[j]
		if e.Kind != trace.EvWrite || e.Addr != loc.Addr || !sameObject(a.Graph.Loc(j), loc) || a.suppressedAt(j) {
			continue
		}
		if e.Value != v {
			break
		}
		add(j)
	}
	for _, j := range a.defs(use) {
		if j > use && a.Events[j].Value == v && !a.suppressedAt(j) {
			add(j)
		}
	}
	return out
}

// readsBefore returns the reads of the failing line's execution and those
// of its goroutine since its last write before them: what the shim's taint
// would carry into the statement.
func (a *Analysis) readsBefore(evs, reads []int) []int {
	out := append([]int(nil), reads...)
	for k := slices.Index(evs, reads[len(reads)-1]) - 1; k >= 0; k-- {
		i := evs[k]
		if a.Events[i].Kind == trace.EvWrite {
			break
		}
		if a.Events[i].Kind == trace.EvRead {
			out = append(out, i)
		}
	}
	return out
}

// pointerish reports whether the read at event i is of a location whose
// value is then dereferenced, indexed or called, as far as its site says;
// a site without Uses counts, and so does one whose value only decides
// branches (trace.UseBranch, a fact for detect/oscs that this check
// does not read).
func (a *Analysis) pointerish(i int) bool {
	s, ok := a.site(i)
	return !ok || s.Uses == "" || s.Uses == trace.UseBranch || s.Used(trace.UseDeref)
}

// maxDefs bounds how many earlier writes to a location defs looks at.
const maxDefs = 64

// defs returns the writes to the location read at event i that may have
// given it its value: of the writes before i in the trace's order (at
// most maxDefs) and those of other goroutines after it that happens-before
// does not order after it, the ones that no other of them follows in
// happens-before. The trace orders the accesses of different goroutines
// only through sync events, so two unordered writes may both be the last.
//
// Writes in the read's GC epoch come first; only when there is none do
// writes of earlier epochs count (see the package doc, The failure point).
func (a *Analysis) defs(i int) []int {
	if ws := a.defsIn(i, true); len(ws) > 0 {
		return ws
	}
	return a.defsIn(i, false)
}

// defsIn is defs with the writes before the read taken from the read's
// epoch only (sameEpoch) or from it and earlier ones.
func (a *Analysis) defsIn(i int, sameEpoch bool) []int {
	loc := a.Graph.Loc(i)
	inEpoch := func(j int) bool {
		ep := a.Graph.Loc(j).Epoch
		return ep == loc.Epoch || !sameEpoch && ep < loc.Epoch
	}
	var ws []int
	for j := i - 1; j >= 0 && len(ws) < maxDefs; j-- {
		e := a.Events[j]
		if e.Kind == trace.EvWrite && e.Addr == loc.Addr && inEpoch(j) {
			ws = append(ws, j)
			if a.Graph.HappensBefore(j, i) && e.Goroutine == a.Events[i].Goroutine {
				break // the reader's own write: nothing before it in its program order counts
			}
		}
	}
	// Writes of other goroutines later in the trace's order that
	// happens-before does not put after the read: the trace places an
	// access by its goroutine's last sync event, so a write that a forced
	// order (or luck) ran before the read may come after it there.
	for j, n := i+1, 0; j < len(a.Events) && n < maxDefs; j++ {
		e := a.Events[j]
		if e.Kind == trace.EvWrite && e.Addr == loc.Addr && sameObject(a.Graph.Loc(j), loc) {
			n++
			if e.Goroutine != a.Events[i].Goroutine && a.Graph.Concurrent(i, j) {
				ws = append(ws, j)
			}
		}
	}
	var out []int
	for _, w := range ws {
		later := false
		for _, v := range ws {
			if v != w && a.Graph.HappensBefore(w, v) {
				later = true
				break
			}
		}
		if !later {
			out = append(out, w)
		}
	}
	return out
}

// pickDef chooses among the candidate writes ds (latest first) the one
// the read at event i most likely saw: the reader's own, else the latest
// in the trace's order; ok filters the candidates.
func (a *Analysis) pickDef(i int, ds []int, ok func(int) bool) int {
	best := -1
	for _, d := range ds {
		if !ok(d) {
			continue
		}
		if a.Events[d].Goroutine == a.Events[i].Goroutine {
			return d
		}
		if best < 0 {
			best = d
		}
	}
	return best
}

func (a *Analysis) suppressedAt(j int) bool {
	e := a.Events[j]
	return a.Suppressed[Instance{e.Goroutine, e.Site, a.inst[j]}]
}

// lastWrite returns the index of the write the read at event i most
// likely saw, suppressed or not, or -1.
func (a *Analysis) lastWrite(i int) int {
	return a.pickDef(i, a.defs(i), func(int) bool { return true })
}

// lastDef returns the index of the last write to the location read at
// event i before it that was not suppressed, or -1.
func (a *Analysis) lastDef(i int) int {
	if d := a.pickDef(i, a.defs(i), func(j int) bool { return !a.suppressedAt(j) }); d >= 0 {
		return d
	}
	loc := a.Graph.Loc(i)
	for j := i - 1; j >= 0; j-- {
		e := a.Events[j]
		if e.Kind == trace.EvWrite && e.Addr == loc.Addr && a.Graph.Loc(j).Epoch <= loc.Epoch && !a.suppressedAt(j) {
			return j
		}
	}
	return -1
}

// Find returns the event index of instance in, or -1.
func (a *Analysis) Find(in Instance) int {
	for i, e := range a.Events {
		if e.Goroutine == in.G && e.Site == in.Site && a.inst[i] == in.N {
			return i
		}
	}
	return -1
}

// A Race is a data race at a definition (Fig. 2): First and Second in the
// run's order, of different goroutines, unordered by happens-before, one
// of them the definition.
type Race struct {
	First, Second *Access
	Shape         string // WAR, WAW or RAW
}

// Races returns the race candidates at the definition def (an event index
// of a write), in the order Fig. 2 checks them: the last access to its
// location by another goroutine before it (WAR or WAW) if unordered, then
// the first read by another goroutine after it, unordered, before the
// next write to the location (RAW). Accesses of suppressed writes do not
// count.
func (a *Analysis) Races(def int) []Race {
	var out []Race
	w := a.Events[def]
	loc := a.Graph.Loc(def)
	same := func(j int) bool {
		e := a.Events[j]
		if e.Kind != trace.EvRead && e.Kind != trace.EvWrite || e.Addr != loc.Addr || !sameObject(a.Graph.Loc(j), loc) {
			return false
		}
		return !(e.Kind == trace.EvWrite && a.Suppressed[Instance{e.Goroutine, e.Site, a.inst[j]}])
	}
	for j := def - 1; j >= 0; j-- {
		if !same(j) || a.Events[j].Goroutine == w.Goroutine {
			continue
		}
		if a.Graph.Concurrent(j, def) {
			shape := "WAR"
			if a.Events[j].Kind == trace.EvWrite {
				shape = "WAW"
			}
			out = append(out, Race{First: a.access(j), Second: a.access(def), Shape: shape})
		}
		break
	}
	for j := def + 1; j < len(a.Events); j++ {
		if !same(j) {
			continue
		}
		e := a.Events[j]
		if e.Kind == trace.EvWrite {
			break
		}
		if e.Goroutine == w.Goroutine {
			continue
		}
		if a.Graph.Concurrent(def, j) {
			out = append(out, Race{First: a.access(def), Second: a.access(j), Shape: "RAW"})
		}
		break
	}
	return out
}

// A Violation is a potential atomicity or order violation at a
// definition (Fig. 3): First and Third of one goroutine with Middle of
// another between them (Shape W1R2W1, R1W2W1, R1W2R1 or W1W2R1), or, for
// a two-access order violation, First and Middle only (Third nil).
type Violation struct {
	First, Middle, Third *Access
	Shape                string
}

// Violations returns the potential violations at the definition def, in
// the order Fig. 3 checks them, with the two-access order violations
// last. Unlike races, three-access violations may be synchronized or not;
// a two-access one is synchronized (happens-before orders the two), or it
// would be a race.
func (a *Analysis) Violations(def int) []Violation {
	var out []Violation
	w := a.Events[def]
	loc := a.Graph.Loc(def)
	same := func(j int) bool {
		e := a.Events[j]
		if e.Kind != trace.EvRead && e.Kind != trace.EvWrite || e.Addr != loc.Addr || !sameObject(a.Graph.Loc(j), loc) {
			return false
		}
		return !(e.Kind == trace.EvWrite && a.Suppressed[Instance{e.Goroutine, e.Site, a.inst[j]}])
	}
	letter := func(j int) string {
		if a.Events[j].Kind == trace.EvWrite {
			return "W"
		}
		return "R"
	}
	lastSame, lastDiff := -1, -1
	for j := def - 1; j >= 0 && (lastSame < 0 || lastDiff < 0); j-- {
		if !same(j) {
			continue
		}
		if a.Events[j].Goroutine == w.Goroutine {
			if lastSame < 0 {
				lastSame = j
			}
		} else if lastDiff < 0 {
			lastDiff = j
		}
	}
	// Fig. 3, line 4: the same goroutine's last access before the other
	// goroutine's, exactly one of them a read.
	if lastSame > lastDiff {
		lastSame = -1
	}
	if lastSame >= 0 && lastDiff >= 0 && letter(lastSame) != letter(lastDiff) {
		out = append(out, Violation{First: a.access(lastSame), Middle: a.access(lastDiff), Third: a.access(def),
			Shape: letter(lastSame) + "1" + letter(lastDiff) + "2W1"})
	}
	// After def: the next read by another goroutine, which accessed the
	// location before def too (R1W2R1, W1W2R1).
	next := -1
	for j := def + 1; j < len(a.Events); j++ {
		if !same(j) {
			continue
		}
		e := a.Events[j]
		if e.Kind == trace.EvWrite {
			break
		}
		if e.Goroutine != w.Goroutine {
			next = j
			break
		}
	}
	if next >= 0 {
		prev := -1
		for j := def - 1; j >= 0; j-- {
			if same(j) && a.Events[j].Goroutine == a.Events[next].Goroutine {
				prev = j
				break
			}
		}
		if prev >= 0 {
			out = append(out, Violation{First: a.access(prev), Middle: a.access(def), Third: a.access(next),
				Shape: letter(prev) + "1W2R1"})
		}
	}
	// Two accesses in the wrong order: synchronized ones only (unordered
	// ones are a race, which Races checks).
	if lastDiff >= 0 && a.Graph.HappensBefore(lastDiff, def) {
		out = append(out, Violation{First: a.access(lastDiff), Middle: a.access(def), Shape: letter(lastDiff) + "W"})
	}
	if next >= 0 && a.Graph.HappensBefore(def, next) {
		out = append(out, Violation{First: a.access(def), Middle: a.access(next), Shape: "WR"})
	}
	return out
}

// Value returns the value word the event at index i defined or read: for
// a write its own, for a read the last definition's (0 if none).
func (a *Analysis) Value(i int) uint64 {
	if a.Events[i].Kind == trace.EvWrite {
		return a.Events[i].Value
	}
	if d := a.lastDef(i); d >= 0 {
		return a.Events[d].Value
	}
	return 0
}

// LockOf returns the Lock event that opened the outermost critical section
// the event at index i is in, or nil: a goroutine held back there, rather
// than inside the section, does not keep others out of it.
func (a *Analysis) LockOf(i int) *Access {
	g := a.Graph.Goroutine(i)
	for _, s := range a.Graph.Sections() {
		if s.G == g && s.Parent == -1 && s.Begin < i && (s.End < 0 || s.End >= i) {
			acc := a.access(s.Begin)
			return acc
		}
	}
	return nil
}

// Reorderings returns, for a trace of a run that passed, the pairs of
// accesses worth running in the other order to make it fail: two accesses
// to one location by different goroutines, one a write, that
// happens-before does not order (a mutex orders nothing here: two critical
// sections of one lock can run the other way round, as ConMem predicts).
// First is the access the run made first. Stores of nil (or zero) before
// the reads that came first come first, then the other write-read pairs,
// then write-write pairs; one pair per pair of sites, at most max.
func Reorderings(evs []trace.Event, sites *trace.SiteTable, max int) []Race {
	a, byAddr := accesses(evs, sites)
	g := a.Graph
	seen := make(map[[2]uint32]bool)
	var cs []ranked[Race]
	for _, is := range byAddr {
		for x, i := range is {
			for _, j := range is[x+1:] {
				ei, ej := evs[i], evs[j]
				if ei.Goroutine == ej.Goroutine || ei.Kind != trace.EvWrite && ej.Kind != trace.EvWrite {
					continue
				}
				if g.Loc(i).Epoch != g.Loc(j).Epoch || !g.Concurrent(i, j) {
					continue
				}
				key := [2]uint32{ei.Site, ej.Site}
				if seen[key] {
					continue
				}
				seen[key] = true
				rank := 2
				switch {
				case ej.Kind == trace.EvWrite && ej.Value == 0 && ei.Kind == trace.EvRead:
					rank = 0 // a nil store the read would see
				case ei.Kind != ej.Kind:
					rank = 1
				}
				shape := "RW"
				switch {
				case ei.Kind == trace.EvWrite && ej.Kind == trace.EvWrite:
					shape = "WW"
				case ei.Kind == trace.EvWrite:
					shape = "WR"
				}
				cs = append(cs, ranked[Race]{Race{First: a.access(i), Second: a.access(j), Shape: shape}, rank, i, j})
			}
		}
	}
	return best(cs, max)
}

// ranked is a candidate of Reorderings or Interpositions with its rank and
// the trace positions that order candidates of one rank.
type ranked[T any] struct {
	v          T
	rank, a, b int
}

// best returns the values of cs in the order of their rank, then
// positions, at most n (all if n is negative).
func best[T any](cs []ranked[T], n int) []T {
	slices.SortStableFunc(cs, func(p, q ranked[T]) int {
		return cmp.Or(cmp.Compare(p.rank, q.rank), cmp.Compare(p.a, q.a), cmp.Compare(p.b, q.b))
	})
	if n < 0 || n > len(cs) {
		n = len(cs)
	}
	var out []T
	for _, c := range cs[:n] {
		out = append(out, c.v)
	}
	return out
}

// accesses analyzes a trace for Reorderings and Interpositions and
// indexes its reads and writes by address, in trace order: the last 256 of
// each, which bounds the pairs and triples of a hot location.
func accesses(evs []trace.Event, sites *trace.SiteTable) (*Analysis, map[uint64][]int) {
	g := hb.Analyze(evs, hb.Options{Sites: sites})
	a := &Analysis{Events: evs, Sites: sites, Graph: g, inst: make([]uint64, len(evs))}
	for i := range evs {
		a.inst[i] = g.Instance(i)
	}
	byAddr := make(map[uint64][]int)
	for i, e := range evs {
		if e.Kind == trace.EvRead || e.Kind == trace.EvWrite {
			byAddr[e.Addr] = append(byAddr[e.Addr], i)
		}
	}
	for addr, is := range byAddr {
		if len(is) > 256 {
			byAddr[addr] = is[len(is)-256:]
		}
	}
	return a, byAddr
}

// Interpositions returns, for a trace of a run that passed, the
// unserializable interleavings worth forcing to make it fail: a remote
// access (Middle) moved between two consecutive accesses of one goroutine
// to the same location (First, Third) that it did not come between in the
// run, with a shape no serial order gives (R1W2R1, W1W2R1, R1W2W1 or
// W1R2W1; AVIO's, as Violations checks them at a definition); a remote
// read also between a write and the goroutine's next write with its own
// reads between (W1R2W1 past a check of the value). A reversal
// of two accesses (Reorderings) does not place the moved access: when the
// run made W2 before W1 R1, forcing W1 before W2 may let R1 run first, as
// when the run made W1 R1 W2 it may not, and only W1 W2 R1 crashes
// (mozilla2x, its abort started late by a loaded machine). Middle must
// not be ordered with the access it moves past by happens-before (a mutex
// orders nothing here). Nil stores between a write and the read of it
// come first; one per triple of sites, at most max.
func Interpositions(evs []trace.Event, sites *trace.SiteTable, max int) []Violation {
	a, byAddr := accesses(evs, sites)
	g := a.Graph
	seen := make(map[[3]uint32]bool)
	var cs []ranked[Violation]
	for _, is := range byAddr {
		for x, i := range is {
			// k: the goroutine's next access to the location in this
			// epoch; for a write, also its next write (kw), with reads of
			// its own between: a remote read there sees a value the
			// goroutine was still to overwrite (pos++ to len(buf), a
			// check of it, then pos = 0), which no pair of consecutive
			// accesses shows.
			k, kw := -1, -1
			for _, j := range is[x+1:] {
				if evs[j].Goroutine != evs[i].Goroutine {
					continue
				}
				if g.Loc(j).Epoch != g.Loc(i).Epoch {
					break
				}
				if k < 0 {
					k = j
				}
				if evs[i].Kind != trace.EvWrite || evs[j].Kind == trace.EvWrite {
					kw = j
					break
				}
			}
			if k < 0 {
				continue
			}
			for _, m := range is {
				mid := evs[m]
				if mid.Goroutine == evs[i].Goroutine || g.Loc(m).Epoch != g.Loc(i).Epoch {
					continue
				}
				k := k
				if mid.Kind == trace.EvRead && kw >= 0 {
					k = kw
				}
				if i < m && m < k {
					continue
				}
				first, third := evs[i], evs[k]
				w1, w2, w3 := first.Kind == trace.EvWrite, mid.Kind == trace.EvWrite, third.Kind == trace.EvWrite
				if w2 && w1 && w3 || !w2 && !(w1 && w3) {
					continue // serializable: W1W2W1, or a remote read not between two writes
				}
				if m < i && !g.Concurrent(m, i) || m > k && !g.Concurrent(k, m) {
					continue
				}
				key := [3]uint32{first.Site, mid.Site, third.Site}
				if seen[key] {
					continue
				}
				seen[key] = true
				shape := map[bool]string{true: "W", false: "R"}
				rank := 1
				if w2 && mid.Value == 0 && !w3 {
					rank = 0 // a nil store the read would see
				}
				cs = append(cs, ranked[Violation]{Violation{First: a.access(i), Middle: a.access(m), Third: a.access(k),
					Shape: shape[w1] + "1" + shape[w2] + "2" + shape[w3] + "1"}, rank, i, m})
			}
		}
	}
	return best(cs, max)
}

// sameObject reports whether locations l and m of one address are in one
// GC epoch and one generation (hb.Loc.Gen): the same object's.
func sameObject(l, m hb.Loc) bool { return l.Epoch == m.Epoch && l.Gen == m.Gen }
