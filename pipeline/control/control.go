// Package control is the driver's side of the shim's control modes (see
// package shim/plan for the plan and result formats): it writes
// plans, turns trace events into the points plans name, builds replay plans
// from traces, and reads result files into an outcome, including the files
// of runs that crashed or ended before the shim wrote a final line.
package control

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/shim/plan"
	"github.com/precog-dev/precog/shim/trace"
)

// WritePlan writes p as JSON to path.
func WritePlan(path string, p *plan.Plan) error {
	data, err := json.MarshalIndent(p, "", "\t")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

// Points returns, for each event of evs, the point a plan names it by, or
// the zero point for events that are never points (site 0). evs must hold
// each goroutine's events in its program order, as trace.ReadAll returns
// them; the shim counts arrivals the same way, per goroutine and site.
func Points(evs []trace.Event) []plan.Point {
	type gs struct {
		g    uint64
		site uint32
	}
	count := make(map[gs]uint64)
	pts := make([]plan.Point, len(evs))
	for i, ev := range evs {
		if ev.Site == 0 {
			continue
		}
		k := gs{ev.Goroutine, ev.Site}
		pts[i] = plan.Point{G: ev.Goroutine, Site: ev.Site, N: count[k], Kind: ev.Kind.String()}
		count[k]++
	}
	return pts
}

// Stable returns the goroutines of evs whose logical ids the next run of
// the same test gives the same goroutines: those an instrumented go
// statement or task started, test goroutines and the main goroutine. The
// others (started by code that is not instrumented, numbered in the order
// they first reached the shim) are best left out of replay plans.
func Stable(evs []trace.Event) func(g uint64) bool {
	stable := map[uint64]bool{0: true}
	for _, ev := range evs {
		switch {
		case ev.Kind == trace.EvBegin && ev.Peer != trace.NoParent:
			stable[ev.Goroutine] = true
		case ev.Kind == trace.EvTestStart:
			stable[ev.Goroutine] = true
		}
	}
	return func(g uint64) bool { return stable[g] }
}

// ReplayPlan returns a plan that replays the order of the sync events of
// evs that pass a control gate (in the order of trace.ReadAll) whose goroutine keep accepts (all if
// keep is nil; Stable(evs) is the usual choice), and forces each of their
// selects to the case it took.
func ReplayPlan(evs []trace.Event, keep func(g uint64) bool) *plan.Plan {
	p, _ := ReplayOrder(evs, keep)
	p.Hold = nil
	return p
}

// ungated are the sync events that pass no control gate in the shim (a
// sleep and its wake, a bubble's start, synctest.Wait's return, a bubble
// clock reading, a mark before a call that may start goroutines, an
// adopted goroutine's creators, a t.Run's return): no goroutine arrives at
// them, so an order that named them would wait for them forever.
var ungated = map[trace.Kind]bool{trace.EvSleep: true, trace.EvWake: true, trace.EvBubble: true,
	trace.EvSyncWait: true, trace.EvClock: true, trace.EvMark: true, trace.EvCreator: true, trace.EvRan: true}

// ReplayOrder is ReplayPlan's order with, for each position, the index in
// evs of its event, and the goroutines keep accepts that have events in
// evs but no position (plan.Plan.Hold, for a force plan with the order).
func ReplayOrder(evs []trace.Event, keep func(g uint64) bool) (*plan.Plan, []int) {
	p := &plan.Plan{Mode: plan.Replay}
	var at []int
	defer func() {
		in := make(map[uint64]bool)
		for _, q := range p.Order {
			in[q.G] = true
		}
		for _, ev := range evs {
			if g := ev.Goroutine; !in[g] && (keep == nil || keep(g)) {
				in[g] = true
				p.Hold = append(p.Hold, g)
			}
		}
	}()
	for i, pt := range Points(evs) {
		ev := evs[i]
		if pt.Site == 0 || !ev.Kind.IsSync() || ungated[ev.Kind] || (keep != nil && !keep(ev.Goroutine)) {
			continue
		}
		p.Order = append(p.Order, pt)
		at = append(at, i)
		if ev.Kind == trace.EvSelect {
			p.Selects = append(p.Selects, plan.Select{Point: pt, Case: int(ev.Arg)})
		}
	}
	return p, at
}

// Cut returns how many positions of an order (at: each position's event
// index in evs, from ReplayOrder) a re-execution can follow and still
// reach the events at indexes idx of evs as the recorded run did: the
// positions before the first event of each one's goroutine at or after it
// in program order. Following more would make a goroutine pass a sync
// event that came after one of them first. len(at) if none limits it.
func Cut(evs []trace.Event, at []int, idx ...int) int {
	pos := make(map[int]int, len(at)) // event index -> position
	for p, i := range at {
		pos[i] = p
	}
	cut := len(at)
	for _, i := range idx {
		if i < 0 || i >= len(evs) {
			continue
		}
		g := evs[i].Goroutine
		for j := i; j < len(evs); j++ {
			if p, ok := pos[j]; ok && evs[j].Goroutine == g {
				cut = min(cut, p)
				break
			}
		}
	}
	return cut
}

// A Result is what a run under a plan did.
type Result struct {
	// State is plan.Confirmed, TimedOut or Diverged for force and replay
	// plans, plan.Rejected if the shim rejected the plan, "" for perturb.
	State  string
	Reason string
	// Final reports whether the shim wrote the final line itself; if
	// not, the run ended (or crashed) first and State is inferred from
	// the steps it reached.
	Final   bool
	Records []plan.Record
	// Replayed is how many positions of a replay order (or a force
	// plan's) were passed.
	Replayed int
	// Left, for a force plan with an order, is where the run left the
	// order (the "left" line); nil if it did not. FollowedTo is true
	// when the shim let the order go after its Until positions passed
	// ("replayed").
	Left       *plan.Record
	FollowedTo bool
	// Version is the file's layout (plan.ResultVersion; 1 for a file
	// whose plan line has none, which names no addresses).
	Version int
}

// Touched returns what force step p touched when the run reached it, as
// its "reached" line names it: the address of its memory (a map's
// header, a sync object) and the collections the shim had counted then.
// ok is false if the run never reached p, or reached it with no address
// (a file of version 1 names none).
func (r *Result) Touched(p plan.Point) (addr, epoch uint64, ok bool) {
	p = bare(&p)
	for _, rec := range r.Records {
		if rec.Event == plan.EvReached && bare(rec.Point) == p && rec.Addr != 0 {
			return rec.Addr, rec.Epoch, true
		}
	}
	return 0, 0, false
}

// ReadResult reads a result file written under plan p. A last line cut
// short (the process died while writing it) is ignored.
func ReadResult(r io.Reader, p *plan.Plan) (*Result, error) {
	res := &Result{}
	br := bufio.NewReader(r)
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(b)) > 0 && (err == nil || json.Valid(b)) {
			var rec plan.Record
			if jerr := json.Unmarshal(b, &rec); jerr != nil {
				return nil, fmt.Errorf("reading control result line %d: %w", line, jerr)
			}
			res.Records = append(res.Records, rec)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading control result: %w", err)
		}
	}
	res.Version = 1
	if len(res.Records) > 0 && res.Records[0].Event == plan.EvPlan && res.Records[0].Version > 0 {
		res.Version = res.Records[0].Version
	}
	if res.Version > plan.ResultVersion {
		return nil, fmt.Errorf("reading control result: version %d, but this precog reads versions up to %d (the test binary was built with another precog's shim)", res.Version, plan.ResultVersion)
	}
	passed := make(map[plan.Point]bool)
	reached := make(map[plan.Point]bool)
	lazy := make(map[plan.Point]bool) // reached reads, whose access follows the record
	for _, rec := range res.Records {
		switch rec.Event {
		case plan.EvFinal:
			if !res.Final {
				res.Final, res.State, res.Reason = true, rec.State, rec.Reason
			}
		case plan.EvPassed:
			passed[bare(rec.Point)] = true
			if p.Mode == plan.Replay || rec.Of > 0 {
				res.Replayed = max(res.Replayed, rec.Pos+1)
			}
		case plan.EvLeft:
			if res.Left == nil {
				r := rec
				res.Left = &r
			}
		case plan.EvReplayed:
			res.FollowedTo = true
		case plan.EvReached:
			reached[bare(rec.Point)] = true
			if rec.Point != nil && lazyKinds[rec.Point.Kind] {
				lazy[bare(rec.Point)] = true
			}
		}
	}
	if res.Final || p.Mode == plan.Perturb {
		return res, nil
	}
	switch p.Mode {
	case plan.Force:
		var missing []string
		for _, e := range p.Edges {
			for _, s := range []plan.Point{e.Before, e.After} {
				if s = bare(&s); !passed[s] && !reached[s] {
					missing = append(missing, pointString(s))
				}
			}
		}
		res.State = plan.Confirmed
		if len(missing) > 0 {
			res.State = plan.Diverged
			res.Reason = "the run ended before reaching step " + strings.Join(dedup(missing), ", ")
		} else if a, b, ok := stalled(p.Edges, passed, lazy); ok {
			res.State = plan.Diverged
			res.Reason = "the run ended while step " + pointString(b) + " waited for step " + pointString(a) + ", reached but not passed"
		}
	case plan.Replay:
		res.State = plan.Diverged
		res.Reason = fmt.Sprintf("the run ended at position %d of %d", res.Replayed, len(p.Order))
		if res.Replayed == len(p.Order) {
			res.State, res.Reason = plan.Confirmed, ""
		}
	}
	return res, nil
}

// lazyKinds are the kinds of the steps the shim passes lazily (see the
// shim's passLazily): a read's access is made after the shim returns from
// its step, so a reached read has been made, or is being made, whether or
// not the shim recorded it passed before the run ended.
var lazyKinds = map[string]bool{
	trace.EvRead.String(): true, trace.EvMapRead.String(): true,
	trace.EvMapWrite.String(): true, trace.EvMapIter.String(): true,
}

// stalled reports, for a force run that ended without a final line after
// reaching every step, an edge a -> b whose step b was still held when the
// run ended: a had not been done. A step is done when the shim recorded it
// passed, or when it is a read whose predecessors were all done (the
// shim passes a read lazily, at its goroutine's next event or end, or by
// a successor that found its goroutine blocked, but the read itself is
// made as soon as it is let go). A step
// whose predecessors are all done was let go; not recorded passed, it only
// lost the race with the process's exit, and the order held: a test that
// returns right after the last read of a plan (raceatomic's Closed) ends
// the process while the goroutine waiting for that read is let go.
func stalled(edges []plan.Edge, passed, lazy map[plan.Point]bool) (a, b plan.Point, ok bool) {
	preds := make(map[plan.Point][]plan.Point)
	for _, e := range edges {
		after := bare(&e.After)
		preds[after] = append(preds[after], bare(&e.Before))
	}
	memo := make(map[plan.Point]bool)
	var done func(p plan.Point) bool
	done = func(p plan.Point) bool {
		if v, ok := memo[p]; ok {
			return v
		}
		memo[p] = false // the shim rejects cycles; this ends one anyway
		v := passed[p]
		if !v && lazy[p] {
			v = true
			for _, q := range preds[p] {
				v = v && done(q)
			}
		}
		memo[p] = v
		return v
	}
	for _, e := range edges {
		if before := bare(&e.Before); !done(before) {
			return before, bare(&e.After), true
		}
	}
	return plan.Point{}, plan.Point{}, false
}

// ReadResultFile is ReadResult of the file at path.
func ReadResultFile(path string, p *plan.Plan) (*Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadResult(f, p)
}

func bare(p *plan.Point) plan.Point {
	if p == nil {
		return plan.Point{}
	}
	return plan.Point{G: p.G, Site: p.Site, N: p.N}
}

func pointString(p plan.Point) string {
	return fmt.Sprintf("(g %d, site %d, n %d)", p.G, p.Site, p.N)
}

func dedup(s []string) []string {
	seen := make(map[string]bool)
	var out []string
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// maxLockScan bounds how far back NameLocks looks for the Lock of a
// witness event's critical section (detect/races.CheckStream names the
// Lock of its witnesses the same way, as the events pass).
const maxLockScan = 1 << 20

// NameLocks sets the Lock of each event of w (whose events are known by
// their Index in evs, with pts = Points(evs)): the Lock, RLock or
// successful TryLock of its goroutine that opened the outermost critical
// section open at the event, found by walking the trace back from it.
func NameLocks(evs []trace.Event, pts []plan.Point, w *finding.Witness) {
	for k := range w.Events {
		e := &w.Events[k]
		if e.Index <= 0 || e.Index >= len(evs) {
			continue
		}
		g := evs[e.Index].Goroutine
		released := make(map[uint64]int)
		outer := -1
		for j := e.Index - 1; j >= 0 && e.Index-j < maxLockScan; j-- {
			ev := &evs[j]
			if ev.Goroutine != g {
				continue
			}
			switch ev.Kind {
			case trace.EvBegin:
				j = 0
			case trace.EvUnlock, trace.EvRUnlock:
				released[ev.Addr]++
			case trace.EvLock, trace.EvRLock, trace.EvTryLock:
				if ev.Kind == trace.EvTryLock && ev.Value == 0 {
					continue
				}
				if released[ev.Addr] > 0 {
					released[ev.Addr]--
				} else {
					outer = j
				}
			}
		}
		if outer >= 0 && pts[outer].Site != 0 {
			p := pts[outer]
			e.Lock = &finding.Event{Role: "lock", G: p.G, Site: p.Site, N: p.N, Kind: evs[outer].Kind.String(), Index: outer}
		}
	}
}
