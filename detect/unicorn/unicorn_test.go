package unicorn

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/detect/hb"
	"github.com/precog-dev/precog/shim/trace"
)

// build parses a trace body in the text form (events only; the header is
// added) and analyzes it.
func build(t *testing.T, body string) *hb.Graph {
	t.Helper()
	tr, err := trace.ParseText(strings.NewReader(`precog trace v1 test="T" package="p" start=2026-01-01T00:00:00Z pid=1` + "\n" + body))
	if err != nil {
		t.Fatal(err)
	}
	return hb.Analyze(tr.Events, hb.Options{})
}

// runner writes traces of two goroutines, g=2 and g=3, started by go
// statements at sites 100 and 101, in the text form: each access in a
// critical section of its own of the lock at 0x900, so that the trace
// knows the order of every two accesses.
type runner struct {
	b   strings.Builder
	seq int
}

func newRunner() *runner {
	r := &runner{}
	r.line("g=1 Begin parent=none")
	r.line("g=1 Fork site=100 child=2")
	r.line("g=1 Fork site=101 child=3")
	r.line("g=2 Begin parent=1")
	r.line("g=3 Begin parent=1")
	return r
}

func (r *runner) line(ev string) {
	r.seq++
	fmt.Fprintf(&r.b, "%d %s\n", r.seq, ev)
}

// locked records access kind ("Read" or "Write") by goroutine g at site
// of addr, in a critical section.
func (r *runner) locked(g int, kind string, site int, addr uint64) {
	r.line(fmt.Sprintf("g=%d Lock site=90 addr=0x900", g))
	value := ""
	if kind == "Write" {
		value = " value=1"
	}
	fmt.Fprintf(&r.b, "%d.1 g=%d %s site=%d addr=%#x%s\n", r.seq, g, kind, site, addr, value)
	r.line(fmt.Sprintf("g=%d Unlock site=91 addr=0x900", g))
}

func (r *runner) graph(t *testing.T) *hb.Graph { return build(t, r.b.String()) }

// keys returns the keys of a run's patterns.
func keys(rp RunPatterns) []string {
	var ks []string
	for _, p := range rp.Patterns {
		ks = append(ks, p.Key())
	}
	return ks
}

const x, y = 0x10, 0x20

// mysqlLog returns a run of Fig. 2: goroutine 2 writes x at sites 1 and 3,
// goroutine 3 reads it at site 2, between the writes if failing.
func mysqlLog(t *testing.T, failing bool) RunPatterns {
	r := newRunner()
	if failing {
		r.locked(2, "Write", 1, x)
		r.locked(3, "Read", 2, x)
		r.locked(2, "Write", 3, x)
	} else {
		r.locked(2, "Write", 1, x)
		r.locked(2, "Write", 3, x)
		r.locked(3, "Read", 2, x)
	}
	return Patterns(r.graph(t), Options{})
}

func TestPatternsSingleVariable(t *testing.T) {
	got := keys(mysqlLog(t, true))
	want := []string{"p1 R1(x)@2 W2(x)@3", "p2 W1(x)@1 R2(x)@2", "p6 W1(x)@1 R2(x)@2 W1(x)@3"}
	if !slices.Equal(got, want) {
		t.Errorf("failing run: patterns %q, want %q", got, want)
	}
	// The read after both writes sees the second: one pair, no pattern.
	got = keys(mysqlLog(t, false))
	want = []string{"p2 W1(x)@3 R2(x)@2"}
	if !slices.Equal(got, want) {
		t.Errorf("passing run: patterns %q, want %q", got, want)
	}
}

func TestPatternsEverySingleVariableKind(t *testing.T) {
	for _, c := range []struct {
		kinds string
		p     int
	}{{"RWR", 4}, {"WWR", 5}, {"WRW", 6}, {"RWW", 7}, {"WWW", 8}} {
		r := newRunner()
		kind := map[byte]string{'R': "Read", 'W': "Write"}
		r.locked(2, kind[c.kinds[0]], 1, x)
		r.locked(3, kind[c.kinds[1]], 2, x)
		r.locked(2, kind[c.kinds[2]], 3, x)
		rp := Patterns(r.graph(t), Options{})
		if !slices.ContainsFunc(rp.Patterns, func(p Pattern) bool { return p.P == c.p }) {
			t.Errorf("%s: no P%d in %q", c.kinds, c.p, keys(rp))
		}
	}
	// Two reads around a read make no pair at all.
	r := newRunner()
	r.locked(2, "Read", 1, x)
	r.locked(3, "Read", 2, x)
	r.locked(2, "Read", 3, x)
	if rp := Patterns(r.graph(t), Options{}); len(rp.Patterns) != 0 {
		t.Errorf("reads only: patterns %q, want none", keys(rp))
	}
}

// twoVariables returns a run with goroutine 2's accesses (kind, site, addr)
// a1 and a4 around goroutine 3's a2 and a3, in that order.
func twoVariables(t *testing.T, order string) RunPatterns {
	// order: four "KGV" triples such as "W2x W3x W3y W2y".
	r := newRunner()
	for n, tok := range strings.Fields(order) {
		kind := map[byte]string{'R': "Read", 'W': "Write"}[tok[0]]
		g := int(tok[1] - '0')
		addr := uint64(x)
		if tok[2] == 'y' {
			addr = y
		}
		r.locked(g, kind, n+1, addr)
	}
	return Patterns(r.graph(t), Options{})
}

func TestPatternsMultiVariable(t *testing.T) {
	for _, c := range []struct {
		order string
		p     int // 0: no multi-variable pattern
	}{
		{"W2x W3x W3y W2y", 9}, // MysqlDelete, Fig. 3
		{"W2x W3y W3x W2y", 10},
		{"W2x W3y W2y W3x", 11},
		{"W2x R3x R3y W2y", 12}, // JsString
		{"W2x R3y R3x W2y", 13},
		{"R2x W3x W3y R2y", 14}, // MysqlSlave, StringBuffer, Vector
		{"R2x W3y W3x R2y", 15},
		{"R2x W3y R2y W3x", 16},
		{"W2x R3y W2y R3x", 17},
		// Serializable: goroutine 2's accesses, then goroutine 3's.
		{"W2x W2y W3x W3y", 0},
		{"R2x R2y W3x W3y", 0},
		{"W2x W3x W2y W3y", 0},
	} {
		rp := twoVariables(t, c.order)
		var multi []int
		for _, p := range rp.Patterns {
			if p.P >= 9 {
				multi = append(multi, p.P)
			}
		}
		want := []int{}
		if c.p != 0 {
			want = []int{c.p}
		}
		if !slices.Equal(append([]int{}, multi...), want) {
			t.Errorf("%s: multi-variable patterns %v, want %v (all: %q)", c.order, multi, want, keys(rp))
		}
	}
}

func TestPatternsPairNeedsTwoGoroutines(t *testing.T) {
	r := newRunner()
	r.locked(2, "Write", 1, x)
	r.locked(2, "Read", 2, x)
	if rp := Patterns(r.graph(t), Options{}); len(rp.Patterns) != 0 {
		t.Errorf("one goroutine: patterns %q, want none", keys(rp))
	}
}

// An access pairs only with the accesses of its location's window.
func TestPatternsAccessWindow(t *testing.T) {
	r := newRunner()
	r.locked(2, "Write", 1, x)
	for range 5 {
		r.locked(2, "Read", 4, x)
	}
	r.locked(3, "Read", 2, x)
	if rp := Patterns(r.graph(t), Options{}); len(rp.Patterns) != 0 {
		t.Errorf("window 5: patterns %q, want none (the write left the window)", keys(rp))
	}
	if rp := Patterns(r.graph(t), Options{AccessWindow: 10}); !slices.Equal(keys(rp), []string{"p2 W1(x)@1 R2(x)@2"}) {
		t.Errorf("window 10: patterns %q, want the write and the read", keys(rp))
	}
}

// Plain accesses of two goroutines with no sync event between them: the
// trace does not know their order.
func TestPatternsUnknownOrder(t *testing.T) {
	g := build(t, `
1 g=1 Begin parent=none
2 g=1 Fork site=100 child=2
3 g=1 Fork site=101 child=3
4 g=2 Begin parent=1
5 g=3 Begin parent=1
4.1 g=2 Write site=1 addr=0x10 value=1
5.1 g=3 Read site=2 addr=0x10
6 g=2 End
7 g=3 End
`)
	if rp := Patterns(g, Options{}); len(rp.Patterns) != 0 {
		t.Errorf("unknown order: patterns %q, want none", keys(rp))
	}
	// Taking the trace's order, the write comes first.
	if rp := Patterns(g, Options{TraceOrder: true}); !slices.Equal(keys(rp), []string{"p2 W1(x)@1 R2(x)@2"}) {
		t.Errorf("TraceOrder: patterns %q, want the trace's order", keys(rp))
	}
}

// A pair ordered by a channel cannot be reversed: dropped.
func TestPatternsOrderedBySynchronization(t *testing.T) {
	g := build(t, `
1 g=1 Begin parent=none
2 g=1 ChanMake site=99 addr=0x800 cap=0
3 g=1 Fork site=100 child=2
4 g=1 Fork site=101 child=3
5 g=2 Begin parent=1
6 g=3 Begin parent=1
6.1 g=2 Write site=1 addr=0x10 value=1
7 g=2 ChanSend site=98 addr=0x800
8 g=3 ChanRecv site=97 addr=0x800 ok=true
8.1 g=3 Read site=2 addr=0x10
`)
	if rp := Patterns(g, Options{}); len(rp.Patterns) != 0 {
		t.Errorf("ordered by a channel: patterns %q, want none", keys(rp))
	}
	if rp := Patterns(g, Options{KeepOrdered: true}); !slices.Equal(keys(rp), []string{"p2 W1(x)@1 R2(x)@2"}) {
		t.Errorf("KeepOrdered: patterns %q, want the pair", keys(rp))
	}
}

// An atomic load that read an atomic store is the pair's own
// communication, not an order around it: kept.
func TestPatternsAtomicPublication(t *testing.T) {
	g := build(t, `
1 g=1 Begin parent=none
2 g=1 Fork site=100 child=2
3 g=1 Fork site=101 child=3
4 g=2 Begin parent=1
5 g=3 Begin parent=1
6 g=2 AtomicStore site=1 addr=0x10 value=7
7 g=3 AtomicLoad site=2 addr=0x10 value=7
`)
	if rp := Patterns(g, Options{}); !slices.Equal(keys(rp), []string{"p2 W1(x)@1 R2(x)@2"}) {
		t.Errorf("atomic publication: patterns %q, want the pair", keys(rp))
	}
}

var testSites = &trace.SiteTable{Sites: []trace.Site{
	{ID: 1, File: "/k/mysqllog/mysqllog.go", Line: 66, Col: 2, Kind: "write", Function: "(*BinLog).NewFile", Expr: "l.logType"},
	{ID: 2, File: "/k/mysqllog/mysqllog.go", Line: 81, Col: 5, Kind: "read", Function: "(*BinLog).Insert", Expr: "l.logType"},
	{ID: 3, File: "/k/mysqllog/mysqllog.go", Line: 73, Col: 2, Kind: "write", Function: "(*BinLog).NewFile", Expr: "l.logType"},
	{ID: 90, File: "/k/mysqllog/mysqllog.go", Line: 60, Col: 2, Kind: "lock", Function: "(*BinLog).NewFile", Expr: "l.mu"},
	{ID: 100, File: "/k/mysqllog/mysqllog_test.go", Line: 35, Col: 3, Kind: "go", Function: "TestInsert", Expr: "go func()"},
	{ID: 101, File: "/k/mysqllog/mysqllog_test.go", Line: 40, Col: 3, Kind: "go", Function: "TestInsert", Expr: "go func()"},
}}

func TestRank(t *testing.T) {
	runs := []Run{
		{Patterns: mysqlLog(t, false)},
		{Patterns: mysqlLog(t, true), Failed: true},
		{Patterns: mysqlLog(t, false)},
		{Patterns: mysqlLog(t, true), Failed: true},
	}
	fs := Rank(runs, testSites, Options{})
	if len(fs) != 1 {
		t.Fatalf("got %d findings, want 1: %+v", len(fs), fs)
	}
	f := fs[0]
	if f.Kind != "unicorn-p6" || f.Status != finding.Predicted || f.ID == "" {
		t.Errorf("kind %q status %q id %q, want unicorn-p6, predicted, an id", f.Kind, f.Status, f.ID)
	}
	var sites []string
	for _, s := range f.Sites {
		sites = append(sites, fmt.Sprintf("%s %d %s", s.Role, s.Line, s.Goroutine))
	}
	want := []string{"W1(x) 66 go statement at mysqllog_test.go:35", "R2(x) 81 go statement at mysqllog_test.go:40", "W1(x) 73 go statement at mysqllog_test.go:35"}
	if !slices.Equal(sites, want) {
		t.Errorf("sites %q, want %q", sites, want)
	}
	if len(f.Spawns) != 3 || f.Spawns[1].Line != 40 {
		t.Errorf("spawns %+v, want the go statements of each site", f.Spawns)
	}
	if e := f.Evidence; e.Suspiciousness != 1 || e.FailingRuns != 2 || e.PassingRuns != 0 || len(e.Clocks) != 3 {
		t.Errorf("evidence %+v, want suspiciousness 1 in 2 failing and 0 passing runs, 3 clocks", e)
	}
	if got := fmt.Sprint(f.Evidence.Locks); got != "[[l.mu@mysqllog.go:60] [l.mu@mysqllog.go:60] [l.mu@mysqllog.go:60]]" {
		t.Errorf("locks %s, want l.mu at each site", got)
	}
	wantMsg := "(*BinLog).NewFile writes l.logType twice and (*BinLog).Insert reads it in between: a temporary value is seen (in 2 of 2 failing runs and 0 of 2 passing runs)"
	if f.Message != wantMsg {
		t.Errorf("message %q,\nwant %q", f.Message, wantMsg)
	}
	// P1 and P2, the pattern's two pairs, also score 1: the same root cause.
	if notes := strings.Join(f.Evidence.Notes, "\n"); !strings.Contains(notes, "same root cause: unicorn-p1") || !strings.Contains(notes, "same root cause: unicorn-p2") {
		t.Errorf("notes %q, want the pairs grouped into the finding", notes)
	}
	// The same runs give the same finding.
	if again := Rank(runs, testSites, Options{}); again[0].ID != f.ID {
		t.Errorf("ID %s, then %s", f.ID, again[0].ID)
	}
}

func TestRankSilent(t *testing.T) {
	pass, fail := mysqlLog(t, false), mysqlLog(t, true)
	other := twoVariables(t, "W2x W2y W3x W3y")
	for _, c := range []struct {
		name string
		runs []Run
		opts Options
	}{
		{"no runs", nil, Options{}},
		{"no failing run", []Run{{Patterns: pass}, {Patterns: fail}}, Options{}},
		{"every run failed", []Run{{Patterns: pass, Failed: true}, {Patterns: fail, Failed: true}}, Options{}},
		// The pattern is in one failing run of three: 1/3 < 0.5; the
		// other failing runs' patterns score 1/4 and 1/3.
		{"below MinScore", []Run{{Patterns: fail, Failed: true}, {Patterns: pass, Failed: true}, {Patterns: other, Failed: true}, {Patterns: pass}}, Options{}},
	} {
		if fs := Rank(c.runs, testSites, c.opts); len(fs) != 0 {
			t.Errorf("%s: %d findings, want none: %s", c.name, len(fs), fs[0].Message)
		}
	}
	// With a lower MinScore the last one reports.
	runs := []Run{{Patterns: fail, Failed: true}, {Patterns: pass, Failed: true}, {Patterns: other, Failed: true}, {Patterns: pass}}
	if fs := Rank(runs, testSites, Options{MinScore: 0.3}); len(fs) != 1 {
		t.Errorf("MinScore 0.3: %d findings, want 1", len(fs))
	}
}

// A failing run in which Step 1 kept no pair (plain accesses whose order
// the trace does not know) is blind: it does not count against the
// patterns of the failing runs that saw something.
func TestRankBlindFailingRuns(t *testing.T) {
	pass, fail := mysqlLog(t, false), mysqlLog(t, true)
	runs := []Run{{Patterns: fail, Failed: true}, {Failed: true}, {Failed: true}, {Patterns: pass}}
	fs := Rank(runs, testSites, Options{})
	if len(fs) != 1 || fs[0].Evidence.Suspiciousness != 1 {
		t.Fatalf("%d findings, want 1 with suspiciousness 1: %v", len(fs), fs)
	}
	if !strings.Contains(fs[0].Message, "in 1 of 1 failing runs") || !slices.ContainsFunc(fs[0].Evidence.Notes, func(n string) bool { return strings.HasPrefix(n, "2 more failing runs kept no pair") }) {
		t.Errorf("message %q, notes %q: want 1 of 1 failing runs and a note on the 2 blind ones", fs[0].Message, fs[0].Evidence.Notes)
	}
}

// Two unrelated bugs at the top score are two findings; patterns of the
// same goroutines that share no site are not grouped.
func TestRankGroups(t *testing.T) {
	r := newRunner()
	r.locked(2, "Write", 1, x)
	r.locked(3, "Read", 2, x)
	r.locked(2, "Write", 3, x)
	r.locked(2, "Write", 4, y)
	r.locked(3, "Write", 5, y)
	failing := Patterns(r.graph(t), Options{})
	p := newRunner()
	p.locked(2, "Write", 1, x)
	p.locked(2, "Write", 3, x)
	p.locked(3, "Read", 2, x)
	p.locked(3, "Write", 5, y)
	p.locked(2, "Write", 4, y)
	passing := Patterns(p.graph(t), Options{})
	fs := Rank([]Run{{Patterns: failing, Failed: true}, {Patterns: passing}}, testSites, Options{})
	var kinds []string
	for _, f := range fs {
		kinds = append(kinds, f.Kind)
	}
	// x: P6 with its pairs; y: P3 W1(y)@4 W2(y)@5. (P1 R(x)@2 W(x)@3 and
	// W(x)@3 ... combine with y's pair into no Table I pattern.)
	if !slices.Contains(kinds, "unicorn-p6") || !slices.Contains(kinds, "unicorn-p3") {
		t.Errorf("kinds %q, want unicorn-p6 and unicorn-p3 apart", kinds)
	}
}

func TestVariable(t *testing.T) {
	for expr, want := range map[string]string{"delete(db.table, k)": "db.table", "db.table[k]": "db.table[k]", "l.logType": "l.logType"} {
		if got := variable(expr); got != want {
			t.Errorf("variable(%q) = %q, want %q", expr, got, want)
		}
	}
}

func TestScoresJaccard(t *testing.T) {
	pass, fail := mysqlLog(t, false), mysqlLog(t, true)
	// Table II's arithmetic: a pattern in 2 of 2 failing runs and 2
	// passing runs scores 2/(2+2).
	both := RunPatterns{Patterns: append(slices.Clone(fail.Patterns), pass.Patterns...)}
	scores := Scores([]Run{{Patterns: both, Failed: true}, {Patterns: both, Failed: true}, {Patterns: pass}, {Patterns: pass}})
	for _, s := range scores {
		want := 1.0
		if s.Pattern.Key() == "p2 W1(x)@3 R2(x)@2" {
			want = 0.5
		}
		if s.Susp != want {
			t.Errorf("%s: suspiciousness %v, want %v", s.Pattern.Key(), s.Susp, want)
		}
	}
	if scores[len(scores)-1].Pattern.Key() != "p2 W1(x)@3 R2(x)@2" {
		t.Errorf("the pattern of passing runs ranks %s, want last", scores[len(scores)-1].Pattern.Key())
	}
}

// TestPatternsInCatalog checks that Table I's patterns, which the tables
// of this package recognise and describe, are the ones the finding
// catalog names: P1 to finding.UnicornPatterns.
func TestPatternsInCatalog(t *testing.T) {
	found := map[int]bool{1: true, 2: true, 3: true} // the pair patterns
	for _, p := range single {
		if p != 0 {
			found[p] = true
		}
	}
	for _, p := range multiRows {
		found[p] = true
	}
	for p := 1; p <= finding.UnicornPatterns; p++ {
		if !found[p] || descriptions[p] == "" {
			t.Errorf("pattern P%d: recognised %v, described %v", p, found[p], descriptions[p] != "")
		}
		if !finding.Valid(finding.Unicorn(p)) {
			t.Errorf("%s is not a kind of the catalog", finding.Unicorn(p))
		}
	}
	if len(found) != finding.UnicornPatterns {
		t.Errorf("%d patterns recognised, the catalog has %d", len(found), finding.UnicornPatterns)
	}
}

// TestRankCut checks that runs analysed only in their first events
// (Run.Cut) count so that a score can only go down: a passing cut run that
// does not show a pattern as having it, a failing one as lacking it and
// never as blind.
func TestRankCut(t *testing.T) {
	pass, fail := mysqlLog(t, false), mysqlLog(t, true)
	// The pattern of every failing run, which a passing cut run did not
	// show: 2/(2+0+1).
	fs := Rank([]Run{{Patterns: fail, Failed: true}, {Patterns: fail, Failed: true}, {Patterns: pass}, {Cut: true}}, testSites, Options{})
	if len(fs) != 1 || fs[0].Kind != "unicorn-p6" || fs[0].Evidence.Suspiciousness != 2.0/3 {
		t.Fatalf("passing run cut: %d findings, want unicorn-p6 at 2/3: %v", len(fs), fs)
	}
	if !strings.Contains(fs[0].Message, "(in 2 of 2 failing runs and 0 of 2 passing runs)") ||
		!slices.Contains(fs[0].Evidence.Notes, "1 of the passing runs was analysed only in its first events (-max-trace) and did not show it there: the score counts it as having it, which may lie after the cut") {
		t.Errorf("passing run cut: message %q, notes %q", fs[0].Message, fs[0].Evidence.Notes)
	}
	// A failing run cut before any pair is not blind: 1/2.
	fs = Rank([]Run{{Patterns: fail, Failed: true}, {Failed: true, Cut: true}, {Patterns: pass}}, testSites, Options{})
	if len(fs) != 1 || fs[0].Evidence.Suspiciousness != 0.5 || !strings.Contains(fs[0].Message, "in 1 of 2 failing runs") ||
		!slices.Contains(fs[0].Evidence.Notes, "1 of the failing runs was analysed only in its first events (-max-trace) and did not show it there: it may lie after the cut") {
		t.Fatalf("failing run cut: %v, want unicorn-p6 at 1/2 with a note", fs)
	}
	// Negative control: the failing runs' patterns are the passing runs'
	// too (2/5 over the whole runs), but the passing runs were cut before
	// them. Counted as absent they would score 1.
	cut := []Run{{Patterns: pass, Failed: true}, {Patterns: pass, Failed: true}, {Cut: true}, {Cut: true}, {Cut: true}}
	if fs := Rank(cut, testSites, Options{}); len(fs) != 0 {
		t.Errorf("passing runs cut before the patterns of every run: %d findings, want none: %s", len(fs), fs[0].Message)
	}
	for i := range cut {
		cut[i].Cut = false
	}
	if fs := Rank(cut, testSites, Options{}); len(fs) == 0 {
		t.Error("the same runs not cut: no finding; the control shows nothing")
	}
}

// TestRankCutOutranked checks that a group at the top of the lowest
// scores is reported only if no pattern outside it can score higher: the
// failing runs show two unrelated bugs, x's P6 and y's P3, and a passing
// cut run that shows neither may have either after its cut.
func TestRankCutOutranked(t *testing.T) {
	r := newRunner()
	r.locked(2, "Write", 1, x)
	r.locked(3, "Read", 2, x)
	r.locked(2, "Write", 3, x)
	r.locked(2, "Write", 4, y)
	r.locked(3, "Write", 5, y)
	failing := Patterns(r.graph(t), Options{})
	runs := []Run{{Patterns: failing, Failed: true}, {Patterns: failing, Failed: true}, {Cut: true}}
	if fs := Rank(runs, testSites, Options{}); len(fs) != 0 {
		t.Errorf("neither shown by the passing cut run: %d findings, want none: %s", len(fs), fs[0].Message)
	}
	for i := range runs {
		runs[i].Cut = false
	}
	if fs := Rank(runs, testSites, Options{}); len(fs) != 2 {
		t.Errorf("the same runs not cut: %d findings, want both; the control shows nothing", len(fs))
	}
	// The passing cut run shows y's pattern: it scores 2/3 at most, x's
	// at least.
	p := newRunner()
	p.locked(2, "Write", 4, y)
	p.locked(3, "Write", 5, y)
	runs = []Run{{Patterns: failing, Failed: true}, {Patterns: failing, Failed: true}, {Patterns: Patterns(p.graph(t), Options{}), Cut: true}}
	if fs := Rank(runs, testSites, Options{}); len(fs) != 1 || fs[0].Kind != "unicorn-p6" {
		t.Errorf("y's pattern shown by the passing cut run: %d findings, want x's unicorn-p6 alone: %v", len(fs), fs)
	}
}
