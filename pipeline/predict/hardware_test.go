package predict

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/detect/unicorn"
	"github.com/precog-dev/precog/pipeline/control"
	"github.com/precog-dev/precog/pipeline/record"
	"github.com/precog-dev/precog/shim/trace"
)

// oscsTrace is two goroutines writing x in critical sections of mu, in
// alternation, rounds times each; started by the test's goroutine if
// forked, else by code the trace does not show.
func oscsTrace(t *testing.T, rounds int, forked bool) []trace.Event {
	t.Helper()
	var b strings.Builder
	b.WriteString("precog trace v1 test=\"TestX\" package=\"example.com/k\" start=2025-01-02T15:04:05Z pid=1\n")
	if forked {
		b.WriteString("1 g=1 Begin parent=none\n2 g=1 Fork site=1 child=2\n3 g=1 Fork site=2 child=3\n4 g=2 Begin parent=1\n5 g=3 Begin parent=1\n")
	} else {
		b.WriteString("1 g=1 Begin parent=none\n2 g=1 TestStart name=\"TestX\"\n3 g=1 TestEnd outcome=pass\n4 g=2 Begin parent=none\n5 g=3 Begin parent=none\n")
	}
	seq := 5
	for r := range rounds {
		for g := 2; g <= 3; g++ {
			base := 10 * (g - 1)
			v := r + 1
			if g == 3 {
				v = 0
			}
			fmt.Fprintf(&b, "%d g=%d Lock site=%d addr=0x1000\n", seq+1, g, base)
			fmt.Fprintf(&b, "%d.1 g=%d Write site=%d addr=0x1008 value=%d\n", seq+1, g, base+1, v)
			fmt.Fprintf(&b, "%d g=%d Unlock site=%d addr=0x1000\n", seq+2, g, base+2)
			seq += 2
		}
	}
	tr, err := trace.ParseText(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	return tr.Events
}

func oscsSites() *trace.SiteTable {
	return &trace.SiteTable{Sites: []trace.Site{
		{ID: 1, File: "/k/k_test.go", Line: 1, Col: 1, Kind: "go"},
		{ID: 2, File: "/k/k_test.go", Line: 2, Col: 1, Kind: "go"},
		{ID: 10, File: "/k/k.go", Line: 10, Col: 2, Kind: "lock", Expr: "c.mu"},
		{ID: 11, File: "/k/k.go", Line: 11, Col: 2, Kind: "write", Expr: "c.x"},
		{ID: 12, File: "/k/k.go", Line: 12, Col: 2, Kind: "unlock", Expr: "c.mu"},
		{ID: 20, File: "/k/k.go", Line: 20, Col: 2, Kind: "lock", Expr: "c.mu"},
		{ID: 21, File: "/k/k.go", Line: 21, Col: 2, Kind: "write", Expr: "c.x"},
		{ID: 22, File: "/k/k.go", Line: 22, Col: 2, Kind: "unlock", Expr: "c.mu"},
	}}
}

// TestHardwareNote: an OSCS finding says whether OSCS-HW would have
// caught it in the run, unless DetectOptions.NoHardware.
func TestHardwareNote(t *testing.T) {
	for _, tc := range []struct {
		rounds int
		forked bool
		off    bool
		want   string
	}{
		{2, true, false, "would have caught it in this run"},
		// Started by the test's goroutine, which made the object: the
		// line is shared from its first use (hwmodel's InitByParent).
		{1, true, false, "would have caught it in this run"},
		// Nobody recorded made the object: the first critical section
		// runs on a line no other core has touched.
		{1, false, false, "would have missed it in this run (not-shared): the earlier access (k.go:11, on core 1) was not recorded"},
		{2, true, true, ""},
	} {
		checks := testChecks{opts: DetectOptions{NoHardware: tc.off}}
		fs := checks.run("TestX", oscsTrace(t, tc.rounds, tc.forked), oscsSites(), false, rankedRun{}, nil, &traceClock{})
		if len(checks.internal) > 0 || len(fs) != 1 || fs[0].Kind != "oscs" {
			t.Fatalf("rounds %d: %d findings, internal errors %q; want the oscs finding", tc.rounds, len(fs), checks.internal)
		}
		var note string
		for _, n := range fs[0].Evidence.Notes {
			if strings.HasPrefix(n, "OSCS-HW") {
				note = n
			}
		}
		if !strings.Contains(note, tc.want) || (tc.want == "") != (note == "") {
			t.Errorf("rounds %d, forked %v, NoHardware %v: note %q, want one with %q", tc.rounds, tc.forked, tc.off, note, tc.want)
		}
	}
}

// TestOSCSPrefix checks that a trace over -max-trace gets OSCS on the
// events that fit in the limit: its findings are those of the in-memory
// path on a trace of those events alone, byte for byte, their witnesses
// named as control points with their Locks; the note says how far it
// went, and a time limit spent before it says it did not run.
func TestOSCSPrefix(t *testing.T) {
	evs := oscsTrace(t, 40, true)
	path := filepath.Join(t.TempDir(), "a.trace")
	writeEvents(t, &trace.Trace{Header: trace.Header{Test: "TestX", Package: "example.com/k"}, Events: evs}, path)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	n := fi.Size()
	sites := oscsSites()
	found := 0
	for _, limit := range []int64{n / 8, n / 3, n / 2, n - 1} {
		k := prefixLen(len(evs), n, limit)
		checks := testChecks{}
		var want []finding.Finding
		for _, f := range checks.run("TestX", evs[:k], sites, false, rankedRun{}, nil, &traceClock{}) {
			if f.Kind == finding.OSCS {
				pts := control.Points(evs[:k])
				for j := range f.Witnesses {
					control.NameLocks(evs[:k], pts, &f.Witnesses[j])
				}
				want = append(want, f)
			}
		}
		found += len(want)
		var res Result
		fs, err := checks.stream("TestX", path, n, limit, sites, streamedRun{}, DetectOptions{}, &traceClock{}, &res)
		if err != nil || len(checks.internal) > 0 {
			t.Fatalf("limit %d: %v, internal errors %q", limit, err, checks.internal)
		}
		var got []finding.Finding
		for _, f := range fs {
			if f.Kind == finding.OSCS {
				got = append(got, f)
			}
		}
		gb, _ := json.Marshal(got)
		wb, _ := json.Marshal(want)
		if string(gb) != string(wb) {
			t.Errorf("limit %d (%d events of %d): OSCS on the prefix\n%s\nwant, in memory on those events\n%s", limit, k, len(evs), gb, wb)
		}
		note := fmt.Sprintf("; OSCS ran on the first %d events (%d%%: the part of the trace -max-trace holds in memory; its findings after them missed)", k, k*100/len(evs))
		if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], note) {
			t.Errorf("limit %d: notes %q, want one with %q", limit, res.Notes, note)
		}
	}
	if found == 0 {
		t.Fatal("no OSCS finding in any prefix: the test compares nothing")
	}
	// The time spent in the walks before it: OSCS does not run.
	checks := testChecks{}
	var res Result
	fs, err := checks.stream("TestX", path, n, n/2, sites, streamedRun{}, DetectOptions{}, startClock(time.Minute, after(2*len(evs))), &res)
	if err != nil || slices.ContainsFunc(fs, func(f finding.Finding) bool { return f.Kind == finding.OSCS }) ||
		len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "; OSCS did not run;") {
		t.Errorf("time spent before OSCS: err %v, findings %v, notes %q; want no OSCS finding and a note", err, fs, res.Notes)
	}
}

// TestMaxTraceEvents checks that a trace within -max-trace's bytes but
// over the events it holds in memory (TraceEventBytes) is streamed, its
// OSCS on as many events as the limit holds, with a note that says why;
// one within both is analysed in memory.
func TestMaxTraceEvents(t *testing.T) {
	// One goroutine's reads in one batch, a few bytes each, as dense as
	// a recorded access-heavy trace (writeEvents' batch an event is not).
	var text strings.Builder
	text.WriteString("precog trace v1 test=\"TestX\" package=\"example.com/k\" start=2025-01-02T15:04:05Z pid=1\n1 g=1 Begin parent=none\n")
	for i := range 2000 {
		fmt.Fprintf(&text, "1.%d g=1 Read site=1 addr=0x1008\n", i+1)
	}
	tr, err := trace.ParseText(strings.NewReader(text.String()))
	if err != nil {
		t.Fatal(err)
	}
	evs := tr.Events
	var e trace.Encoder
	b := trace.AppendHeader(nil, trace.Header{Test: "TestX", Package: "example.com/k"})
	start := len(b)
	b = e.StartBatch(b, 1)
	for _, ev := range evs {
		b = e.AppendEvent(b, ev)
	}
	trace.FinishBatch(b[start:])
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.trace"), b, 0o666); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, "a.trace"))
	if err != nil {
		t.Fatal(err)
	}
	n := fi.Size()
	limit := int64(TraceEventBytes * (len(evs) - 1))
	if limit < n {
		t.Fatalf("%d events in %d bytes: the events limit would not bind within the bytes'", len(evs), n)
	}
	for _, c := range []struct {
		limit    int64
		streamed bool
	}{{limit, true}, {limit + TraceEventBytes, false}} {
		var res Result
		checks := testChecks{}
		_, held, err := checks.analyse(dir, "TestX", runFile{trace: "a.trace", outcome: record.Pass}, oscsSites(), DetectOptions{MaxTraceBytes: c.limit}, &res)
		if err != nil || len(checks.internal) > 0 {
			t.Fatalf("limit %d: %v, internal errors %q", c.limit, err, checks.internal)
		}
		if got := res.Stats.Streamed == 1; got != c.streamed || c.streamed == (held != nil) {
			t.Errorf("limit %d: streamed %d, %d events held; want streamed %v", c.limit, res.Stats.Streamed, len(held), c.streamed)
		}
		note := fmt.Sprintf("TestX: trace of %d bytes has %d events, over the %d that the limit of %d bytes (-max-trace) holds in memory at 8 bytes an event: ", n, len(evs), len(evs)-1, c.limit)
		if c.streamed && (len(res.Notes) != 1 || !strings.HasPrefix(res.Notes[0], note) || !strings.Contains(res.Notes[0], fmt.Sprintf("; OSCS ran on the first %d events (", len(evs)-1))) {
			t.Errorf("limit %d: notes %q, want one beginning %q with OSCS on the first %d events", c.limit, res.Notes, note, len(evs)-1)
		}
	}
}

// unicornTrace is goroutine 2 writing x in critical sections of mu,
// rounds times, alone, with an exchange on y with goroutine 3 after the
// first before of them: 2 writes y twice, 3 reads it between the writes if
// failing (unicorn-p6: the read sees a temporary value), after them if not.
// Each access is in a critical section, so the trace knows their order.
func unicornTrace(t *testing.T, rounds, before int, failing bool) []trace.Event {
	t.Helper()
	var b strings.Builder
	b.WriteString("precog trace v1 test=\"TestX\" package=\"example.com/k\" start=2025-01-02T15:04:05Z pid=1\n")
	b.WriteString("1 g=1 Begin parent=none\n2 g=1 Fork site=1 child=2\n3 g=1 Fork site=2 child=3\n4 g=2 Begin parent=1\n5 g=3 Begin parent=1\n")
	seq := 5
	locked := func(g int, access string) {
		fmt.Fprintf(&b, "%d g=%d Lock site=%d addr=0x1000\n", seq+1, g, 50+g)
		fmt.Fprintf(&b, "%d.1 g=%d %s\n", seq+1, g, access)
		fmt.Fprintf(&b, "%d g=%d Unlock site=%d addr=0x1000\n", seq+2, g, 60+g)
		seq += 2
	}
	for r := range rounds {
		if r == before {
			locked(2, "Write site=31 addr=0x1010 value=1")
			if failing {
				locked(3, "Read site=32 addr=0x1010")
			}
			locked(2, "Write site=33 addr=0x1010 value=2")
			if !failing {
				locked(3, "Read site=32 addr=0x1010")
			}
		}
		locked(2, fmt.Sprintf("Write site=21 addr=0x1008 value=%d", r))
	}
	tr, err := trace.ParseText(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	return tr.Events
}

func unicornSites() *trace.SiteTable {
	return &trace.SiteTable{Sites: []trace.Site{
		{ID: 1, File: "/k/k_test.go", Line: 1, Col: 1, Kind: "go"},
		{ID: 2, File: "/k/k_test.go", Line: 2, Col: 1, Kind: "go"},
		{ID: 21, File: "/k/k.go", Line: 21, Col: 2, Kind: "write", Expr: "c.x", Function: "(*C).Run"},
		{ID: 31, File: "/k/k.go", Line: 31, Col: 2, Kind: "write", Expr: "c.y", Function: "(*C).Run"},
		{ID: 32, File: "/k/k.go", Line: 32, Col: 2, Kind: "read", Expr: "c.y", Function: "(*C).Peek"},
		{ID: 33, File: "/k/k.go", Line: 33, Col: 2, Kind: "write", Expr: "c.y", Function: "(*C).Run"},
		{ID: 52, File: "/k/k.go", Line: 20, Col: 2, Kind: "lock", Expr: "c.mu", Function: "(*C).Run"},
		{ID: 53, File: "/k/k.go", Line: 30, Col: 2, Kind: "lock", Expr: "c.mu", Function: "(*C).Peek"},
		{ID: 62, File: "/k/k.go", Line: 22, Col: 2, Kind: "unlock", Expr: "c.mu", Function: "(*C).Run"},
		{ID: 63, File: "/k/k.go", Line: 34, Col: 2, Kind: "unlock", Expr: "c.mu", Function: "(*C).Peek"},
	}}
}

// TestUnicornPrefix checks that the runs of a ranked test whose traces
// are over -max-trace give Unicorn the events OSCS gets, the first that
// fit in the limit: its findings are those of the in-memory path on those
// events alone, with the runs marked cut, byte for byte, their witnesses'
// events named as the whole trace names them; a limit that cuts the
// failing runs before their pattern gives no finding; and the time spent
// after OSCS leaves Unicorn out, with a note.
func TestUnicornPrefix(t *testing.T) {
	dir := t.TempDir()
	sites := unicornSites()
	type run struct {
		evs    []trace.Event
		path   string
		size   int64
		failed bool
	}
	var runs []run
	for i, failing := range []bool{true, false, true} {
		evs := unicornTrace(t, 40, 10, failing)
		path := filepath.Join(dir, fmt.Sprintf("%d.trace", i))
		writeEvents(t, &trace.Trace{Header: trace.Header{Test: "TestX", Package: "example.com/k"}, Events: evs}, path)
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, run{evs, path, fi.Size(), failing})
	}
	smallest := runs[0].size
	for _, r := range runs {
		smallest = min(smallest, r.size)
	}
	stream := func(limit int64, clock func() *traceClock) (*testChecks, []Result) {
		t.Helper()
		checks := &testChecks{ranked: true}
		var res []Result
		for i, r := range runs {
			var rr Result
			sr := streamedRun{failed: r.failed, ran: rankedRun{n: i, trace: r.path}}
			if _, err := checks.stream(fmt.Sprintf("TestX (run %d)", i), r.path, r.size, limit, sites, sr, DetectOptions{}, clock(), &rr); err != nil || len(checks.internal) > 0 {
				t.Fatalf("limit %d, run %d: %v, internal errors %q", limit, i, err, checks.internal)
			}
			res = append(res, rr)
		}
		return checks, res
	}
	found := 0
	for _, limit := range []int64{smallest / 8, smallest / 2, smallest - 1} {
		ref := testChecks{ranked: true}
		for i, r := range runs {
			k := prefixLen(len(r.evs), r.size, limit)
			ref.run("TestX", r.evs[:k], sites, r.failed, rankedRun{n: i, trace: r.path}, nil, &traceClock{})
		}
		for i := range ref.runs {
			ref.runs[i].Cut = true
		}
		want := unicorn.Rank(ref.runs, sites, unicorn.Options{})
		for i := range want {
			for j := range want[i].Witnesses {
				w := &want[i].Witnesses[j]
				w.Run = ref.ranIn[w.Run].n
				evs := runs[w.Run].evs
				pts := control.Points(evs)
				for k := range w.Events {
					e := &w.Events[k]
					e.G, e.N = pts[e.Index].G, pts[e.Index].N
				}
				control.NameLocks(evs, pts, w)
			}
		}
		found += len(want)
		checks, res := stream(limit, func() *traceClock { return &traceClock{} })
		got := checks.end("TestX", sites)
		gb, _ := json.Marshal(got)
		wb, _ := json.Marshal(want)
		if string(gb) != string(wb) {
			t.Errorf("limit %d: Unicorn on the prefixes\n%s\nwant, in memory on those events\n%s", limit, gb, wb)
		}
		for i, r := range res {
			if len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "; Unicorn collected its patterns on the same events (") {
				t.Errorf("limit %d, run %d: notes %q, want one saying Unicorn collected its patterns", limit, i, r.Notes)
			}
		}
		cutOff := limit == smallest/8
		switch {
		case cutOff && len(got) != 0:
			t.Errorf("limit %d cuts the failing runs before their pattern: %d findings, want none", limit, len(got))
		case !cutOff && (len(got) != 1 || got[0].Kind != "unicorn-p6" || len(got[0].Witnesses) != 1 || len(got[0].Witnesses[0].Events) != 3 || got[0].Witnesses[0].Events[0].G != 2):
			t.Errorf("limit %d: findings %s, want unicorn-p6 with its three events named", limit, gb)
		}
	}
	if found == 0 {
		t.Fatal("no Unicorn finding in any prefix: the test compares nothing")
	}
	// The time spent once OSCS is done: Unicorn does not run. Count the
	// clock's looks of one run; the last two are Unicorn's and the
	// note's.
	looks := 0
	counting := func() *traceClock { return startClock(time.Minute, func() bool { looks++; return false }) }
	checks := &testChecks{ranked: true}
	var res Result
	if _, err := checks.stream("TestX", runs[0].path, runs[0].size, smallest/2, sites, streamedRun{failed: true}, DetectOptions{}, counting(), &res); err != nil {
		t.Fatal(err)
	}
	checks, rs := stream(smallest/2, func() *traceClock { return startClock(time.Minute, after(looks-1)) })
	for i, r := range rs {
		if len(checks.runs) != 0 || len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "; Unicorn did not run, stopped after 1m0s (-max-trace-time") || r.Stats.Stopped != 1 {
			t.Errorf("time spent after OSCS, run %d: %d runs ranked, notes %q, %d stopped; want none ranked, a note and one stopped", i, len(checks.runs), r.Notes, r.Stats.Stopped)
		}
	}
}
