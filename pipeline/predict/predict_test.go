package predict

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/precog-dev/precog/detect/conmem"
	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/pipeline/record"
	"github.com/precog-dev/precog/shim/trace"
)

// writeTrace writes the text trace in file as a binary trace at path, one
// batch per event.
func writeTrace(t *testing.T, file, path string) []trace.Event {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, err := trace.ParseText(f)
	if err != nil {
		t.Fatal(err)
	}
	writeEvents(t, tr, path)
	return tr.Events
}

// writeEvents writes the trace tr to path in the shim's binary format, a
// batch per event.
func writeEvents(t *testing.T, tr *trace.Trace, path string) {
	t.Helper()
	b := trace.AppendHeader(nil, tr.Header)
	encs := make(map[uint64]*trace.Encoder)
	for _, ev := range tr.Events {
		e := encs[ev.Goroutine]
		if e == nil {
			e = new(trace.Encoder)
			encs[ev.Goroutine] = e
		}
		start := len(b)
		b = e.StartBatch(b, ev.Goroutine)
		b = e.AppendEvent(b, ev)
		trace.FinishBatch(b[start:])
	}
	if err := os.WriteFile(path, b, 0o666); err != nil {
		t.Fatal(err)
	}
}

// TestDetect runs Detect over a recording made by hand: the MySQL-1 trace
// recorded for two tests of two packages, and a damaged copy for a third.
// The bug is one finding with the three tests, and the damaged trace gets
// one note.
func TestDetect(t *testing.T) {
	dir := recordingDir(t)
	evs := writeTrace(t, filepath.Join("testdata", "mysql.txt"), filepath.Join(dir, "a.trace"))
	whole, err := os.ReadFile(filepath.Join(dir, "a.trace"))
	if err != nil {
		t.Fatal(err)
	}
	// Damage the last event's batch: a zero byte where an event starts.
	damaged := append([]byte(nil), whole...)
	damaged[len(damaged)-1] = 0
	if err := os.WriteFile(filepath.Join(dir, "c.trace"), damaged, 0o666); err != nil {
		t.Fatal(err)
	}
	ix := &record.Index{Sites: record.SitesFile, Packages: []*record.Package{
		{ImportPath: "example.com/a", Tests: []*record.Test{
			{Name: "TestA", Trace: "a.trace", Outcome: record.Pass},
			{Name: "TestNoTrace", Outcome: record.Exit, Broken: "no trace: the test process never started the shim"},
		}},
		{ImportPath: "example.com/b", Tests: []*record.Test{
			{Name: "TestB", Trace: "a.trace", Outcome: record.Pass, Runs: []*record.Perturbed{
				{N: 1, Trace: "a.trace", Outcome: record.Fail},
			}},
			{Name: "TestC", Trace: "c.trace", Outcome: record.Pass},
		}},
	}}
	res, err := Detect(t.Context(), dir, ix, DetectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) == 0 {
		t.Fatal("no findings")
	}
	var null *int
	for i, f := range res.Findings {
		if f.Kind == "con-null" {
			null = &i
		}
	}
	if null == nil {
		t.Fatalf("no con-null finding in %+v", res.Findings)
	}
	f := res.Findings[*null]
	want := []string{"example.com/a.TestA", "example.com/b.TestB", "example.com/b.TestC"}
	if strings.Join(f.Tests, " ") != strings.Join(want, " ") || f.Reports != 3 {
		t.Errorf("con-null finding: tests %q, %d reports; want %q, 3 (one per test, whatever its runs)", f.Tests, f.Reports, want)
	}
	if f.Status != "predicted" {
		t.Errorf("status %q", f.Status)
	}
	// One witness per test (up to finding.MaxWitnesses), naming the
	// dereference and the nil store as the trace's points.
	if len(f.Witnesses) != finding.MaxWitnesses || f.Witnesses[0].Test != want[0] {
		t.Errorf("witnesses %+v, want %d, the first of %s", f.Witnesses, finding.MaxWitnesses, want[0])
	} else {
		roles := map[string]finding.Event{}
		for _, e := range f.Witnesses[0].Events {
			roles[e.Role] = e
		}
		if d, s := roles["deref"], roles["nil-store"]; d.Site != f.Sites[0].ID || s.Site != f.Sites[1].ID || d.G == s.G || d.Kind != "Read" || s.Kind != "Write" {
			t.Errorf("witness events %+v: want the deref and the nil store, of two goroutines, at the finding's sites %+v", f.Witnesses[0].Events, f.Sites)
		}
	}
	if d := res.Duplication(); d < 2.9 || d > 3.1 {
		// Every finding of the trace is found by the same three tests.
		t.Errorf("duplication rate %.2f, want 3", d)
	}
	st := res.Stats
	if st.Packages != 2 || st.Tests != 4 || st.Runs != 5 || st.FailedRuns != 2 || st.Reports != 3*len(res.Findings) {
		t.Errorf("stats %+v", st)
	}
	if st.Events != 4*len(evs)-1 {
		t.Errorf("%d events analysed, want %d (four traces, one missing its last event)", st.Events, 4*len(evs)-1)
	}
	notes := strings.Join(res.Notes, "\n")
	for _, want := range []string{
		"example.com/a.TestNoTrace: no trace: the test process never started the shim; nothing to analyse",
		"example.com/a.TestNoTrace: exit when recorded",
		"example.com/b.TestB: 1 of 2 runs failed (fail)",
		"example.com/b.TestC: broken trace: ",
		"; analysed the " + itoa(len(evs)-1) + " events before the damage",
	} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	if len(res.Notes) != 4 {
		t.Errorf("%d notes, want 4:\n%s", len(res.Notes), notes)
	}
	if _, err := json.Marshal(res.Findings); err != nil {
		t.Error(err)
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func TestRunsOutOfRange(t *testing.T) {
	for _, n := range []int{-1, MaxRuns + 1} {
		if _, err := Run(t.Context(), Options{Runs: n, Flags: &record.GoTestFlags{}}); err == nil || !strings.Contains(err.Error(), "-runs must be between 1 and") {
			t.Errorf("Run with Runs %d: %v", n, err)
		}
	}
}

func TestGuard(t *testing.T) {
	var tc testChecks
	if !tc.guard("conmem", "p.TestA", func() {}) || len(tc.internal) != 0 {
		t.Fatalf("guard of a function that returns: %q", tc.internal)
	}
	if tc.guard("oscs", "p.TestA (run 2)", func() { panic("boom") }) {
		t.Error("guard of a panicking function reported ok")
	}
	if len(tc.internal) != 1 || !strings.HasPrefix(tc.internal[0], "internal error: oscs panicked on p.TestA (run 2): boom\n\t") {
		t.Errorf("internal errors %q", tc.internal)
	}
}

// TestMaxTraceBytes checks that a trace over the limit gets the streamed
// checkers alone, with a note: its race findings are the in-memory path's,
// byte for byte, and its ConMem findings some of the in-memory path's;
// with the race checker off it gets ConMem's alone.
func TestMaxTraceBytes(t *testing.T) {
	dir := recordingDir(t)
	writeTrace(t, filepath.Join("testdata", "mysql.txt"), filepath.Join(dir, "a.trace"))
	fi, err := os.Stat(filepath.Join(dir, "a.trace"))
	if err != nil {
		t.Fatal(err)
	}
	ix := &record.Index{Sites: record.SitesFile, Packages: []*record.Package{
		{ImportPath: "example.com/a", Tests: []*record.Test{{Name: "TestA", Trace: "a.trace", Outcome: record.Pass, Bytes: fi.Size()}}},
	}}
	racesOf := func(res *Result) []finding.Finding {
		var out []finding.Finding
		for _, f := range res.Findings {
			if f.Kind == finding.Race {
				out = append(out, f)
			}
		}
		return out
	}
	// othersIn reports whether the findings of res that are not races
	// are some of whole's (by ID), and there is one.
	othersIn := func(res, whole *Result) bool {
		n := 0
		for _, f := range res.Findings {
			if f.Kind == finding.Race {
				continue
			}
			n++
			if !slices.ContainsFunc(whole.Findings, func(g finding.Finding) bool { return g.ID == f.ID }) {
				return false
			}
		}
		return n > 0
	}
	whole, err := Detect(t.Context(), dir, ix, DetectOptions{MaxTraceBytes: -1})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(racesOf(whole))
	if len(racesOf(whole)) == 0 || len(racesOf(whole)) == len(whole.Findings) {
		t.Fatalf("mysql's trace gives %d findings, %d of them races: want races and others", len(whole.Findings), len(racesOf(whole)))
	}
	for _, tc := range []struct {
		max      int64
		streamed bool
	}{{fi.Size() - 1, true}, {fi.Size(), false}, {-1, false}} {
		var line string // the progress line while it detects
		progress := newTracker(func(p Progress) {
			if strings.HasPrefix(p.Line, "detecting") {
				line = p.Line
			}
		})
		res, err := detect(t.Context(), dir, ix, DetectOptions{MaxTraceBytes: tc.max}, nil, progress)
		if err != nil {
			t.Fatal(err)
		}
		if want := "detecting [1/1] example.com/a TestA"; line != want && !(tc.streamed && strings.HasPrefix(line, want+" (a trace of 0.0 MiB, over -max-trace: race check and ConMem streamed, OSCS on its first events)")) {
			t.Errorf("limit %d: progress line %q", tc.max, line)
		}
		if got := res.Stats.Streamed == 1; got != tc.streamed || res.Stats.Skipped != 0 || res.Stats.Events != whole.Stats.Events {
			t.Errorf("limit %d: streamed %d runs, skipped %d, %d events (%d whole); want streamed %v", tc.max, res.Stats.Streamed, res.Stats.Skipped, res.Stats.Events, whole.Stats.Events, tc.streamed)
		}
		if got, _ := json.Marshal(racesOf(res)); string(got) != string(want) {
			t.Errorf("limit %d: races\n%s\nwant\n%s", tc.max, got, want)
		}
		if tc.streamed && !othersIn(res, whole) {
			t.Errorf("limit %d: findings %v; want ConMem's among the in-memory path's", tc.max, res.Findings)
		}
		if tc.streamed && !strings.Contains(strings.Join(res.Notes, "\n"), fmt.Sprintf("example.com/a.TestA: trace of %d bytes is over the limit of %d bytes (-max-trace): the data race checker and the test lifetime check, then ConMem's con-null, con-uninit, con-closed, con-index and con-map ran, streamed (%d events); OSCS ran on the first %d events (", fi.Size(), tc.max, whole.Stats.Events, whole.Stats.Events-1)) {
			t.Errorf("limit %d: notes %q", tc.max, res.Notes)
		}
	}
	// Past -max-goroutines the stream stops: the races of the prefix
	// stand, with a note.
	res, err := Detect(t.Context(), dir, ix, DetectOptions{MaxTraceBytes: fi.Size() - 1, MaxGoroutines: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range racesOf(res) {
		got, _ := json.Marshal(f)
		if !strings.Contains(string(want), string(got)) {
			t.Errorf("streamed to the goroutine limit: race %s is not one of the whole trace's", got)
		}
	}
	if res.Stats.Streamed != 1 || res.Stats.Events >= whole.Stats.Events ||
		!strings.Contains(strings.Join(res.Notes, "\n"), "; the data race checker stopped at goroutine 2, over the limit of 1 (-max-goroutines): findings after it missed; ConMem stopped at goroutine 2") {
		t.Errorf("streamed to the goroutine limit: streamed %d, %d events of %d, notes %q; want it stopped at the second goroutine, with a note", res.Stats.Streamed, res.Stats.Events, whole.Stats.Events, res.Notes)
	}
	// Past -max-trace-time too, with a note that says where.
	for _, at := range []int{1, whole.Stats.Events / 2} {
		res, err = Detect(t.Context(), dir, ix, DetectOptions{MaxTraceBytes: fi.Size() - 1, overTime: after(at)})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range racesOf(res) {
			got, _ := json.Marshal(f)
			if !strings.Contains(string(want), string(got)) {
				t.Errorf("streamed to the time limit at %d: race %s is not one of the whole trace's", at, got)
			}
		}
		note := fmt.Sprintf("; the data race checker stopped after 2m0s (-max-trace-time) at event %d of %d (%d%%): findings after it missed (a larger -max-trace-time, or 0, checks the rest); ConMem did not run",
			at-1, whole.Stats.Events, (at-1)*100/whole.Stats.Events)
		if res.Stats.Streamed != 1 || res.Stats.Stopped != 1 || res.Stats.Events != at-1 || !strings.Contains(strings.Join(res.Notes, "\n"), note) {
			t.Errorf("streamed to the time limit at %d: streamed %d, stopped %d, %d events of %d, notes %q; want it stopped with a note ending %q",
				at, res.Stats.Streamed, res.Stats.Stopped, res.Stats.Events, whole.Stats.Events, res.Notes, note)
		}
	}
	// A limit the race check reaches stops ConMem's walk where it
	// reaches it, with a note.
	res, err = Detect(t.Context(), dir, ix, DetectOptions{MaxTraceBytes: fi.Size() - 1, overTime: after(whole.Stats.Events + 5)})
	if got, _ := json.Marshal(racesOf(res)); err != nil || res.Stats.Stopped != 1 || string(got) != string(want) ||
		!strings.Contains(strings.Join(res.Notes, "\n"), fmt.Sprintf("; ConMem stopped after 2m0s (-max-trace-time) at event 3 of %d (", whole.Stats.Events)) {
		t.Errorf("a time limit ConMem reaches: err %v, stopped %d, notes %q, races\n%s\nwant\n%s", err, res.Stats.Stopped, res.Notes, got, want)
	}
	// A limit not reached changes nothing.
	res, err = Detect(t.Context(), dir, ix, DetectOptions{MaxTraceBytes: fi.Size() - 1, overTime: after(3*whole.Stats.Events + 6)})
	if got, _ := json.Marshal(racesOf(res)); err != nil || res.Stats.Stopped != 0 || string(got) != string(want) {
		t.Errorf("a time limit not reached: err %v, stopped %d, races\n%s\nwant\n%s", err, res.Stats.Stopped, got, want)
	}
	res, err = Detect(t.Context(), dir, ix, DetectOptions{MaxTraceBytes: fi.Size() - 1, NoRaces: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stats.Skipped != 0 || res.Stats.Streamed != 1 || len(racesOf(res)) != 0 || !othersIn(res, whole) ||
		!strings.Contains(strings.Join(res.Notes, "\n"), fmt.Sprintf("example.com/a.TestA: trace of %d bytes is over the limit of %d bytes (-max-trace): the test lifetime check, then ConMem's con-null, con-uninit, con-closed, con-index and con-map ran, streamed (%d events)", fi.Size(), fi.Size()-1, whole.Stats.Events)) {
		t.Errorf("without races: skipped %d, streamed %d, findings %v, notes %q; want ConMem's alone, with a note", res.Stats.Skipped, res.Stats.Streamed, res.Findings, res.Notes)
	}
}

// TestLimitedTrace checks that a trace the shim stopped at its size limit
// (-max-record) is analysed up to its cut, in memory and streamed, with a
// note that says the recording stopped there; the same trace whole gets
// no such note.
func TestLimitedTrace(t *testing.T) {
	dir := recordingDir(t)
	path := filepath.Join(dir, "a.trace")
	evs := writeTrace(t, filepath.Join("testdata", "mysql.txt"), path)
	ix := &record.Index{Sites: record.SitesFile, Packages: []*record.Package{
		{ImportPath: "example.com/a", Tests: []*record.Test{{Name: "TestA", Trace: "a.trace", Outcome: record.Pass}}},
	}}
	res, err := Detect(t.Context(), dir, ix, DetectOptions{MaxTraceBytes: -1})
	if err != nil {
		t.Fatal(err)
	}
	if notes := strings.Join(res.Notes, "\n"); strings.Contains(notes, "-max-record") || res.Stats.Events != len(evs) {
		t.Fatalf("the whole trace: %d events of %d, notes %q", res.Stats.Events, len(evs), notes)
	}
	cut := evs[len(evs)/2].Seq
	before := 0
	for _, ev := range evs {
		if ev.Seq <= cut {
			before++
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := trace.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	_, block := trace.AppendLiveHeader(nil, r.Header())
	binary.LittleEndian.PutUint64(b[block+trace.StateField:], uint64(trace.Limited))
	binary.LittleEndian.PutUint64(b[block+trace.CutField:], cut)
	if err := os.WriteFile(path, b, 0o666); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		max  int64
		note string
	}{
		{-1, fmt.Sprintf("example.com/a.TestA: recording stopped where the trace reached its size limit (-max-record), the test ran on unrecorded; analysed the %d events recorded before it", before)},
		{int64(len(b)) - 1, fmt.Sprintf("(%d events); OSCS ran on the first %d events (93%%: the part of the trace -max-trace holds in memory; its findings after them missed); recording stopped where the trace reached its size limit (-max-record), the test ran on unrecorded", before, before-1)},
	} {
		res, err := Detect(t.Context(), dir, ix, DetectOptions{MaxTraceBytes: c.max})
		if err != nil {
			t.Fatal(err)
		}
		if notes := strings.Join(res.Notes, "\n"); !strings.Contains(notes, c.note) || res.Stats.Events != before {
			t.Errorf("-max-trace %d: %d events, want %d; notes %q, want one with %q", c.max, res.Stats.Events, before, notes, c.note)
		}
	}
	// A stream stopped before it reached the stop still says the
	// recording stopped.
	res, err = Detect(t.Context(), dir, ix, DetectOptions{MaxTraceBytes: int64(len(b)) - 1, overTime: after(3)})
	if err != nil {
		t.Fatal(err)
	}
	if notes := strings.Join(res.Notes, "\n"); res.Stats.Events != 2 || !strings.Contains(notes, "findings after it missed (a larger -max-trace-time, or 0, checks the rest); ConMem did not run; recording stopped where the trace reached its size limit (-max-record)") {
		t.Errorf("a stream stopped early: %d events, notes %q", res.Stats.Events, notes)
	}
}

// after returns a stand-in for -max-trace-time's clock whose time is spent
// from its n-th look on.
func after(n int) func() bool {
	looks := 0
	return func() bool {
		looks++
		return looks >= n
	}
}

// TestMaxTraceTime checks that the in-memory analysis of a trace stops
// between two checkers when its time is spent, keeping what the checkers
// before found and naming those left out; the race checker, last, is the
// one a late stop leaves out.
func TestMaxTraceTime(t *testing.T) {
	dir := recordingDir(t)
	writeTrace(t, filepath.Join("testdata", "mysql.txt"), filepath.Join(dir, "a.trace"))
	ix := &record.Index{Sites: record.SitesFile, Packages: []*record.Package{
		{ImportPath: "example.com/a", Tests: []*record.Test{{Name: "TestA", Trace: "a.trace", Outcome: record.Pass}}},
	}}
	whole, err := Detect(t.Context(), dir, ix, DetectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	kinds := func(res *Result) (races, others int) {
		for _, f := range res.Findings {
			if f.Kind == finding.Race {
				races++
			} else {
				others++
			}
		}
		return
	}
	wr, wo := kinds(whole)
	if wr == 0 || wo == 0 || whole.Stats.Stopped != 0 {
		t.Fatalf("mysql's trace: %d races, %d others, %d stopped; want both kinds, not stopped", wr, wo, whole.Stats.Stopped)
	}
	const note = "example.com/a.TestA: analysis stopped after 2m0s (-max-trace-time): %s did not run, the findings of the checkers before them stand (a larger -max-trace-time, or 0, runs them)"
	for _, tc := range []struct {
		at           int
		races, other bool
		left         string
	}{
		{1, false, false, "ConMem, OSCS, the test lifetime checks, the race checker"},
		// The looks: before ConMem, OSCS, the lifetime checks, the race
		// checker.
		{3, false, true, "the test lifetime checks, the race checker"},
		{4, false, true, "the race checker"},
		{5, true, true, ""},
	} {
		res, err := Detect(t.Context(), dir, ix, DetectOptions{overTime: after(tc.at)})
		if err != nil {
			t.Fatal(err)
		}
		r, o := kinds(res)
		if (r > 0) != tc.races || (o > 0) != tc.other || (tc.other && o != wo) || (tc.races && r != wr) {
			t.Errorf("stopped at look %d: %d races, %d others (whole: %d, %d)", tc.at, r, o, wr, wo)
		}
		want := fmt.Sprintf(note, tc.left)
		if got := strings.Contains(strings.Join(res.Notes, "\n"), want); got != (tc.left != "") || res.Stats.Stopped != min(1, len(tc.left)) {
			t.Errorf("stopped at look %d: stopped %d, notes %q; want %q", tc.at, res.Stats.Stopped, res.Notes, want)
		}
	}
}

// TestMaxGoroutines checks that a run with more goroutines than the limit
// is skipped with a note.
func TestMaxGoroutines(t *testing.T) {
	dir := recordingDir(t)
	evs := writeTrace(t, filepath.Join("testdata", "mysql.txt"), filepath.Join(dir, "a.trace"))
	n := goroutines(evs)
	ix := &record.Index{Sites: record.SitesFile, Packages: []*record.Package{
		{ImportPath: "example.com/a", Tests: []*record.Test{{Name: "TestA", Trace: "a.trace", Outcome: record.Pass}}},
	}}
	for _, tc := range []struct {
		max     int
		skipped bool
	}{{n - 1, true}, {n, false}, {-1, false}} {
		res, err := Detect(t.Context(), dir, ix, DetectOptions{MaxGoroutines: tc.max})
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Stats.Skipped == 1; got != tc.skipped || (len(res.Findings) == 0) != tc.skipped {
			t.Errorf("limit %d: skipped %d runs, %d findings; want skipped %v", tc.max, res.Stats.Skipped, len(res.Findings), tc.skipped)
		}
		if want := fmt.Sprintf("example.com/a.TestA: %d goroutines, over the limit of %d (-max-goroutines); not analysed", n, tc.max); tc.skipped && !strings.Contains(strings.Join(res.Notes, "\n"), want) {
			t.Errorf("limit %d: notes %q", tc.max, res.Notes)
		}
	}
}

// TestConMemLimitNote: a map with more accesses told apart than ConMem
// pairs (conmem.MaxInstances) is skipped with a note that names the test
// and the limit, not silently.
func TestConMemLimitNote(t *testing.T) {
	dir := recordingDir(t)
	var b strings.Builder
	b.WriteString(`precog trace v1 test="TestMany" package="example.com/a" start=2026-11-22T09:10:56Z pid=1
1 g=1 Begin parent=none
2 g=1 Fork site=15 child=2
3 g=2 Begin parent=1
`)
	seq := 4
	for k := range conmem.MaxInstances + 1 {
		g := 1 + k%2 // a goroutine's accesses at one site between two of its sync events are one instance
		fmt.Fprintf(&b, "%d g=%d Lock site=1 addr=0x10\n%d.1 g=%d MapWrite site=3 addr=0x18\n%d g=%d Unlock site=4 addr=0x10\n", seq, g, seq, g, seq+1, g)
		seq += 2
	}
	text := filepath.Join(dir, "many.txt")
	if err := os.WriteFile(text, []byte(b.String()), 0o666); err != nil {
		t.Fatal(err)
	}
	writeTrace(t, text, filepath.Join(dir, "many.trace"))
	ix := &record.Index{Sites: record.SitesFile, Packages: []*record.Package{
		{ImportPath: "example.com/a", Tests: []*record.Test{{Name: "TestMany", Trace: "many.trace", Outcome: record.Pass}}},
	}}
	res, err := Detect(t.Context(), dir, ix, DetectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("example.com/a.TestMany: ConMem skipped 1 location with over %d distinguishable accesses", conmem.MaxInstances)
	if notes := strings.Join(res.Notes, "\n"); !strings.Contains(notes, want) {
		t.Errorf("notes:\n%s\nwant one with %q", notes, want)
	}
}

// TestDetectBudget checks that once the whole detection's budget is spent
// the runs left are not analysed, counted as skipped and named in one
// note, while a failed run's failure is still reported, and that the runs
// analysed before keep their findings.
func TestDetectBudget(t *testing.T) {
	dir, ix := passAndFail(t)
	whole, err := Detect(t.Context(), dir, ix, DetectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	all := testKinds(whole)
	if all["example.com/a.TestB "+finding.TestFailed] != 1 || all["example.com/a.TestB "+finding.Race] == 0 || whole.Stats.Skipped != 0 {
		t.Fatalf("both tests analysed: findings %v, skipped %d; want TestB's failure and races", all, whole.Stats.Skipped)
	}
	// Spent from the second look on: TestA analysed, TestB not.
	res, err := Detect(t.Context(), dir, ix, DetectOptions{budgetSpent: after(2)})
	if err != nil {
		t.Fatal(err)
	}
	got := testKinds(res)
	for k, n := range all {
		want := n
		if strings.HasPrefix(k, "example.com/a.TestB ") && k != "example.com/a.TestB "+finding.TestFailed {
			want = 0
		}
		if got[k] != want {
			t.Errorf("budget spent at TestB: %d %s, want %d", got[k], k, want)
		}
	}
	const note = "detection stopped after 10m0s (-detect-budget) with 1 run, of 1 of the 2 tests, not analysed; their failures are still reported (a larger -detect-budget, or 0, analyses them)"
	if res.Stats.Skipped != 1 || !slices.Contains(res.Notes, note) {
		t.Errorf("budget spent at TestB: skipped %d, notes %q; want 1 and %q", res.Stats.Skipped, res.Notes, note)
	}
	// No limit: as a budget never spent.
	res, err = Detect(t.Context(), dir, ix, DetectOptions{Budget: -1})
	if err != nil || res.Stats.Skipped != 0 || !maps.Equal(testKinds(res), all) {
		t.Errorf("no budget: err %v, skipped %d, findings %v; want %v", err, res.Stats.Skipped, testKinds(res), all)
	}
}

// passAndFail returns a recording of two tests of one package whose runs
// show the mysql kernel's races: TestA passed, TestB failed.
func passAndFail(t *testing.T) (string, *record.Index) {
	t.Helper()
	dir := recordingDir(t)
	writeTrace(t, filepath.Join("testdata", "mysql.txt"), filepath.Join(dir, "a.trace"))
	writeTrace(t, filepath.Join("testdata", "mysql.txt"), filepath.Join(dir, "b.trace"))
	log := "=== RUN   TestB\n--- FAIL: TestB (0.00s)\n    b_test.go:9: count = 2, want 3\nFAIL\n"
	if err := os.WriteFile(filepath.Join(dir, "b.log"), []byte(log), 0o666); err != nil {
		t.Fatal(err)
	}
	ix := &record.Index{Sites: record.SitesFile, Packages: []*record.Package{
		{ImportPath: "example.com/a", Tests: []*record.Test{
			{Name: "TestA", Trace: "a.trace", Outcome: record.Pass},
			{Name: "TestB", Trace: "b.trace", Log: "b.log", Outcome: record.Fail},
		}},
	}}
	return dir, ix
}

// testKinds counts res's findings by test and kind ("pkg.TestA race").
func testKinds(res *Result) map[string]int {
	n := make(map[string]int)
	for _, f := range res.Findings {
		for _, test := range f.Tests {
			n[test+" "+f.Kind]++
		}
	}
	return n
}

// recordingDir returns a new directory that holds the site table of the
// traces in testdata, as a recording's does.
func recordingDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join("testdata", "sites.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, record.SitesFile), data, 0o666); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestCheapFailureNotRecorded checks that a test which failed in CFP's
// cheap run and was not recorded after it (-record-budget ran out) is a
// finding from the cheap run's output, so that it sets the exit status as
// any failing run does; a failure whose output precog cannot read stays a
// note (its log is gone), and a recorded test's cheap failure is left to
// its recorded runs. A cheap run that -record-budget stopped while
// deadlocked (failure's timeout.txt) is a hang although the recorded run
// passed (posthog's TestClientMaxConcurrentRequests); the same stacks with
// the test's goroutine in a select are no failure, no note (the control).
func TestCheapFailureNotRecorded(t *testing.T) {
	dir := recordingDir(t)
	writeTrace(t, filepath.Join("testdata", "mysql.txt"), filepath.Join(dir, "a.trace"))
	pkgDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(pkgDir, "x_test.go"), []byte("package b\n\nimport \"testing\"\n\nfunc TestGone(t *testing.T) {\n\tt.Fatal(\"want 1\")\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	logs := t.TempDir()
	log := func(name, out string) string {
		path := filepath.Join(logs, name)
		if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	fail := func(log string) cheapFailure {
		return cheapFailure{log: log, outcome: record.Fail, pkg: "example.com/b", pkgDir: pkgDir}
	}
	cheap := &cheapRuns{failed: map[string]cheapFailure{
		"example.com/b.TestGone":       fail(log("gone", "    x_test.go:6: want 1\n--- FAIL: TestGone (0.00s)\nFAIL\n")),
		"example.com/b.TestUnreadable": fail(filepath.Join(logs, "removed")),
		"example.com/a.TestA":          fail(log("a", "    x_test.go:6: only cheap\n--- FAIL: TestA (0.00s)\nFAIL\n")),
	}}
	dump, err := os.ReadFile(filepath.Join("..", "failure", "testdata", "timeout.txt"))
	if err != nil {
		t.Fatal(err)
	}
	cheap.failed["example.com/a.TestStop"] = cheapFailure{log: log("hung", string(dump)), outcome: record.Stopped, pkg: "example.com/a", pkgDir: pkgDir}
	slow := bytes.Replace(dump, []byte("goroutine 25 [sync.WaitGroup.Wait]"), []byte("goroutine 25 [select]"), 1)
	cheap.failed["example.com/c.TestStop"] = cheapFailure{log: log("slow", string(slow)), outcome: record.Stopped, pkg: "example.com/c", pkgDir: pkgDir}
	ix := &record.Index{Sites: record.SitesFile, Packages: []*record.Package{
		{ImportPath: "example.com/a", Tests: []*record.Test{{Name: "TestA", Trace: "a.trace", Outcome: record.Fail}, {Name: "TestStop", Trace: "a.trace", Outcome: record.Pass}}},
		{ImportPath: "example.com/c", Tests: []*record.Test{{Name: "TestStop", Trace: "a.trace", Outcome: record.Pass}}},
	}}
	res, err := detect(t.Context(), dir, ix, DetectOptions{}, cheap, newTracker(func(Progress) {}))
	if err != nil {
		t.Fatal(err)
	}
	var failed []string
	for _, f := range res.Findings {
		if f.Kind == finding.TestFailed || f.Kind == finding.Crash && f.Validation.Effect == "hang" {
			failed = append(failed, fmt.Sprintf("%s %s: %s", f.Tests, f.Status, f.Validation.Reason))
		}
	}
	want := []string{
		"[example.com/a.TestStop] not-confirmed: happened in CFP's cheap run (the recorded run passed): panic: test timed out after 3s",
		"[example.com/b.TestGone] confirmed: happened in CFP's cheap run (not recorded after it: -record-budget): want 1",
	}
	if !slices.Equal(failed, want) {
		t.Errorf("test failures %q, want %q", failed, want)
	}
	notes := strings.Join(res.Notes, "\n")
	if !strings.Contains(notes, "example.com/b.TestUnreadable: fail in CFP's cheap run, not recorded after it") || strings.Contains(notes, "TestGone") || strings.Contains(notes, "example.com/c.TestStop") {
		t.Errorf("notes:\n%s\nwant one for TestUnreadable, none for TestGone or c's TestStop", notes)
	}
}

// twoTests returns a recording of two tests, example.com/a.TestA and
// example.com/b.TestB, in two packages, each with the mysql trace.
func twoTests(t *testing.T) (string, *record.Index) {
	t.Helper()
	dir := recordingDir(t)
	writeTrace(t, filepath.Join("testdata", "mysql.txt"), filepath.Join(dir, "a.trace"))
	ix := &record.Index{Sites: record.SitesFile, Packages: []*record.Package{
		{ImportPath: "example.com/a", Tests: []*record.Test{{Name: "TestA", Trace: "a.trace", Outcome: record.Pass}}},
		{ImportPath: "example.com/b", Tests: []*record.Test{{Name: "TestB", Trace: "a.trace", Outcome: record.Pass}}},
	}}
	return dir, ix
}

// TestDetectAbandoned checks that an interrupt during a test's analysis
// that does not end (a checker that has begun runs to its end) abandons
// that test after abandonGrace: the findings so far are the result, the
// static candidates (-vet) with what the tests before it showed of them,
// the note names the test, and the analysis goes on on its own.
func TestDetectAbandoned(t *testing.T) {
	dir, ix := twoTests(t)
	ctx, cancel := context.WithCancelCause(t.Context())
	defer cancel(nil)
	release := make(chan struct{})
	var stuck sync.WaitGroup
	stuck.Add(1)
	// A static candidate (precog test -vet) that both tests reach, of
	// a kind the trace's own checks do not report.
	cand := finding.Finding{Kind: finding.ConIndex, Status: finding.Static, Analyzer: "conindex", Message: "s.threads may change between the bound and the index",
		Sites: []finding.Site{
			{File: "/kernels/mysql/mysql.go", Line: 68, Col: 24, Role: finding.RoleIndex},
			{File: "/kernels/mysql/mysql.go", Line: 50, Col: 4, Role: finding.RoleWrite},
		}}
	cand.SetID()
	o := DetectOptions{Static: []finding.Finding{cand}, analysed: func(test string) {
		if test == "example.com/b.TestB" {
			defer stuck.Done()
			cancel(errors.New("interrupted by SIGTERM"))
			<-release
		}
	}}
	res, err := detect(ctx, dir, ix, o, nil, newTracker(func(Progress) {}))
	close(release)
	stuck.Wait()
	if err != nil {
		t.Fatal(err)
	}
	want := "interrupted by SIGTERM during detection: 1 of the 2 recorded tests analysed, the analysis of example.com/b.TestB abandoned (an in-memory checker had not stopped 3s after it), the others not analysed; no finding validated"
	if !slices.Contains(res.Notes, want) {
		t.Errorf("notes %q; want %q", res.Notes, want)
	}
	// TestA's findings stand, alone.
	if len(res.Findings) == 0 {
		t.Fatal("no findings: TestA's were dropped")
	}
	for _, f := range res.Findings {
		if !slices.Equal(f.Tests, []string{"example.com/a.TestA"}) {
			t.Errorf("%s: tests %v, want TestA's alone", f.ID, f.Tests)
		}
	}
	// So does the static candidate, as TestA's run reached it.
	if !slices.ContainsFunc(res.Findings, func(f finding.Finding) bool {
		return f.ID == cand.ID && f.Status == finding.Predicted && slices.Equal(f.Tests, []string{"example.com/a.TestA"})
	}) {
		t.Errorf("the static candidate %s is not in the partial result, predicted from TestA", cand.ID)
	}
	// The control: the same analysis not interrupted has TestB's too.
	all, err := detect(t.Context(), dir, ix, DetectOptions{}, nil, newTracker(func(Progress) {}))
	if err != nil {
		t.Fatal(err)
	}
	if len(all.Findings) == 0 || !slices.Equal(all.Findings[0].Tests, []string{"example.com/a.TestA", "example.com/b.TestB"}) {
		t.Errorf("uninterrupted findings %v; want TestA's and TestB's", all.Findings)
	}
}

// TestDetectInterrupted checks that detection interrupted (its context
// cancelled with an interrupt as cause) returns what it found before with a
// note saying how much was analysed, and that a trace's clock then reads
// spent, so a long check in progress ends too.
func TestDetectInterrupted(t *testing.T) {
	dir, ix := twoTests(t)
	ctx, cancel := context.WithCancelCause(t.Context())
	defer cancel(nil)
	intr := errors.New("interrupted by SIGTERM")
	// The first run's analysis is where the interrupt comes.
	o := DetectOptions{budgetSpent: func() bool { cancel(intr); return false }}
	res, err := detect(ctx, dir, ix, o, nil, newTracker(func(Progress) {}))
	if err != nil {
		t.Fatal(err)
	}
	want := "interrupted by SIGTERM during detection: 1 of the 2 recorded tests analysed, the others not; no finding validated"
	if res.Stats.Tests != 1 || !slices.Contains(res.Notes, want) {
		t.Errorf("%d tests analysed, notes %q; want 1 and %q", res.Stats.Tests, res.Notes, want)
	}
	stop := new(atomic.Bool)
	c := DetectOptions{MaxTraceTime: -1, interrupted: stop}.clock()
	if c.tick() || c.over() {
		t.Error("a clock without a limit reads spent before the interrupt")
	}
	stop.Store(true)
	if !c.tick() || !c.over() || !c.interrupted() {
		t.Error("a clock does not read spent after the interrupt")
	}
}

// TestAlone checks that a run whose every event one goroutine made gets no
// checker (none has two goroutines to compare), its events still counted,
// beside a run of two goroutines that gets them all.
func TestAlone(t *testing.T) {
	dir := recordingDir(t)
	two := writeTrace(t, filepath.Join("testdata", "mysql.txt"), filepath.Join(dir, "mysql.trace"))
	text := `precog trace v1 test="TestOne" package="example.com/one" start=2026-11-22T09:10:56.241154411Z pid=1
1 g=7 Begin parent=none
2 g=7 TestStart name="TestOne"
2.1 g=7 Write site=5 addr=0x3c3317f281d8 value=1
2.2 g=7 Read site=10 addr=0x3c3317f281d8
2.3 g=7 Write site=6 addr=0x3c3317f281d8 value=0
2.4 g=7 Read site=11 addr=0x3c3317f281d8
3 g=7 TestEnd outcome=pass
`
	src := filepath.Join(t.TempDir(), "one.txt")
	if err := os.WriteFile(src, []byte(text), 0o666); err != nil {
		t.Fatal(err)
	}
	one := writeTrace(t, src, filepath.Join(dir, "one.trace"))
	ix := &record.Index{Sites: record.SitesFile, Packages: []*record.Package{
		{ImportPath: "example.com/one", Tests: []*record.Test{{Name: "TestOne", Trace: "one.trace", Outcome: record.Pass}}},
		{ImportPath: "example.com/two", Tests: []*record.Test{{Name: "TestTwo", Trace: "mysql.trace", Outcome: record.Pass}}},
	}}
	res, err := Detect(t.Context(), dir, ix, DetectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stats.Alone != 1 || res.Stats.Runs != 2 || res.Stats.Events != len(one)+len(two) {
		t.Errorf("alone %d of %d runs, %d events; want 1 of 2, %d", res.Stats.Alone, res.Stats.Runs, res.Stats.Events, len(one)+len(two))
	}
	if len(res.Findings) == 0 {
		t.Error("no findings: the two-goroutine run was not analysed")
	}
	for _, f := range res.Findings {
		if !slices.Equal(f.Tests, []string{"example.com/two.TestTwo"}) {
			t.Errorf("%s %s: tests %v, want TestTwo's alone", f.ID, f.Kind, f.Tests)
		}
	}
}

// TestJobDeadline checks the shares of a run's stages: each of the time
// left when it begins, less the reserve kept for the results, recording
// less the grace of a test it stops, and none below its floor.
func TestJobDeadline(t *testing.T) {
	near := func(got, want time.Duration) bool { return got <= want && got >= want-time.Second }
	d := newJobDeadline(25*time.Minute, true)
	if r := d.reserve(); r != 30*time.Second {
		t.Errorf("reserve of 25m: %v, want 30s", r)
	}
	if got, want := d.build(), (25*time.Minute-30*time.Second)/2; !near(got, want) || got%time.Second != 0 {
		t.Errorf("the build's share of 25m: %v, want about %v", got, want)
	}
	if got, grace := d.recording(); !near(got, (25*time.Minute-30*time.Second)*2/5-30*time.Second) || got%time.Second != 0 || grace != 30*time.Second {
		t.Errorf("recording's share of 25m: %v, grace %v; want about %v, 30s", got, grace, (25*time.Minute-30*time.Second)*2/5-30*time.Second)
	}
	// A short share keeps three quarters for its tests: 2m15s less a
	// reserve of 6.75s is 128.25s, two fifths of it 51.3s, a quarter of
	// that the grace.
	if got, grace := newJobDeadline(135*time.Second, true).recording(); !near(got, 38*time.Second) || grace < 12*time.Second || grace > 13*time.Second {
		t.Errorf("recording's share of 2m15s: %v, grace %v; want about 38s, 12.8s", got, grace)
	}
	if got, want := d.detection(), (25*time.Minute-30*time.Second)/2; !near(got, want) {
		t.Errorf("detection's share of 25m: %v, want about %v", got, want)
	}
	if got, want := d.validation(), 25*time.Minute-30*time.Second; !near(got, want) {
		t.Errorf("validation's share of 25m: %v, want about %v", got, want)
	}
	// Without validation, recording half and detection the rest.
	d = newJobDeadline(10*time.Minute, false)
	if got, _ := d.recording(); !near(got, (10*time.Minute-30*time.Second)/2-30*time.Second) {
		t.Errorf("recording's share of 10m without validation: %v, want about %v", got, (10*time.Minute-30*time.Second)/2-30*time.Second)
	}
	if got, want := d.detection(), 10*time.Minute-30*time.Second; !near(got, want) {
		t.Errorf("detection's share of 10m without validation: %v, want about %v", got, want)
	}
	// A deadline already past: the floors, and a reserve of a twentieth.
	d = newJobDeadline(time.Second, true)
	d.end = time.Now().Add(-time.Minute)
	if rec, grace := d.recording(); d.reserve() != time.Second/20 || d.build() != time.Second || rec != time.Second || grace != time.Millisecond || d.detection() != time.Millisecond || d.validation() != time.Millisecond {
		t.Errorf("past deadline: reserve %v, shares %v %v (grace %v) %v %v; want 50ms, 1s, 1s (1ms), 1ms, 1ms", d.reserve(), d.build(), rec, grace, d.detection(), d.validation())
	}
	if newJobDeadline(0, true) != nil {
		t.Error("a deadline of 0 is not none")
	}
}

// TestJobDeadlineMore checks the time recording gets past its share
// (jobDeadline.more, record.Budget.More): what is left of the deadline,
// less the reserve, the grace and what the stages after it are reckoned
// to need (an eighth of the deadline, at least 30s, and 80µs an event
// recorded), half of it at a time when over 20s; nothing when under a
// second. The clock is the deadline's end, set by the test.
func TestJobDeadlineMore(t *testing.T) {
	near := func(got, want time.Duration) bool { return got <= want && got >= want-time.Second }
	d := newJobDeadline(16*time.Minute, true)
	if got := d.after(0); got != 2*time.Minute {
		t.Errorf("after no events of 16m: %v, want 2m (an eighth)", got)
	}
	if got := d.after(1_000_000); got != 2*time.Minute+80*time.Second {
		t.Errorf("after a million events of 16m: %v, want 3m20s", got)
	}
	if got := newJobDeadline(4*time.Minute, true).after(0); got != 30*time.Second {
		t.Errorf("after no events of 4m: %v, want the 30s floor", got)
	}
	if got := newJobDeadline(4*time.Minute, false).after(0); got != 24*time.Second {
		t.Errorf("after no events of 4m without validation: %v, want 24s (a tenth)", got)
	}
	// rocketmq at -deadline 16m: the build ended with about 8m30s of the
	// deadline left, recording's share (2m41s) spent with 5,064 events.
	d.end = time.Now().Add(8*time.Minute + 30*time.Second)
	over := 8*time.Minute - 30*time.Second - 2*time.Minute - 5064*80*time.Microsecond // left, less the grace and after
	if got := d.more(5064, 30*time.Second); !near(got, over/2) {
		t.Errorf("more with 8m30s left and 5,064 events: %v, want about %v (half of %v)", got, over/2, over)
	}
	// Near the end: all of what is over, when under 20s.
	d.end = time.Now().Add(30*time.Second + 30*time.Second + 2*time.Minute + 15*time.Second)
	if got := d.more(0, 30*time.Second); !near(got, 15*time.Second) {
		t.Errorf("more with 15s over what the stages after need: %v, want about 15s", got)
	}
	// Nothing: what is left is what detection and validation need, or
	// the events recorded already need more than is left.
	d.end = time.Now().Add(30*time.Second + 30*time.Second + 2*time.Minute)
	if got := d.more(0, 30*time.Second); got != 0 {
		t.Errorf("more with nothing over: %v, want 0", got)
	}
	d.end = time.Now().Add(time.Hour)
	if got := d.more(100_000_000, 30*time.Second); got != 0 {
		t.Errorf("more with an hour left and 100 million events (2h13m of detection): %v, want 0", got)
	}
	d.end = time.Now().Add(-time.Minute)
	if got := d.more(0, 30*time.Second); got != 0 {
		t.Errorf("more past the deadline: %v, want 0", got)
	}
	if got := cheapFair(80 * time.Second); got != 5*time.Second {
		t.Errorf("cheapFair of 80s: %v, want the 5s floor", got)
	}
	if got := cheapFair(5 * time.Minute); got != 5*time.Minute/16 {
		t.Errorf("cheapFair of 5m: %v, want a sixteenth", got)
	}
}

// TestDetectCut checks that at the end of detection's share of the
// deadline the runs left are not analysed, counted as skipped and named in
// one note, a failed run's failure still reported, while the runs analysed
// before keep their findings, as when -detect-budget is spent.
func TestDetectCut(t *testing.T) {
	dir, ix := passAndFail(t)
	// The control: a share that does not end analyses both.
	all, err := Detect(t.Context(), dir, ix, DetectOptions{share: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	want := testKinds(all)
	if want["example.com/a.TestA "+finding.Race] == 0 || want["example.com/a.TestB "+finding.Race] == 0 || all.Stats.Skipped != 0 {
		t.Fatalf("share not ended: findings %v, skipped %d; want both tests' races", want, all.Stats.Skipped)
	}
	for k := range want {
		if strings.HasPrefix(k, "example.com/a.TestB ") && k != "example.com/a.TestB "+finding.TestFailed {
			delete(want, k)
		}
	}
	// The share ends as TestA's analysis ends.
	c := startCut(time.Hour)
	defer c.stop()
	res, err := Detect(t.Context(), dir, ix, DetectOptions{cut: c, analysed: func(test string) {
		if test == "example.com/a.TestA" {
			c.fire()
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if got := testKinds(res); !maps.Equal(got, want) {
		t.Errorf("share ended after TestA: findings %v, want %v", got, want)
	}
	const note = "detection stopped at the end of its share of -deadline (1h0m0s of wall time) with 1 run, of 1 of the 2 tests, not analysed; their failures are still reported (a later -deadline analyses them)"
	if res.Stats.Skipped != 1 || !slices.Contains(res.Notes, note) {
		t.Errorf("share ended after TestA: skipped %d, notes %q; want 1 and %q", res.Stats.Skipped, res.Notes, note)
	}
	// A trace's clock reads spent once the share ends.
	c = startCut(time.Hour)
	defer c.stop()
	clock := DetectOptions{MaxTraceTime: -1, cut: c}.clock()
	if clock.tick() || clock.over() {
		t.Error("a clock without a limit reads spent before the share ends")
	}
	c.fire()
	if !clock.tick() || !clock.over() || clock.interrupted() {
		t.Error("a clock does not read spent, as no interrupt, after the share ends")
	}
}

// TestDetectOverLimitLast checks that the tests with a trace over
// -max-trace are analysed after the others, whatever the recording's
// order, so that a share of the deadline that ends after one test's
// analysis is spent on a test within the limit: TestA, first in the
// recording, says its trace is over the limit (the index's size, which
// orders detection; the file itself is small and read whole), and the
// share ends as the first analysis ends. The control: without a limit,
// the recording's order.
func TestDetectOverLimitLast(t *testing.T) {
	for _, tc := range []struct {
		max        int64
		first      string
		found      string // the test whose race is found
		notesAbout string // the test the cut's note counts as not analysed
	}{
		{1 << 20, "example.com/b.TestB", "example.com/b.TestB", "example.com/a.TestA"},
		{-1, "example.com/a.TestA", "example.com/a.TestA", "example.com/b.TestB"},
	} {
		dir, ix := twoTests(t)
		ix.Packages[0].Tests[0].Bytes = 1 << 30
		ix.Packages[1].Tests[0].Bytes = 1 << 10
		ix.Packages = append(ix.Packages, &record.Package{ImportPath: "example.com/c"}) // no test recorded: counted all the same
		c := startCut(time.Hour)
		var order []string
		res, err := Detect(t.Context(), dir, ix, DetectOptions{MaxTraceBytes: tc.max, cut: c, analysed: func(test string) {
			if order = append(order, test); len(order) == 1 {
				c.fire()
			}
		}})
		c.stop()
		if err != nil {
			t.Fatal(err)
		}
		got := testKinds(res)
		if len(order) == 0 || order[0] != tc.first || got[tc.found+" "+finding.Race] == 0 || got[tc.notesAbout+" "+finding.Race] != 0 || res.Stats.Skipped != 1 || res.Stats.Packages != 3 {
			t.Errorf("-max-trace %d: analysed %q, findings %v, skipped %d, %d packages; want %s first, its race alone, 1 skipped, 3 packages",
				tc.max, order, got, res.Stats.Skipped, res.Stats.Packages, tc.first)
		}
	}
}

// TestDetectCutAbandoned checks that a test whose analysis does not stop
// at the end of detection's share is abandoned after abandonGrace, with
// a note naming it, and that detection goes on to count the tests after
// it as not analysed, instead of waiting.
func TestDetectCutAbandoned(t *testing.T) {
	dir, ix := twoTests(t)
	release := make(chan struct{})
	var stuck sync.WaitGroup
	stuck.Add(1)
	c := startCut(time.Hour)
	defer c.stop()
	o := DetectOptions{cut: c, analysed: func(test string) {
		if test == "example.com/a.TestA" {
			defer stuck.Done()
			c.fire()
			<-release
		}
	}}
	res, err := detect(t.Context(), dir, ix, o, nil, newTracker(func(Progress) {}))
	close(release)
	stuck.Wait()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"example.com/a.TestA: its analysis abandoned at the end of detection's share of -deadline (1h0m0s) (an in-memory checker had not stopped 3s after it); the findings of its runs are missed",
		"detection stopped at the end of its share of -deadline (1h0m0s of wall time) with 1 run, of 1 of the 2 tests, not analysed; their failures are still reported (a later -deadline analyses them)",
	} {
		if !slices.Contains(res.Notes, want) {
			t.Errorf("notes %q; want %q", res.Notes, want)
		}
	}
	if len(res.Findings) != 0 || res.Stats.Tests != 2 {
		t.Errorf("%d findings, %d tests; want none (TestA abandoned, TestB not analysed), 2", len(res.Findings), res.Stats.Tests)
	}
}
