package explain

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/precog-dev/precog/pipeline/control"
	"github.com/precog-dev/precog/pipeline/predict"
	"github.com/precog-dev/precog/pipeline/validate"
	"github.com/precog-dev/precog/shim/plan"
	"github.com/precog-dev/precog/shim/trace"
)

// twoSections is a run of two goroutines each writing x in a critical
// section of one lock, g1 first, and g1 locking once more after g2.
func twoSections() *run {
	return &run{evs: []trace.Event{
		{Kind: trace.EvBegin, Goroutine: 1, Seq: 1},
		{Kind: trace.EvBegin, Goroutine: 2, Seq: 2},
		{Kind: trace.EvLock, Goroutine: 1, Site: 10, Seq: 3},   // position 0
		{Kind: trace.EvWrite, Goroutine: 1, Site: 20, Seq: 3},  // 3: g1's write
		{Kind: trace.EvUnlock, Goroutine: 1, Site: 11, Seq: 4}, // position 1
		{Kind: trace.EvSleep, Goroutine: 1, Site: 12, Seq: 5},  // no position: passes no gate
		{Kind: trace.EvLock, Goroutine: 2, Site: 10, Seq: 6},   // position 2
		{Kind: trace.EvWrite, Goroutine: 2, Site: 21, Seq: 6},  // 7: g2's write
		{Kind: trace.EvUnlock, Goroutine: 2, Site: 11, Seq: 7}, // position 3
		{Kind: trace.EvLock, Goroutine: 1, Site: 10, Seq: 8},   // position 4
		{Kind: trace.EvUnlock, Goroutine: 1, Site: 11, Seq: 9}, // position 5
	}}
}

// TestReexecPlan: a race re-execution follows the run under study's order
// up to the first sync event after either forced access in its goroutine,
// then forces the reversal; a suppression run follows the whole order and
// places the point under study at the suppressed definition. (Before
// re-executions replayed, a race re-execution was a force plan with no
// order: the goroutines reached the pair in whatever order the scheduler
// chose.)
func TestReexecPlan(t *testing.T) {
	u := twoSections()
	for i := range u.evs {
		if u.evs[i].Kind == trace.EvBegin {
			u.evs[i].Peer = 0 // started by an instrumented go statement of the main goroutine: stable ids
		}
	}
	x := &explainer{under: u, iter: 2, supp: []plan.Point{{G: 1, Site: 20, N: 0}}}
	g2w := plan.Point{G: 2, Site: 21, N: 0}
	g2l := plan.Point{G: 2, Site: 10, N: 0}
	g1l := plan.Point{G: 1, Site: 10, N: 1}
	// g1's second section before g2's, g2 held at its Lock: the order is
	// followed up to g2's Lock, position 2.
	o := validate.Order{Edges: []plan.Edge{{Before: g1l, After: g2l}}}
	p, re := x.reexecPlan(ReexecRace, o, "g1 before g2")
	if len(p.Order) != 6 || p.Until != 2 || re.Point != 2 || re.Schedule != 2 {
		t.Errorf("race plan: order %v until %d, reexec %+v; want 6 positions followed up to 2", p.Order, p.Until, re)
	}
	if p.Mode != plan.Force || len(p.Edges) != 1 || len(p.Suppress) != 1 || re.Iteration != 2 {
		t.Errorf("race plan %+v, reexec %+v", p, re)
	}
	// The failing run's own forced edges (x.base) are kept when both
	// steps come before the cut and neither is a step of the order.
	g1w := plan.Point{G: 1, Site: 20, N: 0}
	in := plan.Edge{Before: g1w, After: plan.Point{G: 1, Site: 11, N: 0}} // g1's write and Unlock: before position 2
	x.base = &validate.Order{Edges: []plan.Edge{in,
		{Before: g1w, After: g2w},  // g2's write is after the cut
		{Before: g1w, After: g2l}}} // a step of the order
	if p, _ := x.reexecPlan(ReexecRace, o, ""); len(p.Edges) != 2 || p.Edges[1] != in {
		t.Errorf("race plan edges %+v, want the order's and %+v", p.Edges, in)
	}
	x.base = nil
	// g2's write before g1's last Unlock: g2's first sync event after
	// its write is its Unlock, position 3.
	o = validate.Order{Edges: []plan.Edge{{Before: g2w, After: plan.Point{G: 1, Site: 11, N: 1}}}}
	if p, _ := x.reexecPlan(ReexecVio, o, ""); p.Until != 3 {
		t.Errorf("vio plan until %d, want 3", p.Until)
	}
	// g2's write before g1's, g1 held at its first Lock: nothing of the
	// order can be followed.
	o = validate.Order{Edges: []plan.Edge{{Before: g2w, After: plan.Point{G: 1, Site: 10, N: 0}}}}
	if p, re := x.reexecPlan(ReexecRace, o, ""); len(p.Order) != 0 || re.Point != 0 {
		t.Errorf("a plan held at the first position has an order: %+v", p)
	}
	// A suppression run of g2's write: the whole order; the point under
	// study is g2's Unlock after the write.
	p, re = x.reexecPlan(ReexecSupp, validate.Order{}, "suppressing g2's write", 7)
	if len(p.Order) != 6 || p.Until != 0 || re.Point != 3 || re.Schedule != 6 || len(p.Edges) != 0 {
		t.Errorf("supp plan: order %v until %d, reexec %+v", p.Order, p.Until, re)
	}
	// No run under study (the search for a failing run): no order.
	if p, _ := (&explainer{}).reexecPlan(ReexecRace, o, ""); len(p.Order) != 0 {
		t.Errorf("a plan without a run under study has an order: %+v", p)
	}
}

// TestFollow: a re-execution diverged when it left its schedule, or
// ended, before the point under study.
func TestFollow(t *testing.T) {
	for _, c := range []struct {
		res      *control.Result
		diverged bool
		followed int
	}{
		{&control.Result{Left: &plan.Record{Event: plan.EvLeft, Pos: 2, Reason: "r"}}, true, 2},
		{&control.Result{Left: &plan.Record{Event: plan.EvLeft, Pos: 3, Reason: "r"}}, false, 3},
		{&control.Result{Left: &plan.Record{Event: plan.EvLeft, Pos: 5, Reason: "r"}}, false, 5},
		{&control.Result{FollowedTo: true}, false, 6},
		{&control.Result{Replayed: 4}, false, 4},
		{&control.Result{Replayed: 1}, true, 1},
		{nil, true, 0},
	} {
		re := Reexec{Schedule: 6, Point: 3}
		re.follow(c.res)
		if re.Diverged != c.diverged || re.Followed != c.followed || c.diverged && re.Left == "" {
			t.Errorf("%+v: %+v", c.res, re)
		}
	}
}

// TestReached: a suppression run followed its schedule to the point under
// study when the shim skipped the suppressed definition before the run
// left the schedule, whether or not it ended early.
func TestReached(t *testing.T) {
	def := plan.Point{G: 2, Site: 21, N: 0}
	skipped := plan.Record{Event: plan.EvSuppressed, T: 50, Point: &plan.Point{G: 2, Site: 21, N: 0, Kind: "W"}}
	dep := plan.Record{Event: plan.EvSuppressed, T: 40, Point: &plan.Point{G: 2, Site: 21, N: 0, Kind: "W"}, Reason: "dependence"}
	for _, c := range []struct {
		res      *control.Result
		diverged bool
	}{
		{&control.Result{Replayed: 3, Records: []plan.Record{skipped}}, false}, // ended (a new failure) after it
		{&control.Result{Replayed: 3}, true},                                   // ended before it
		{&control.Result{Replayed: 3, Records: []plan.Record{dep}}, true},      // a dependence's skip is not the definition's
		{&control.Result{Left: &plan.Record{Event: plan.EvLeft, T: 60, Pos: 1}, Records: []plan.Record{skipped}}, false},
		{&control.Result{Left: &plan.Record{Event: plan.EvLeft, T: 30, Pos: 1}, Records: []plan.Record{skipped}}, true},
	} {
		re := Reexec{Kind: ReexecSupp, Schedule: 5, Point: 5}
		re.follow(c.res)
		re.reached(c.res, def)
		if re.Diverged != c.diverged || re.Diverged && re.Left == "" {
			t.Errorf("%+v: %+v", c.res, re)
		}
	}
}

// TestMaxTrace: a run whose trace is over Options.MaxTraceBytes ends
// explain with a TraceTooLargeError before the trace is read, and one at
// the limit is read. The test binary is a shell script that writes a
// trace of as many zero bytes as $SIZE says (a damaged trace: read, it
// has no events) and passes.
func TestMaxTrace(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "p.test")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\nhead -c \"$SIZE\" /dev/zero > \"$PRECOG_TRACE\"\necho PASS\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, size := range []int{1000, 1001} {
		t.Setenv("SIZE", strconv.Itoa(size))
		x := &explainer{o: Options{Timeout: time.Minute, MaxTraceBytes: 1000}, bin: bin, pkgDir: dir, work: t.TempDir()}
		_, err := x.exec(t.Context(), "TestBig", nil)
		var big *TraceTooLargeError
		if got := errors.As(err, &big); got != (size > 1000) {
			t.Errorf("a trace of %d bytes, limit 1000: error %v", size, err)
		}
		if big != nil && (big.Bytes != 1001 || !strings.HasPrefix(big.Error(), "TestBig's run 1 (as written) left a trace of 0.0 MiB, over the limit of 0 MiB (-max-trace)")) {
			t.Errorf("error %q, %d bytes", big, big.Bytes)
		}
	}
}

// TestMaxTraceEvents: a run whose trace is within Options.MaxTraceBytes
// in bytes but has more events than the limit over
// predict.TraceEventBytes ends explain with a TraceTooLargeError that
// counts them, none read; one event fewer is read whole. The test binary
// copies a trace of 2,000 reads of a few bytes each, as dense as an
// access-heavy recorded trace.
func TestMaxTraceEvents(t *testing.T) {
	var text strings.Builder
	text.WriteString("precog trace v1 test=\"TestX\" package=\"example.com/k\" start=2025-01-02T15:04:05Z pid=1\n1 g=1 Begin parent=none\n")
	for i := range 2000 {
		fmt.Fprintf(&text, "1.%d g=1 Read site=1 addr=0x1008\n", i+1)
	}
	tr, err := trace.ParseText(strings.NewReader(text.String()))
	if err != nil {
		t.Fatal(err)
	}
	var e trace.Encoder
	b := trace.AppendHeader(nil, trace.Header{Test: "TestX", Package: "example.com/k"})
	start := len(b)
	b = e.StartBatch(b, 1)
	for _, ev := range tr.Events {
		b = e.AppendEvent(b, ev)
	}
	trace.FinishBatch(b[start:])
	dir := t.TempDir()
	src := filepath.Join(dir, "dense.trace")
	if err := os.WriteFile(src, b, 0o666); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "p.test")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\ncp \""+src+"\" \"$PRECOG_TRACE\"\necho PASS\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	n := len(tr.Events)
	limit := int64(predict.TraceEventBytes * (n - 1))
	if limit < int64(len(b)) {
		t.Fatalf("%d events in %d bytes: the events limit would not bind within the bytes'", n, len(b))
	}
	for _, max := range []int64{limit, limit + predict.TraceEventBytes} {
		x := &explainer{o: Options{Timeout: time.Minute, MaxTraceBytes: max}, bin: bin, pkgDir: dir, work: t.TempDir()}
		r, err := x.exec(t.Context(), "TestX", nil)
		var big *TraceTooLargeError
		switch {
		case max == limit && (!errors.As(err, &big) || big.Events != n || !strings.Contains(big.Error(), fmt.Sprintf("left a trace of %d events", n))):
			t.Errorf("limit %d: error %v, want a TraceTooLargeError of %d events", max, err, n)
		case max > limit && (err != nil || len(r.evs) != n):
			t.Errorf("limit %d: error %v, want the %d events read", max, err, n)
		}
	}
}
