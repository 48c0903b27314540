package validate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/pipeline/control"
	"github.com/precog-dev/precog/pipeline/record"
	"github.com/precog-dev/precog/shim/plan"
	"github.com/precog-dev/precog/shim/trace"
)

func ev(role string, g uint64, site uint32, n uint64, index int) finding.Event {
	return finding.Event{Role: role, G: g, Site: site, N: n, Index: index}
}

func pt(g uint64, site uint32, n uint64) plan.Point {
	return plan.Point{G: g, Site: site, N: n}
}

// TestOrders checks the plan of each kind against ConMem-v's targets.
func TestOrders(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    finding.Finding
		w    finding.Witness
		want [][]plan.Edge // per order
		// controls, if set, are the orders' Control edges.
		controls [][]plan.Edge
		error    string
	}{
		{
			name: "con-null with a check: check, store, use; then store, use",
			f:    finding.Finding{Kind: "con-null"},
			w:    finding.Witness{Events: []finding.Event{ev("deref", 1, 20, 0, 9), ev("nil-store", 2, 15, 0, 5), ev("check", 1, 19, 0, 8)}},
			want: [][]plan.Edge{
				{{Before: pt(1, 19, 0), After: pt(2, 15, 0)}, {Before: pt(2, 15, 0), After: pt(1, 20, 0)}},
				{{Before: pt(2, 15, 0), After: pt(1, 20, 0)}},
			},
		},
		{
			name: "con-uninit: the read before every initializing write",
			f:    finding.Finding{Kind: "con-uninit"},
			w:    finding.Witness{Events: []finding.Event{ev("read", 1, 3, 0, 4), ev("init", 0, 7, 0, 2), ev("init", 2, 8, 1, 3)}},
			want: [][]plan.Edge{{{Before: pt(1, 3, 0), After: pt(0, 7, 0)}, {Before: pt(1, 3, 0), After: pt(2, 8, 1)}}},
		},
		{
			name: "wait group: the Done before the Add",
			f:    finding.Finding{Kind: "con-uninit"},
			w:    finding.Witness{Events: []finding.Event{ev("done", 1, 3, 0, 4), ev("add", 0, 7, 0, 2)}},
			want: [][]plan.Edge{{{Before: pt(1, 3, 0), After: pt(0, 7, 0)}}},
		},
		{
			name: "wait group: the Wait before the Add that starts the count",
			f:    finding.Finding{Kind: "con-uninit"},
			w:    finding.Witness{Events: []finding.Event{ev("wait", 0, 24, 0, 9), ev("add", 3, 29, 0, 4)}},
			want: [][]plan.Edge{{{Before: pt(0, 24, 0), After: pt(3, 29, 0)}}},
		},
		{
			name: "con-closed: two closes",
			f:    finding.Finding{Kind: "con-closed"},
			w:    finding.Witness{Events: []finding.Event{ev("close", 1, 3, 0, 4), ev("close", 2, 3, 0, 7)}},
			want: [][]plan.Edge{{{Before: pt(1, 3, 0), After: pt(2, 3, 0)}}},
		},
		{
			name: "con-index: both orders, and the loop's last iteration",
			f:    finding.Finding{Kind: "con-index"},
			w: finding.Witness{Events: []finding.Event{ev("index", 1, 5, 0, 4), ev("write", 2, 9, 0, 7),
				ev("check", 1, 4, 0, 3), ev("index-last", 1, 5, 3, 12), ev("check-last", 1, 4, 4, 11)}},
			want: [][]plan.Edge{
				{{Before: pt(1, 4, 0), After: pt(2, 9, 0)}, {Before: pt(2, 9, 0), After: pt(1, 5, 0)}},
				{{Before: pt(1, 4, 4), After: pt(2, 9, 0)}, {Before: pt(2, 9, 0), After: pt(1, 5, 3)}},
				{{Before: pt(1, 5, 0), After: pt(2, 9, 0)}},
			},
		},
		{
			name: "con-index with a write its goroutine overwrites: the index between the two, after the write before the index",
			f:    finding.Finding{Kind: "con-index"},
			w: finding.Witness{Events: []finding.Event{ev("index", 1, 5, 0, 4), ev("write", 2, 9, 0, 7),
				ev("write-at", 2, 9, 1, 14), ev("write-next", 2, 10, 0, 15)}},
			want: [][]plan.Edge{
				{{Before: pt(2, 9, 0), After: pt(1, 5, 0)}},
				{{Before: pt(2, 9, 1), After: pt(1, 5, 0)}, {Before: pt(1, 5, 0), After: pt(2, 10, 0)}},
				{{Before: pt(1, 5, 0), After: pt(2, 9, 0)}},
			},
		},
		{
			name: "con-null with a check and a nil its goroutine overwrites: the check, the store, the use, the next store last",
			f:    finding.Finding{Kind: "con-null"},
			w: finding.Witness{Events: []finding.Event{ev("deref", 1, 20, 0, 9), ev("nil-store", 2, 15, 0, 5), ev("check", 1, 19, 0, 8),
				ev("write-at", 2, 15, 0, 5), ev("write-next", 2, 16, 0, 6)}},
			want: [][]plan.Edge{
				{{Before: pt(1, 19, 0), After: pt(2, 15, 0)}, {Before: pt(2, 15, 0), After: pt(1, 20, 0)}},
				{{Before: pt(2, 15, 0), After: pt(1, 20, 0)}},
				{{Before: pt(1, 19, 0), After: pt(2, 15, 0)}, {Before: pt(2, 15, 0), After: pt(1, 20, 0)}, {Before: pt(1, 20, 0), After: pt(2, 16, 0)}},
			},
		},
		{
			name: "oscs: the section recorded second runs first, its unlock before the other's lock; then the recorded order",
			f: finding.Finding{Kind: "oscs", Sites: []finding.Site{
				{Role: "write", File: "/a.go", Line: 5}, {Role: "read", File: "/a.go", Line: 9}, {Role: "lock"}, {Role: "lock"}}},
			w: finding.Witness{Events: []finding.Event{ev("write", 1, 5, 0, 10), ev("read", 2, 9, 0, 20),
				ev("lock", 1, 4, 0, 9), ev("lock", 2, 8, 0, 19), ev("unlock-1", 1, 6, 0, 11), ev("unlock-2", 2, 10, 0, 21)}},
			want: [][]plan.Edge{{{Before: pt(2, 10, 0), After: pt(1, 4, 0)}}, {{Before: pt(1, 6, 0), After: pt(2, 8, 0)}}},
		},
		{
			// MySQL2-AM: goroutine 1 writes the row (4-6), then logs it
			// (30-31); goroutine 2 the same later (40-42, 50-51), and
			// its previous section (35-36) came after goroutine 1's.
			name: "oscs: then goroutine 2's section and its next between goroutine 1's and its next; then goroutine 1's between goroutine 2's previous and its own",
			f: finding.Finding{Kind: "oscs", Sites: []finding.Site{
				{Role: "write", File: "/a.go", Line: 5}, {Role: "write", File: "/a.go", Line: 5}, {Role: "lock"}, {Role: "lock"}}},
			w: finding.Witness{Events: []finding.Event{ev("write", 1, 5, 0, 5), ev("write", 2, 5, 0, 41),
				ev("lock", 1, 4, 0, 4), ev("lock", 2, 4, 0, 40), ev("unlock-1", 1, 6, 0, 6), ev("unlock-2", 2, 6, 0, 42),
				ev("next-lock-1", 1, 30, 0, 30), ev("next-unlock-1", 1, 31, 0, 31),
				ev("prev-lock-2", 2, 35, 0, 35), ev("prev-unlock-2", 2, 36, 0, 36),
				ev("next-lock-2", 2, 30, 0, 50), ev("next-unlock-2", 2, 31, 0, 51)}},
			want: [][]plan.Edge{
				{{Before: pt(2, 6, 0), After: pt(1, 4, 0)}},
				{{Before: pt(1, 6, 0), After: pt(2, 4, 0)}},
				{{Before: pt(1, 6, 0), After: pt(2, 4, 0)}, {Before: pt(2, 31, 0), After: pt(1, 30, 0)}},
				{{Before: pt(2, 36, 0), After: pt(1, 4, 0)}, {Before: pt(1, 6, 0), After: pt(2, 4, 0)}},
			},
			controls: [][]plan.Edge{nil, nil,
				{{Before: pt(1, 31, 0), After: pt(2, 4, 0)}},
				{{Before: pt(1, 6, 0), After: pt(2, 35, 0)}},
			},
		},
		{
			// The run already had goroutine 2's sections between goroutine
			// 1's two, and goroutine 2's previous section before goroutine
			// 1's: it passed that way, and neither is tried again.
			name: "oscs: no atomicity order the recorded run followed",
			f: finding.Finding{Kind: "oscs", Sites: []finding.Site{
				{Role: "write", File: "/a.go", Line: 5}, {Role: "write", File: "/a.go", Line: 5}, {Role: "lock"}, {Role: "lock"}}},
			w: finding.Witness{Events: []finding.Event{ev("write", 1, 5, 0, 5), ev("write", 2, 5, 0, 11),
				ev("lock", 1, 4, 0, 4), ev("lock", 2, 4, 0, 10), ev("unlock-1", 1, 6, 0, 6), ev("unlock-2", 2, 6, 0, 12),
				ev("next-lock-1", 1, 30, 0, 30), ev("next-unlock-1", 1, 31, 0, 31),
				ev("prev-lock-2", 2, 35, 0, 1), ev("prev-unlock-2", 2, 36, 0, 2),
				ev("next-lock-2", 2, 30, 0, 20), ev("next-unlock-2", 2, 31, 0, 21)}},
			want: [][]plan.Edge{{{Before: pt(2, 6, 0), After: pt(1, 4, 0)}}, {{Before: pt(1, 6, 0), After: pt(2, 4, 0)}}},
		},
		{
			name:  "a witness without the events",
			f:     finding.Finding{Kind: "con-null"},
			w:     finding.Witness{Events: []finding.Event{ev("deref", 1, 20, 0, 9)}},
			error: "no nil-store event",
		},
		{
			name: "unicorn: the accesses in the failing order, across goroutines only",
			f:    finding.Finding{Kind: "unicorn-p9"},
			w: finding.Witness{Events: []finding.Event{ev("W1(x)", 1, 5, 0, 10), ev("W2(x)", 2, 5, 0, 12),
				ev("W2(y)", 2, 7, 0, 20), ev("W1(y)", 1, 7, 0, 30)}},
			want: [][]plan.Edge{{{Before: pt(1, 5, 0), After: pt(2, 5, 0)}, {Before: pt(2, 7, 0), After: pt(1, 7, 0)}}},
		},
		{
			name: "con-map: both accesses released together, repeated",
			f:    finding.Finding{Kind: "con-map"},
			w:    finding.Witness{Events: []finding.Event{ev("map-write", 1, 5, 0, 10), ev("map-read", 2, 4, 0, 12)}},
			want: [][]plan.Edge{nil},
		},
		{
			name: "race: both accesses held at once, then each right before the other",
			f:    finding.Finding{Kind: "race"},
			w:    finding.Witness{Events: []finding.Event{ev("read", 2, 9, 1, 14), ev("write", 1, 6, 0, 11)}},
			want: [][]plan.Edge{nil, {{Before: pt(1, 6, 0), After: pt(2, 9, 1)}}, {{Before: pt(2, 9, 1), After: pt(1, 6, 0)}}},
		},
		{
			name:  "a kind without a plan",
			f:     finding.Finding{Kind: "con-bogus"},
			error: "no way to force",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			orders, err := Orders(tc.f, tc.w)
			if tc.error != "" {
				if err == nil || !strings.Contains(err.Error(), tc.error) {
					t.Fatalf("Orders = %v, %v; want error %q", orders, err, tc.error)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(orders) != len(tc.want) {
				t.Fatalf("%d orders %+v, want %d", len(orders), orders, len(tc.want))
			}
			for i, o := range orders {
				if !equalEdges(o.Edges, tc.want[i]) {
					t.Errorf("order %d (%s): edges %+v, want %+v", i, o.What, o.Edges, tc.want[i])
				}
				if tc.controls != nil && !equalEdges(o.Control, tc.controls[i]) {
					t.Errorf("order %d (%s): control %+v, want %+v", i, o.What, o.Control, tc.controls[i])
				}
				if o.Control != nil && !equalEdges(recorded(o, tc.w).Edges, o.Control) {
					t.Errorf("order %d (%s): the control run forces %+v, want its Control", i, o.What, recorded(o, tc.w).Edges)
				}
			}
			if tc.f.Kind == "race" {
				if o := orders[0]; len(o.Together) != 1 || !slices.Equal(o.Together[0], []plan.Point{pt(1, 6, 0), pt(2, 9, 1)}) || o.Repeat > 1 {
					t.Errorf("race's first order %+v: want the two accesses in one group released together, once", o)
				}
			}
			if tc.f.Kind == "con-map" {
				if o := orders[0]; len(o.Together) != 1 || len(o.Together[0]) != 2 || o.Repeat != MapRepeat {
					t.Errorf("con-map order %+v: want one group of the two accesses, repeated %d times", o, MapRepeat)
				}
			}
		})
	}
}

// TestSteps checks that an order's steps name the witness's events,
// including the Lock a lifted order holds a goroutine back at, and that a
// point the witness does not name keeps its goroutine, site and count.
func TestSteps(t *testing.T) {
	deref := ev("deref", 1, 20, 0, 9)
	lock := ev("lock", 1, 18, 0, 6)
	deref.Lock = &lock
	w := finding.Witness{Test: "p.TestA", Run: 2, Events: []finding.Event{deref, ev("nil-store", 2, 15, 0, 5), ev("check", 1, 19, 0, 8)}}
	orders, err := Orders(finding.Finding{Kind: "con-null"}, w)
	if err != nil {
		t.Fatal(err)
	}
	var lifted *Order
	for i := range orders {
		if strings.Contains(orders[i].What, "held back before its critical section") {
			lifted = &orders[i]
			break
		}
	}
	if lifted == nil {
		t.Fatalf("no lifted order among %+v", orders)
	}
	s := lifted.Steps(w)
	if s.What != lifted.What || s.Run != 2 || len(s.Edges) != len(lifted.Edges) {
		t.Fatalf("steps %+v of %+v", s, lifted)
	}
	var roles []string
	for _, e := range s.Edges {
		roles = append(roles, e.Before.Role+">"+e.After.Role)
		if e.Before.Lock != nil || e.After.Lock != nil {
			t.Errorf("step %+v keeps a Lock", e)
		}
	}
	if got := strings.Join(roles, " "); got != "check>nil-store nil-store>lock" {
		t.Errorf("steps %s, want check>nil-store nil-store>lock", got)
	}
	o := Order{What: "other", Edges: []plan.Edge{{Before: pt(2, 15, 0), After: pt(7, 99, 3)}}}
	if e := o.Steps(w).Edges[0].After; e.Role != "step" || e.G != 7 || e.Site != 99 || e.N != 3 || e.Index != -1 {
		t.Errorf("an event the witness lacks: %+v", e)
	}
}

// TestRecordedOrder: the control order reverses every edge, and a step
// that would then wait inside its critical section for another goroutine's
// Lock waits at its own section's Lock instead; a step outside any section
// stays where it is.
func TestRecordedOrder(t *testing.T) {
	read := ev("read", 1, 20, 0, 9)
	lock := ev("lock", 1, 18, 0, 6)
	read.Lock = &lock
	w := finding.Witness{Events: []finding.Event{read, lock, ev("lock", 2, 30, 0, 12), ev("write", 3, 40, 0, 15)}}
	o := Order{What: "forced", Seed: 7, Edges: []plan.Edge{
		{Before: pt(1, 20, 0), After: pt(2, 30, 0)}, // the read before the other's Lock
		{Before: pt(2, 30, 0), After: pt(3, 40, 0)},
	}}
	got := recorded(o, w)
	want := []plan.Edge{
		{Before: pt(2, 30, 0), After: pt(1, 18, 0)}, // held at its Lock, not at the read
		{Before: pt(3, 40, 0), After: pt(2, 30, 0)},
	}
	if !equalEdges(got.Edges, want) || got.Seed != 7 {
		t.Errorf("recorded order %+v, want edges %+v and seed 7", got, want)
	}
}

func equalEdges(a, b []plan.Edge) bool {
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

// Panics of a worker running a task (ringnoclear's shape): a nil
// dereference above the Done in its function, one at the Done's line, and
// the Done's negative counter.
const (
	nilInRun = `panic: runtime error: invalid memory address or nil pointer dereference
[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x5a1b2c]

goroutine 8 [running]:
example.com/k/ring.(*Task).Run(0x0)
	/src/k/ring/ring.go:35 +0x1d
example.com/k/ring.TestSubmit.func1()
	/src/k/ring/ring_test.go:16 +0x45
created by example.com/k/ring.TestSubmit in goroutine 7
	/src/k/ring/ring_test.go:14 +0x99
`
	nilAtDone = `panic: runtime error: invalid memory address or nil pointer dereference
[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x5a1b2c]

goroutine 8 [running]:
example.com/k/ring.(*Task).Run(0x2add31bfe280)
	/src/k/ring/ring.go:38 +0x1d
example.com/k/ring.TestSubmit.func1()
	/src/k/ring/ring_test.go:16 +0x45
created by example.com/k/ring.TestSubmit in goroutine 7
	/src/k/ring/ring_test.go:14 +0x99
`
	negativeAtDone = `panic: sync: negative WaitGroup counter

goroutine 8 [running]:
sync.(*WaitGroup).Add(0x2add31bfe2c0, 0xffffffffffffffff)
	/usr/local/go/src/sync/waitgroup.go:118 +0x1d
sync.(*WaitGroup).Done(...)
	/usr/local/go/src/sync/waitgroup.go:156
example.com/k/ring.(*Task).Run(0x2add31bfe280)
	/src/k/ring/ring.go:38 +0x1d
example.com/k/ring.TestSubmit.func1()
	/src/k/ring/ring_test.go:16 +0x45
created by example.com/k/ring.TestSubmit in goroutine 7
	/src/k/ring/ring_test.go:14 +0x99
`
)

const nilPanic = `=== RUN   TestProcInfo
panic: runtime error: invalid memory address or nil pointer dereference [recovered, repanicked]
[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x5a1b2c]

goroutine 7 [running]:
testing.tRunner.func1.2({0x5c0000, 0x6f0000})
	/usr/local/go/src/testing/testing.go:1872 +0x237
panic({0x5c0000?, 0x6f0000?})
	/usr/local/go/src/runtime/panic.go:783 +0x132
example.com/k/mysql.(*Server).ShowProcessList(0x2add31bfe280, {0x5e1900, 0x2add31bfe2c0})
	/src/k/mysql/mysql.go:72 +0x1d
example.com/k/mysql.TestProcInfo.func2()
	/src/k/mysql/mysql_test.go:27 +0x45
created by example.com/k/mysql.TestProcInfo in goroutine 6
	/src/k/mysql/mysql_test.go:26 +0x99

goroutine 1 [chan receive]:
example.com/k/mysql.other()
	/src/k/mysql/mysql.go:61 +0x1
`

// TestClassify checks that only the predicted effect at a predicted site
// confirms a finding, and that a bare failure confirms only the kinds whose
// effect is a wrong value, and only where the order held and the recorded
// run passed.
func TestClassify(t *testing.T) {
	null := finding.Finding{Kind: "con-null", Sites: []finding.Site{
		{Role: "deref", File: "/src/k/mysql/mysql.go", Line: 72, Function: "(*Server).ShowProcessList"},
		{Role: "nil-store", File: "/src/k/mysql/mysql.go", Line: 61}}}
	elsewhere := null
	elsewhere.Sites = []finding.Site{{Role: "deref", File: "/src/k/mysql/other.go", Line: 72}, {Role: "nil-store", File: "/src/k/mysql/other.go", Line: 61}}
	uninit := finding.Finding{Kind: "con-uninit", Sites: null.Sites}
	held := &control.Result{State: plan.Confirmed, Final: true}
	// The steps: check, nil store, use (mysql's S1, S3, S2); a Done and
	// its Add.
	check, store, use := pt(1, 12, 0), pt(2, 30, 0), pt(1, 13, 0)
	done, add := pt(3, 40, 0), pt(4, 41, 0)
	doneAdd := finding.Finding{Kind: "con-uninit", Sites: []finding.Site{
		{Role: "done", File: "/src/k/ring/ring.go", Line: 38, Function: "(*Task).Run"},
		{Role: "add", File: "/src/k/ring/ring.go", Line: 78, Function: "Submit"}}}
	o := Order{What: "the nil store before the dereference", Edges: []plan.Edge{{Before: check, After: store}, {Before: store, After: use}}}
	doneFirst := Order{What: "the Done before the Add", Edges: []plan.Edge{{Before: done, After: add}}}
	// The reader's section (its check and use, then its Unlock) before
	// the nil store, as OSCS forces two sections.
	unlock := pt(1, 14, 0)
	sectionFirst := Order{What: "the reader's section before the store", Edges: []plan.Edge{{Before: unlock, After: store}}}
	crashed := func(recs ...plan.Record) *control.Result { return &control.Result{State: plan.Diverged, Records: recs} }
	rec := func(ev string, p plan.Point) plan.Record { return plan.Record{Event: ev, Point: &p} }
	fail := []byte("=== RUN   TestProcInfo\n    mysql_test.go:30: got 3, want 4\n--- FAIL: TestProcInfo (0.00s)\nFAIL\n")
	recovered := []byte("=== RUN   TestTimer\n    timer_test.go:54: timer fired after Shutdown: runtime error: invalid memory address or nil pointer dereference\n--- FAIL: TestTimer (0.00s)\nFAIL\n")
	for _, tc := range []struct {
		name   string
		f      finding.Finding
		r      Run
		passed bool
		want   finding.Status
		effect string
		order  *Order // nil: o
	}{
		{"nil dereference at the site", null, Run{Output: []byte(nilPanic), Outcome: record.Panic, Control: held}, true, finding.Confirmed, "panic", nil},
		{"nil dereference elsewhere", elsewhere, Run{Output: []byte(nilPanic), Outcome: record.Panic, Control: held}, true, finding.NotConfirmed, "", nil},
		{"another panic at the site", null, Run{Output: []byte(strings.Replace(nilPanic, "invalid memory address or nil pointer dereference", "boom", 1)), Outcome: record.Panic, Control: held}, true, finding.NotConfirmed, "", nil},
		{"con-null: a test failure is not a nil dereference", null, Run{Output: fail, Outcome: record.Fail, Control: held}, true, finding.NotConfirmed, "", nil},
		{"con-null: a recovered nil dereference the test reports", null, Run{Output: recovered, Outcome: record.Fail, Control: held}, true, finding.Confirmed, "test-failed", nil},
		{"con-null: a recovered nil dereference where the recorded run failed too", null, Run{Output: recovered, Outcome: record.Fail, Control: held}, false, finding.NotConfirmed, "", nil},
		{"con-uninit: a failure where the recorded run passed", uninit, Run{Output: fail, Outcome: record.Fail, Control: held}, true, finding.Confirmed, "test-failed", nil},
		{"con-uninit: a failure where the recorded run failed too", uninit, Run{Output: fail, Outcome: record.Fail, Control: held}, false, finding.NotConfirmed, "", nil},
		{"con-uninit: a failure where the order did not hold", uninit, Run{Output: fail, Outcome: record.Fail, Control: &control.Result{State: plan.Diverged, Reason: "goroutine 3 ended"}}, true, finding.Diverged, "", nil},
		{"the order held and the test passed", null, Run{Output: []byte("ok\n"), Outcome: record.Pass, Control: held}, true, finding.NotConfirmed, "", nil},
		{"a passing run whose output holds a child process's panic at the site", null, Run{Output: []byte(nilPanic + "--- PASS: TestX (0.01s)\nPASS\n"), Outcome: record.Pass, Control: held}, true, finding.NotConfirmed, "", nil},
		{"a wait gave up", null, Run{Output: []byte("ok\n"), Outcome: record.Pass, Control: &control.Result{State: plan.TimedOut, Reason: "step (g 1, site 2, n 0) gave up"}}, true, finding.Diverged, "", nil},
		{"killed", null, Run{Output: []byte(""), Outcome: record.Timeout, Killed: true}, true, finding.TimedOut, "", nil},
		// Crashes count only after the steps the order puts first.
		{"a crash at the site with every step passed", null, Run{Output: []byte(nilPanic), Outcome: record.Panic, Control: crashed(rec(plan.EvReached, check), rec(plan.EvPassed, check), rec(plan.EvReached, store), rec(plan.EvPassed, store), rec(plan.EvReached, use))}, true, finding.Confirmed, "panic", nil},
		{"a crash at the site before the first step", null, Run{Output: []byte(nilPanic), Outcome: record.Panic, Control: crashed(rec(plan.EvReached, use))}, true, finding.Diverged, "", nil},
		{"a crash at the site while the nil store waited for the check", null, Run{Output: []byte(nilPanic), Outcome: record.Panic, Control: crashed(rec(plan.EvReached, store))}, true, finding.Diverged, "", nil},
		{"a crash in the section forced first, before its Unlock, the store held", null, Run{Output: []byte(nilPanic), Outcome: record.Panic, Control: crashed(rec(plan.EvReached, store), rec(plan.EvPanicked, unlock))}, true, finding.Confirmed, "panic", &sectionFirst},
		{"the same crash, no panicked line", null, Run{Output: []byte(nilPanic), Outcome: record.Panic, Control: crashed(rec(plan.EvReached, store))}, true, finding.Diverged, "", &sectionFirst},
		{"a crash after a wait gave up", null, Run{Output: []byte(nilPanic), Outcome: record.Panic, Control: &control.Result{State: plan.TimedOut, Final: true, Reason: "step (g 2, site 30, n 0) gave up"}}, true, finding.Diverged, "", nil},
		{"a crash without a control result", null, Run{Output: []byte(nilPanic), Outcome: record.Panic}, true, finding.Diverged, "", nil},
		{"a crash in the Done's function before the Done", doneAdd, Run{Output: []byte(nilInRun), Outcome: record.Panic, Control: crashed(rec(plan.EvReached, add))}, true, finding.Diverged, "", &doneFirst},
		{"a nil dereference at the Done, reached", doneAdd, Run{Output: []byte(nilAtDone), Outcome: record.Panic, Control: &control.Result{State: plan.Confirmed, Records: []plan.Record{rec(plan.EvReached, add), rec(plan.EvReached, done)}}}, true, finding.NotConfirmed, "", &doneFirst},
		{"the Done's negative counter: reached, never passed", doneAdd, Run{Output: []byte(negativeAtDone), Outcome: record.Panic, Control: crashed(rec(plan.EvReached, add), rec(plan.EvReached, done))}, true, finding.Confirmed, "panic", &doneFirst},
	} {
		t.Run(tc.name, func(t *testing.T) {
			order := o
			if tc.order != nil {
				order = *tc.order
			}
			v := Classify(tc.f, order, tc.r, tc.passed)
			if v.Status != tc.want || v.Effect != tc.effect {
				t.Errorf("Classify = %+v, want %s %q", v, tc.want, tc.effect)
			}
		})
	}
}

// TestClassifyRaceMemory checks that a forced run of a data race is
// evidence of it only when its two accesses touched one address in one GC
// epoch, crash or no crash, and that an order that names one access only
// (lifted to a Lock) is not judged by addresses.
func TestClassifyRaceMemory(t *testing.T) {
	race := finding.Finding{Kind: "race", Sites: []finding.Site{
		{ID: 21, Role: "write", File: "/src/k/heapreuse/heapreuse.go", Line: 21, Function: "(*buf).fill"},
		{ID: 21, Role: "write", File: "/src/k/heapreuse/heapreuse.go", Line: 21, Function: "(*buf).fill"}}}
	a, b, lock := pt(1, 21, 0), pt(2, 21, 0), pt(2, 19, 0)
	o := Order{What: "the write right before the write", Edges: []plan.Edge{{Before: a, After: b}}}
	together := Order{What: "the writes held at once", Together: [][]plan.Point{{a, b}}}
	lifted := Order{What: "lifted", Edges: []plan.Edge{{Before: a, After: lock}}}
	reached := func(p plan.Point, addr, epoch uint64) plan.Record {
		return plan.Record{Event: plan.EvReached, Point: &p, Addr: addr, Epoch: epoch}
	}
	passed := func(p plan.Point) plan.Record { return plan.Record{Event: plan.EvPassed, Point: &p} }
	result := func(version int, recs ...plan.Record) *control.Result {
		return &control.Result{State: plan.Confirmed, Final: true, Version: version, Records: recs}
	}
	crash := "panic: boom\n\ngoroutine 7 [running]:\nk/heapreuse.(*buf).fill(...)\n\t/src/k/heapreuse/heapreuse.go:21 +0x1d\n"
	for _, tc := range []struct {
		name  string
		o     Order
		r     Run
		want  finding.Status
		apart string // a phrase of Verdict.Apart; "" for none
	}{
		{"one address, one epoch", o, Run{Output: []byte("ok\n"), Outcome: record.Pass,
			Control: result(2, reached(a, 0xc000010000, 1), passed(a), reached(b, 0xc000010000, 1), passed(b))}, finding.NotConfirmed, ""},
		{"different memory", o, Run{Output: []byte("ok\n"), Outcome: record.Pass,
			Control: result(2, reached(a, 0xc000010000, 1), passed(a), reached(b, 0xc000038000, 1), passed(b))},
			finding.NotConfirmed, "different memory: the write at heapreuse.go:21 at 0xc000010000, the other goroutine's write at heapreuse.go:21 at 0xc000038000"},
		{"one address in two epochs", o, Run{Output: []byte("ok\n"), Outcome: record.Pass,
			Control: result(2, reached(a, 0xc000010000, 1), passed(a), reached(b, 0xc000010000, 2), passed(b))}, finding.NotConfirmed, "GC epoch 1"},
		{"a result file without addresses", o, Run{Output: []byte("ok\n"), Outcome: record.Pass,
			Control: result(1, reached(a, 0, 0), passed(a), reached(b, 0, 0), passed(b))}, finding.NotConfirmed, "version 1"},
		{"a crash at the site on different memory", o, Run{Output: []byte(crash), Outcome: record.Panic,
			Control: result(2, reached(a, 0xc000010000, 1), passed(a), reached(b, 0xc000038000, 1))}, finding.NotConfirmed, "different memory"},
		{"a crash at the site on one address", o, Run{Output: []byte(crash), Outcome: record.Panic,
			Control: result(2, reached(a, 0xc000010000, 1), passed(a), reached(b, 0xc000010000, 1))}, finding.Confirmed, ""},
		{"held at once on one address", together, Run{Output: []byte("ok\n"), Outcome: record.Pass,
			Control: result(2, reached(a, 0xc000010000, 1), reached(b, 0xc000010000, 1), passed(a), passed(b))}, finding.NotConfirmed, ""},
		// A hand-off the trace cannot see (a pool inside a dependency):
		// the second owner, its buffer not passed on while the first
		// is held at its access, comes with another one.
		{"held at once on different memory", together, Run{Output: []byte("ok\n"), Outcome: record.Pass,
			Control: result(2, reached(a, 0xc000010000, 1), reached(b, 0xc000038000, 1), passed(a), passed(b))},
			finding.NotConfirmed, "different memory"},
		{"a lifted order is not judged by addresses", lifted, Run{Output: []byte("ok\n"), Outcome: record.Pass,
			Control: result(2, reached(a, 0xc000010000, 1), passed(a), reached(lock, 0xc000090000, 1), passed(lock))}, finding.NotConfirmed, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := Classify(race, tc.o, tc.r, true)
			apartOK := strings.Contains(v.Apart, tc.apart)
			if tc.apart == "" {
				apartOK = v.Apart == ""
			}
			if v.Status != tc.want || !apartOK {
				t.Errorf("Classify = %+v, want %s with Apart containing %q", v, tc.want, tc.apart)
			}
			// Apart, the run named both addresses (or epochs), or it
			// did not; a crash it demoted says so.
			if elsewhere := tc.apart != "" && tc.apart != "version 1"; v.Elsewhere != elsewhere {
				t.Errorf("Elsewhere = %v, want %v", v.Elsewhere, elsewhere)
			}
			if crashed := tc.apart != "" && tc.r.Outcome == record.Panic; v.Crashed != crashed {
				t.Errorf("Crashed = %v, want %v", v.Crashed, crashed)
			}
		})
	}
}

// TestScheduleCheck checks that a schedule accepts a build whose sites it
// names are unchanged, and names the site that moved or went away.
func TestScheduleCheck(t *testing.T) {
	sites := &trace.SiteTable{Sites: []trace.Site{
		{ID: 1, File: "/m/a.go", Line: 10, Col: 2, Kind: "write", Expr: "x.p"},
		{ID: 2, File: "/m/a.go", Line: 12, Col: 5, Kind: "read", Expr: "x.p"},
	}}
	f := finding.Finding{Kind: "con-null", Spawns: []finding.Site{{}, {}}}
	r := Result{Plan: &plan.Plan{Mode: plan.Force, Edges: []plan.Edge{{Before: pt(1, 1, 0), After: pt(2, 2, 0)}}}}
	s := NewSchedule(f, r, sites)
	if len(s.Sites) != 2 {
		t.Fatalf("schedule sites %+v, want the plan's two", s.Sites)
	}
	if err := s.Check(sites); err != nil {
		t.Errorf("unchanged build: %v", err)
	}
	moved := &trace.SiteTable{Sites: []trace.Site{
		{ID: 1, File: "/m/a.go", Line: 10, Col: 2, Kind: "write", Expr: "x.p"},
		{ID: 2, File: "/m/a.go", Line: 11, Col: 5, Kind: "read", Expr: "x.p"},
	}}
	if err := s.Check(moved); !errors.Is(err, ErrCodeChanged) || !strings.Contains(err.Error(), "is now site 2 at /m/a.go:11:5") {
		t.Errorf("moved site: %v", err)
	}
	gone := &trace.SiteTable{Sites: []trace.Site{{ID: 1, File: "/m/a.go", Line: 10, Col: 2, Kind: "write", Expr: "x.p"}}}
	if err := s.Check(gone); !errors.Is(err, ErrCodeChanged) || !strings.Contains(err.Error(), "site 2 (/m/a.go:12:5 x.p) is gone") {
		t.Errorf("removed site: %v", err)
	}
}

func TestNameSites(t *testing.T) {
	sites := &trace.SiteTable{Sites: []trace.Site{{ID: 12, File: "/m/mysql.go", Line: 61}}}
	got := nameSites("goroutine 7 never reached site 12; its last watched point was site 3 instance 0", sites)
	if want := "goroutine 7 never reached site 12 (mysql.go:61); its last watched point was site 3 instance 0"; got != want {
		t.Errorf("nameSites = %q, want %q", got, want)
	}
}

// TestNameGoroutines: the shim's reasons name goroutines by logical id;
// those of the witness are named by the role and position of their first
// event, two alike told apart, others left as they were.
func TestNameGoroutines(t *testing.T) {
	sites := &trace.SiteTable{Sites: []trace.Site{{ID: 12, File: "/m/a.go", Line: 61}, {ID: 13, File: "/m/a.go", Line: 70}}}
	w := finding.Witness{Events: []finding.Event{
		{Role: "write", G: 2123494337634017796, Site: 12},
		{Role: "write", G: 17843978763577768288, Site: 12},
		{Role: "lock-1", G: 2123494337634017796, Site: 13},
	}}
	got := nameGoroutines("goroutine 2123494337634017796 ended before reaching step (g 17843978763577768288, site 12, n 0); goroutine 77 never started", w, sites)
	want := "the goroutine of the write at a.go:61 ended before reaching step (the goroutine of the write at a.go:61 #2, site 12, n 0); goroutine 77 never started"
	if got != want {
		t.Errorf("nameGoroutines =\n%q, want\n%q", got, want)
	}
}

// TestExplain checks what a forced run's trace says of a con-null that
// did not crash: a non-nil store after the nil store (prodcons's shape),
// a nil read that did not crash (a guarded use), and nothing when the
// trace lacks the dereference; and of a con-uninit, what its read saw.
func TestExplain(t *testing.T) {
	f := finding.Finding{Kind: finding.ConNull}
	w := finding.Witness{Events: []finding.Event{ev(finding.RoleDeref, 2, 12, 0, 0), ev(finding.RoleNilStore, 3, 13, 0, 0)}}
	sites := &trace.SiteTable{Sites: []trace.Site{
		{ID: 12, File: "/src/k.go", Line: 12, Expr: "t.query"},
		{ID: 13, File: "/src/k.go", Line: 13, Expr: "trx.query"},
		{ID: 14, File: "/src/k.go", Line: 14, Expr: "trx.query"},
	}}
	write := func(g uint64, site uint32, v uint64) trace.Event {
		return trace.Event{Kind: trace.EvWrite, Goroutine: g, Site: site, Addr: 0x100, Value: v}
	}
	read := trace.Event{Kind: trace.EvRead, Goroutine: 2, Site: 12, Addr: 0x100}
	for _, tc := range []struct {
		name string
		evs  []trace.Event
		want string
	}{
		{"overwritten", []trace.Event{write(3, 13, 0), write(3, 14, 1), read},
			"the value read was not nil: trx.query at k.go:14 stored a non-nil value after the nil store and before the read of t.query at k.go:12"},
		{"guarded", []trace.Event{write(3, 14, 1), write(3, 13, 0), read},
			"the read of t.query at k.go:12 saw nil and did not crash: the use is guarded (a nil check, or a recover)"},
		{"no dereference", []trace.Event{write(3, 13, 0)}, ""},
	} {
		if got := Explain(f, w, tc.evs, sites); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	// A con-uninit whose read (site 12) saw what a store before it left:
	// the initialization the finding names (13), another store (14:
	// neo4j's `bookmark := "x"` before the go statement), a store of
	// zero, or no store recorded.
	f = finding.Finding{Kind: finding.ConUninit}
	w = finding.Witness{Events: []finding.Event{ev(finding.RoleRead, 2, 12, 0, 0), ev(finding.RoleInit, 3, 13, 0, 0)}}
	for _, tc := range []struct {
		name string
		evs  []trace.Event
		want string
	}{
		{"initialized", []trace.Event{write(3, 14, 1), write(3, 13, 2), read},
			"the value was initialized before the read of t.query at k.go:12: trx.query at k.go:13 wrote it first"},
		{"stored before", []trace.Event{write(1, 14, 1), read, write(3, 13, 2)},
			"the read of t.query at k.go:12 saw the value stored by trx.query at k.go:14, not the zero value"},
		{"stored zero", []trace.Event{write(1, 14, 0), read, write(3, 13, 2)},
			"the read of t.query at k.go:12 saw the zero value, stored by trx.query at k.go:14, and the code handled it"},
		{"no store", []trace.Event{read, write(3, 13, 2)},
			"the read of t.query at k.go:12 found no recorded store before it (it saw the zero value, or a value stored where precog records nothing), and the code handled it"},
	} {
		if got := Explain(f, w, tc.evs, sites); got != tc.want {
			t.Errorf("con-uninit %s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestRetrySeeds: the first try of an order is unperturbed, the retries
// take the seeds in turn and note them, and the plan of a seeded order
// perturbs.
func TestRetrySeeds(t *testing.T) {
	v := New(Options{})
	o := Order{What: "x", Edges: []plan.Edge{{Before: pt(1, 10, 0), After: pt(2, 20, 0)}}}
	var val finding.Validation
	var got []uint64
	for try := range 4 {
		got = append(got, v.retry(o, try, &val).Seed)
	}
	if want := []uint64{0, 1, 2, 1}; !slices.Equal(got, want) || !slices.Equal(val.Seeds, []uint64{1, 2}) {
		t.Errorf("seeds %v, noted %v; want %v, noted [1 2]", got, val.Seeds, want)
	}
	if p := v.Plan(o); p.Seed != 0 || p.Yield != 0 {
		t.Errorf("unseeded plan %+v perturbs", p)
	}
	if p := v.Plan(v.retry(o, 1, &val)); p.Seed != 1 || p.Yield != RetryYield || p.Delay != RetryDelay || len(p.Edges) != 1 {
		t.Errorf("seeded plan %+v", p)
	}
}

// TestExpectedNilAssert: a type assertion on a nil interface (the value
// of an atomic.Value's or a sync.Map's Load) is con-null's effect; other
// failed assertions and other kinds' crashes are not.
func TestExpectedNilAssert(t *testing.T) {
	for _, c := range []struct {
		kind, msg string
		want      bool
	}{
		{"con-null", "panic: interface conversion: interface {} is nil, not *p.Session", true},
		{"con-null", "panic: interface conversion: interface {} is *p.A, not *p.B", false},
		{"con-null", "panic: runtime error: invalid memory address or nil pointer dereference", true},
		{"con-index", "panic: interface conversion: interface {} is nil, not *p.Session", false},
	} {
		if got := Expected(c.kind, false, c.msg); got != c.want {
			t.Errorf("Expected(%s, %q) = %v, want %v", c.kind, c.msg, got, c.want)
		}
		if got := effectIn(c.kind, c.msg); got != c.want {
			t.Errorf("effectIn(%s, %q) = %v, want %v", c.kind, c.msg, got, c.want)
		}
	}
}

// TestForcedRuns: a Unicorn confirmation whose test also fails without a
// plan needs as many failing forced runs in a row as make the plain rate's
// chance of them at most 5%; a test failing in every plain run, or so
// often that more than maxForcedRuns would be needed, is refused.
func TestForcedRuns(t *testing.T) {
	for _, c := range []struct {
		failed, plain, k int
		ok               bool
	}{
		{0, 2, 2, true}, // both plain runs passed: control's two forced runs suffice
		{1, 3, 3, true}, // (1/3)^3 = 0.037
		{2, 4, 5, true}, // (1/2)^4 = 0.0625 is not enough; (1/2)^5 = 0.031
		{3, 5, 6, true},
		{4, 6, 8, true},   // (2/3)^8 = 0.039
		{5, 6, 17, false}, // more than maxForcedRuns
		{6, 6, 0, false},  // every plain run failed
	} {
		k, ok := forcedRuns(c.failed, c.plain)
		if k != c.k || ok != c.ok {
			t.Errorf("forcedRuns(%d, %d) = %d, %v; want %d, %v", c.failed, c.plain, k, ok, c.k, c.ok)
		}
	}
}

// TestUnicornControl runs unicornControl on made-up runs: plain runs
// that fail by a pattern (f for a failure, p for a pass), forced runs
// that confirm until the given one, and a budget that runs out after
// the given run, for every way it can end.
func TestUnicornControl(t *testing.T) {
	fail := []byte("--- FAIL: TestX (0.00s)\n    x_test.go:9: count = 6, want 3\nFAIL\n")
	for _, c := range []struct {
		name        string
		plain       string // outcomes of the plain runs in turn
		forcedFails int    // the forced run (from 1) that does not confirm; 0: none
		budget      int    // runs (plain and forced) before the budget runs out; 0: no limit
		why, note   string
		runs        int
	}{
		{"passes", "pp", 0, 0, "", "", 2},
		{"always fails", "ffffff", 0, 0, "the test failed without a plan too, in all 6 runs (x_test.go:9: count = 6, want 3)", "", 6},
		{"too often", "fffffp", 0, 0, "the test failed without a plan in 5 of 6 runs (x_test.go:9: count = 6, want 3), too often for 8 forced runs to tell the order's failures from chance", "", 6},
		{"held", "fpp", 0, 0, "", "the test also failed without a plan in 1 of 3 runs, and under the order in all 3", 4},
		{"forced passed", "fpfp", 3, 0, "the test failed without a plan in 2 of 4 runs (x_test.go:9: count = 6, want 3), and forced run 3 of the order did not fail (not confirmed)", "", 5},
		{"budget in plain runs", "fpfp", 0, 3, "the validation budget ran out in the runs without a plan", "", 3},
		{"budget in forced runs", "fpfp", 0, 6, "the test failed without a plan in 2 of 4 runs (x_test.go:9: count = 6, want 3), and the validation budget ran out after 4 of the 5 forced runs that must fail", "", 7},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			runs, nplain, nforced := 0, 0, 2 // control made two forced runs before
			spend := func() {
				if c.budget > 0 && runs >= c.budget {
					cancel()
				}
			}
			plain := func() Run {
				defer spend()
				r := Run{Outcome: record.Pass}
				if c.plain[nplain] == 'f' {
					r = Run{Outcome: record.Fail, Output: fail}
				}
				nplain++
				return r
			}
			forced := func() Verdict {
				defer spend()
				nforced++
				if nforced == c.forcedFails || ctx.Err() != nil {
					return Verdict{Status: finding.NotConfirmed}
				}
				return Verdict{Status: finding.Confirmed}
			}
			why, note := unicornControl(ctx, plain, forced, &runs)
			if why != c.why || note != c.note || runs != c.runs {
				t.Errorf("got why %q, note %q, %d runs;\nwant why %q, note %q, %d runs", why, note, runs, c.why, c.note, c.runs)
			}
		})
	}
}

// TestScheduleWrite checks that a schedule written over another reads
// back as the new one, with no temporary file beside it (that a reader
// never sees part of one is internal/atomicfile's test).
func TestScheduleWrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "repro")
	path := filepath.Join(dir, "0123456789ab.json")
	for _, order := range []string{"first order", "second order"} {
		if err := (&Schedule{Version: ScheduleVersion, ID: "0123456789ab", Order: order, Plan: &plan.Plan{Mode: plan.Force, Edges: []plan.Edge{{}}}}).Write(path); err != nil {
			t.Fatal(err)
		}
	}
	s, err := ReadSchedule(path)
	if err != nil {
		t.Fatal(err)
	}
	if s.Order != "second order" {
		t.Errorf("read order %q, want the second write's", s.Order)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d files in the repro directory, want 1: %v", len(entries), entries)
	}
}

// TestFailReason: a reason names what failed; a testify assertion's log
// line, whose message starts below it, gets the message's Error line,
// while failLine (what effectIn reads) stays the line. Lines that t.Log
// wrote, the code under test's through an adapter and the test's own, are
// passed over when the test package's directory shows them (a real test's
// output, pipeline/failure's fatal-then-log.txt); without it, the first
// logged line is taken (the control). A position on a further line of a
// logged message (a stack trace a parallel subtest logged through its
// logger, as fx's) is not where the test failed.
func TestFailReason(t *testing.T) {
	testify := "=== RUN   TestEq\n    zz_test.go:12: \n        \tError Trace:\t/m/zz_test.go:12\n        \tError:      \tNot equal: \n        \t            \texpected: 1\n--- FAIL: TestEq (0.00s)\nFAIL\n"
	trace := "=== CONT  TestApp/Options\n    writer.go:40: [Fx] Error: fx.Provide received fx.Options from:\n        fx_test.TestApp.func11\n        \t/m/app_test.go:1868\n        testing.tRunner\n=== NAME  TestApp/Stop\n    app_test.go:1685: \n        \tError Trace:\t/m/app_test.go:1685\n        \tError:      \tShould be true\n--- FAIL: TestApp (0.02s)\n"
	logged, err := os.ReadFile(filepath.Join("..", "failure", "testdata", "fatal-then-log.txt"))
	if err != nil {
		t.Fatal(err)
	}
	logger := filepath.Join("..", "failure", "testdata", "logger")
	for _, c := range []struct{ out, dir, line, reason string }{
		{testify, "", "zz_test.go:12:", "zz_test.go:12: Not equal:"},
		{trace, "", "app_test.go:1685:", "app_test.go:1685: Should be true"},
		{"=== RUN   TestA\n    a_test.go:3: got:\n        x\n--- FAIL: TestA (0.00s)\n", "", "a_test.go:3: got:", "a_test.go:3: got:"},
		{"=== RUN   TestA\n    a_test.go:3: count = 6, want 3\n--- FAIL: TestA (0.00s)\n", "", "a_test.go:3: count = 6, want 3", "a_test.go:3: count = 6, want 3"},
		{"=== RUN   TestA\n    a_test.go:3: \n    a_test.go:4: next\n", "", "a_test.go:3:", "a_test.go:3:"},
		{string(logged), logger, "logger_test.go:37: we got 0 commands != 10 expected", "logger_test.go:37: we got 0 commands != 10 expected"},
		{string(logged), "", "logger_test.go:17: INF connecting to nsqd", "logger_test.go:17: INF connecting to nsqd"},
	} {
		if got := failLine([]byte(c.out), c.dir); got != c.line {
			t.Errorf("failLine = %q, want %q", got, c.line)
		}
		if got := failReason([]byte(c.out), c.dir); got != c.reason {
			t.Errorf("failReason = %q, want %q", got, c.reason)
		}
	}
}

// TestAllCheapestFirst validates three findings whose tests ran 30 s, 5 s
// and 1 s recorded, in that order, with a budget that runs out once the
// first findings taken up (one per process All runs at once) are done:
// the 1 s test's finding is validated (its forced run made: the binary is
// missing, so it diverges) and the 30 s test's times out before any run.
// Taken up in fs's order, the 30 s test's finding took the budget. The
// results stay in fs's order; a finding with no witness to run costs
// nothing.
func TestAllCheapestFirst(t *testing.T) {
	closes := []finding.Event{ev("close", 1, 3, 0, 4), ev("close", 2, 3, 0, 7)}
	mk := func(id, test string) finding.Finding {
		return finding.Finding{ID: id, Kind: "con-closed", Witnesses: []finding.Witness{{Test: "p." + test, Events: closes}}}
	}
	bounds := map[string]time.Duration{"p.TestSlow": 30 * time.Second, "p.TestMid": 5 * time.Second, "p.TestFast": time.Second}
	missing := filepath.Join(t.TempDir(), "p.test")
	target := func(w finding.Witness) (Target, bool) {
		b, ok := bounds[w.Test]
		return Target{Binary: missing, Dir: t.TempDir(), Timeout: b, Passed: true}, ok
	}
	fs := []finding.Finding{mk("slow", "TestSlow"), mk("mid", "TestMid"), mk("fast", "TestFast")}
	none := finding.Finding{ID: "none", Kind: "con-closed"}
	// The cost adds up the bounds of the witnesses validation forces in
	// turn: both's, in the 1 s and the 30 s tests, comes to 31 s; mixed's
	// first, in the 30 s test, has no orders and is not forced, so mixed
	// costs its second's 5 s.
	both := finding.Finding{ID: "both", Kind: "con-closed", Witnesses: []finding.Witness{{Test: "p.TestFast", Events: closes}, {Test: "p.TestSlow", Events: closes}}}
	mixed := finding.Finding{ID: "mixed", Kind: "con-closed", Witnesses: []finding.Witness{{Test: "p.TestSlow"}, {Test: "p.TestMid", Events: closes}}}
	if got, want := New(Options{Target: target}).byCost([]finding.Finding{fs[0], fs[1], fs[2], none, mixed, both}), []int{3, 2, 1, 4, 0, 5}; !slices.Equal(got, want) {
		t.Errorf("byCost = %v, want %v", got, want)
	}
	// The control: with no budget, every finding gets its run and its
	// result, in fs's order, as in any order of taking them up.
	res := New(Options{Target: target, Dir: t.TempDir(), Parallel: 2, Tries: 1}).All(context.Background(), append(fs, none))
	for i, r := range res {
		want := 1
		if i == 3 {
			want = 0
		}
		if r.Validation.Runs != want || r.Status == finding.TimedOut || i < 3 && r.Validation.Test != fs[i].Witnesses[0].Test {
			t.Errorf("no budget: result %d: %s after %d runs of %q (%s), want %d runs of its own test", i, r.Status, r.Validation.Runs, r.Validation.Test, r.Validation.Reason, want)
		}
	}
	for _, parallel := range []int{1, 2} {
		t.Run(fmt.Sprint("parallel ", parallel), func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var mu sync.Mutex
			ended, spent := 0, make(chan struct{})
			v := New(Options{
				Target:   target,
				Dir:      t.TempDir(),
				Parallel: parallel,
				Tries:    1,
				Done: func(Result) {
					mu.Lock()
					if ended++; ended == parallel {
						cancel() // the budget: what is taken up after these starts no run
						close(spent)
					}
					mu.Unlock()
					<-spent // All takes up the next finding only after Done returns
				},
			})
			res := v.All(ctx, fs)
			if len(res) != len(fs) {
				t.Fatalf("%d results for %d findings", len(res), len(fs))
			}
			if r := res[2]; r.Validation.Runs != 1 || r.Status == finding.TimedOut {
				t.Errorf("TestFast's finding: %s after %d runs (%s), want one forced run", r.Status, r.Validation.Runs, r.Validation.Reason)
			}
			if r := res[0]; r.Validation.Runs != 0 || r.Status != finding.TimedOut {
				t.Errorf("TestSlow's finding: %s after %d runs (%s), want timed out before any run", r.Status, r.Validation.Runs, r.Validation.Reason)
			}
		})
	}
}

// TestHungAt: a hang's reason names where the goroutines in the user's
// code were blocked, from the timeout's dump (sturdyc's deadlock: a
// channel send under a lock, a Lock, the test's Wait), passing over the
// testing package's goroutines and the shim's wrappers, and counting
// goroutines blocked at one place once. A dump of the testing package's
// goroutines alone, and output without a timeout, name nothing.
func TestHungAt(t *testing.T) {
	const alarm = "panic: test timed out after 11s\n\trunning tests:\n\t\tTestPartial (11s)\n\n" +
		"goroutine 45 [running]:\ntesting.(*M).startAlarm.func1()\n\t/go/src/testing/testing.go:2802 +0x354\ncreated by time.goFunc\n\t/go/src/time/sleep.go:215 +0x2d\n\n" +
		"goroutine 1 [chan receive]:\ntesting.tRunner.func1()\n\t/go/src/testing/testing.go:1993 +0x445\nmain.main()\n\t_testmain.go:228 +0x9b\n\n"
	dump := alarm +
		"goroutine 22 [sync.WaitGroup.Wait]:\nsync.(*WaitGroup).Wait(0xf0385551980)\n\t/go/src/sync/waitgroup.go:206 +0x85\n" +
		"github.com/precog-dev/precog/shim.WGWait(0x90, 0xf0385551980)\n\t/cache/precog/shim/x/api_sync.go:229 +0x55\n" +
		"github.com/viccon/sturdyc.callAndCacheBatch[...](0xf03854876e0)\n\t/m/sturdyc/inflight.go:171 +0x7ee\n" +
		"github.com/viccon/sturdyc_test.TestPartial(0xf038550c248)\n\t/m/sturdyc/distribution_test.go:872 +0x937\n\n" +
		"goroutine 29 [sync.Mutex.Lock]:\nsync.(*Mutex).Lock(...)\n\t/go/src/sync/mutex.go:46\n" +
		"github.com/precog-dev/precog/shim.LockL(0xf03855b36b0?, 0x3cf, 0xf03854281e0)\n\t/cache/precog/shim/x/api_sync.go:35 +0xc5\n" +
		"github.com/viccon/sturdyc_test.(*FetchObserver).FetchBatch(0xf03854281e0)\n\t/m/sturdyc/sturdyc_test.go:198 +0x73\n\n"
	for _, g := range []string{"30", "31"} {
		dump += "goroutine " + g + " [chan send, 2 minutes]:\ngithub.com/viccon/sturdyc_test.(*FetchObserver).FetchBatch.func1()\n\t/m/sturdyc/sturdyc_test.go:206 +0x2a\n\n"
	}
	want := ", blocked: sync.WaitGroup.Wait at inflight.go:171 in callAndCacheBatch[...]; sync.Mutex.Lock at sturdyc_test.go:198 in (*FetchObserver).FetchBatch; chan send at sturdyc_test.go:206 in (*FetchObserver).FetchBatch.func1 (2 goroutines)"
	if got := hungAt([]byte(dump), "/m/sturdyc"); got != want {
		t.Errorf("hungAt =\n%q, want\n%q", got, want)
	}
	if got := hungAt([]byte(alarm), "/m/sturdyc"); got != "" {
		t.Errorf("hungAt of the testing package's goroutines = %q, want none", got)
	}
	if got := hungAt([]byte("=== RUN   TestA\n--- FAIL: TestA (0.00s)\n"), "/m/sturdyc"); got != "" {
		t.Errorf("hungAt without a timeout = %q, want none", got)
	}
}

// TestRaceApart checks the verdicts of a data race from what its forced
// runs touched (the shim's addresses, given here without a test binary):
// set apart when every run that held an order ran the two accesses on
// different memory, and not when one of its orders held on one address,
// when a run held without saying what it touched, or when a run crashed
// at a site; and over two witnesses, the strongest verdict with its own
// witness.
func TestRaceApart(t *testing.T) {
	sites := []finding.Site{
		{ID: 21, Role: "write", File: "/src/k/reuse/reuse.go", Line: 21, Function: "(*conn).reset"},
		{ID: 22, Role: "read", File: "/src/k/reuse/reuse.go", Line: 30, Function: "(*conn).serve"}}
	witness := func(test string) finding.Witness {
		return finding.Witness{Test: test, Events: []finding.Event{ev("write", 1, 21, 0, 3), ev("read", 2, 22, 0, 5)}}
	}
	race := finding.Finding{ID: "r", Kind: "race", Sites: sites, Witnesses: []finding.Witness{witness("p.TestA")}}
	two := race
	two.Witnesses = []finding.Witness{witness("p.TestA"), witness("p.TestB")}
	a, b := pt(1, 21, 0), pt(2, 22, 0)
	crash := []byte("panic: boom\n\ngoroutine 7 [running]:\nk/reuse.(*conn).serve(...)\n\t/src/k/reuse/reuse.go:30 +0x1d\n")
	// A run: how it ended and the addresses the two accesses touched
	// (0: not said).
	type outcome struct {
		diverged bool
		crash    bool
		addrA    uint64
		addrB    uint64
	}
	held := func(addrA, addrB uint64) outcome { return outcome{addrA: addrA, addrB: addrB} }
	same, apart, unsaid := held(0xc000010000, 0xc000010000), held(0xc000010000, 0xc000038000), held(0xc000010000, 0)
	for _, tc := range []struct {
		name string
		f    finding.Finding
		// runs gives the outcome of each forced run of a witness's
		// test, by order: the accesses held at once, then the
		// write first, then the read first.
		runs   map[string][3][]outcome
		want   finding.Status
		reason string // a phrase of the reason
		test   string // the witness that decided
		nruns  int
	}{
		{"every run apart", race, map[string][3][]outcome{"p.TestA": {{apart, apart, apart}}},
			finding.Apart, "touched different memory: the write at reuse.go:21 at 0xc000010000, the read at reuse.go:30 at 0xc000038000", "p.TestA", 3},
		{"apart, then a retry diverged", race, map[string][3][]outcome{"p.TestA": {{apart, {diverged: true}, {diverged: true}}}},
			finding.Apart, "touched different memory", "p.TestA", 3},
		{"apart, then a retry held on one address", race, map[string][3][]outcome{"p.TestA": {{apart, same}, {same}, {same}}},
			finding.Confirmed, "on one address each time", "p.TestA", 4},
		{"one order held on one address, the next only apart", race, map[string][3][]outcome{"p.TestA": {{same}, {apart, apart, apart}}},
			finding.NotConfirmed, "touched different memory", "p.TestA", 4},
		{"a run held without saying what the read touched", race, map[string][3][]outcome{"p.TestA": {{apart, unsaid, apart}}},
			finding.NotConfirmed, "touched different memory", "p.TestA", 3},
		{"a crash at the read, apart", race, map[string][3][]outcome{"p.TestA": {{apart, {crash: true, addrA: 0xc000010000, addrB: 0xc000038000}, apart}}},
			finding.NotConfirmed, "the run crashed (panic: boom, at reuse.go:30", "p.TestA", 3},
		{"apart on one witness, diverged on the next", two, map[string][3][]outcome{"p.TestA": {{apart, apart, apart}}, "p.TestB": {{{diverged: true}, {diverged: true}, {diverged: true}}}},
			finding.Diverged, "could not be reached", "p.TestB", 6},
		{"one order on one address on one witness, apart on the next", two, map[string][3][]outcome{"p.TestA": {{same}, {apart, apart, apart}}, "p.TestB": {{apart, apart, apart}}},
			finding.NotConfirmed, "touched different memory", "p.TestA", 7},
		{"apart on both witnesses", two, map[string][3][]outcome{"p.TestA": {{apart, apart, apart}}, "p.TestB": {{apart, apart, apart}}},
			finding.Apart, "touched different memory", "p.TestB", 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := New(Options{Tries: 3, Target: func(w finding.Witness) (Target, bool) {
				return Target{Binary: "p.test", Args: []string{w.Test}, Timeout: time.Minute, Passed: true}, true
			}})
			tries := make(map[string]int) // by test and order
			v.run = func(_ context.Context, tg Target, pl *plan.Plan) (Run, error) {
				order := 0
				switch {
				case len(pl.Edges) == 1 && pl.Edges[0].Before == a:
					order = 1
				case len(pl.Edges) == 1:
					order = 2
				}
				key := fmt.Sprint(tg.Args[0], order)
				outs := tc.runs[tg.Args[0]][order]
				if tries[key] >= len(outs) {
					t.Fatalf("run %d of order %d of %s: not expected", tries[key]+1, order, tg.Args[0])
				}
				out := outs[tries[key]]
				tries[key]++
				if out.diverged {
					return Run{Output: []byte("ok\n"), Outcome: record.Pass, Control: &control.Result{State: plan.Diverged, Final: true, Reason: "step (g 2, site 22, n 0) never came"}}, nil
				}
				reached := func(p plan.Point, addr uint64) plan.Record {
					return plan.Record{Event: plan.EvReached, Point: &p, Addr: addr, Epoch: 1}
				}
				r := Run{Output: []byte("ok\n"), Outcome: record.Pass, Control: &control.Result{State: plan.Confirmed, Final: true, Version: plan.ResultVersion,
					Records: []plan.Record{reached(a, out.addrA), reached(b, out.addrB)}}}
				if out.crash {
					r.Output, r.Outcome = crash, record.Panic
				}
				return r, nil
			}
			res := v.Finding(context.Background(), tc.f)
			if res.Status != tc.want || !strings.Contains(res.Validation.Reason, tc.reason) || res.Validation.Test != tc.test || res.Witness.Test != tc.test || res.Validation.Runs != tc.nruns {
				t.Errorf("%s after %d runs, witness %s (%s): %s\nwant %s after %d runs, witness %s, with %q",
					res.Status, res.Validation.Runs, res.Validation.Test, res.Witness.Test, res.Validation.Reason, tc.want, tc.nruns, tc.test, tc.reason)
			}
			if res.Status == finding.Apart && res.Validation.Effect != "" {
				t.Errorf("set apart with effect %q", res.Validation.Effect)
			}
		})
	}
}
