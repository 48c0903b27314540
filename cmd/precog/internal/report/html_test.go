package report

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/precog-dev/precog/cmd/precog/internal/report/htmltest"
	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/internal/headless"
)

// source is the file the fixed findings below point into.
const source = `package p

func (c *Client) close() {
	c.conn = nil // nil-store
}

func (c *Client) send() {
	if c.conn != nil { // check
		c.conn.Write(nil) // deref
	}
}

func (q *Queue) stop()      { close(q.out) }
func (q *Queue) put(b byte) { q.out <- b }
`

// fixture writes the source file under a new directory and returns the
// directory and fixed findings into it: a confirmed con-null with its
// forced order, a con-closed predicted only (not validated), a crash in a
// file that is gone, and a static con-map.
func fixture(t testing.TB) (string, []finding.Finding) {
	dir := t.TempDir()
	file := filepath.Join(dir, "p", "p.go")
	if err := os.MkdirAll(filepath.Dir(file), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(source), 0o666); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(file, old, old)
	const test = "example.com/p.TestClient"
	store := finding.Event{Role: "nil-store", G: 2, Site: 11, Kind: "Write", Index: 3}
	check := finding.Event{Role: "check", G: 1, Site: 12, Kind: "Read", Index: 5}
	deref := finding.Event{Role: "deref", G: 1, Site: 13, Kind: "Read", Index: 6}
	null := finding.Finding{
		Kind: "con-null", Status: finding.Confirmed,
		Message: "nil stored to c.conn in (*Client).close may be dereferenced by (*Client).send <script>alert(1)</script>",
		Sites: []finding.Site{
			{File: file, Line: 9, Col: 3, Role: "deref", Expr: "c.conn", Function: "(*Client).send", ID: 13, Goroutine: file + ":20:2"},
			{File: file, Line: 4, Col: 2, Role: "nil-store", Expr: "c.conn", Function: "(*Client).close", ID: 11},
		},
		Spawns: []finding.Site{{File: file, Line: 20, Col: 2, Role: "go", Expr: "go c.send()", Function: "TestClient"}, {}},
		Stacks: [][]finding.Site{
			{{File: file, Line: 7, Col: 18, Role: "call", Function: "(*Client).send"}},
			{{File: file, Line: 3, Col: 18, Role: "call", Function: "(*Client).close"}},
		},
		Evidence:  finding.Evidence{Locks: [][]string{{"c.mu@p.go:8"}, nil}, Clocks: []string{"g1:3 g2:1", "g1:1 g2:2"}},
		Tests:     []string{test},
		Witnesses: []finding.Witness{{Test: test, Events: []finding.Event{deref, store, check}}},
		Validation: &finding.Validation{Effect: "panic", Reason: "panic: nil pointer dereference, at p.go:9", Test: test, Runs: 1, Failed: 1,
			Order: &finding.Order{What: "the nil store between the check and the dereference",
				Edges: []finding.Edge{{Before: check, After: store}, {Before: store, After: deref}}}},
		Repro: "precog repro 0123456789ab",
	}
	closed := finding.Finding{
		Kind: "con-closed", Status: finding.Predicted, Message: "q.out closed in (*Queue).stop may still be sent on by (*Queue).put",
		Sites: []finding.Site{
			{File: file, Line: 13, Col: 36, Role: "close", Expr: "q.out", Function: "(*Queue).stop", ID: 21},
			{File: file, Line: 14, Col: 31, Role: "send", Expr: "q.out", Function: "(*Queue).put", ID: 22, Goroutine: file + ":30:2"},
		},
		Tests: []string{"example.com/p.TestQueue"},
		Witnesses: []finding.Witness{{Test: "example.com/p.TestQueue", Events: []finding.Event{
			{Role: "close", G: 1, Site: 21, Kind: "ChanClose", Index: 9},
			{Role: "send", G: 3, Site: 22, Kind: "ChanSend", Index: 4},
		}}},
	}
	crash := finding.Finding{
		Kind: "crash", Status: finding.Confirmed, Message: "TestGone panicked: boom",
		Sites:      []finding.Site{{File: filepath.Join(dir, "gone", "gone.go"), Line: 3, Role: "panic", Expr: "boom", Function: "Gone"}},
		Tests:      []string{"example.com/gone.TestGone"},
		Validation: &finding.Validation{Effect: "panic", Reason: "happened in the recorded run: panic: boom", Runs: 1, Failed: 1},
		Repro:      "go test -run '^TestGone$' example.com/gone",
	}
	static := finding.Finding{
		Kind: "con-map", Status: finding.Static, Message: "q.m is written and read with no common lock", Analyzer: "conmap",
		Sites: []finding.Site{
			{File: file, Line: 4, Col: 2},
			{File: file, Line: 4, Col: 2, Role: "map-write"},
			{File: file, Line: 9, Col: 3, Role: "map-read"},
		},
	}
	fs := []finding.Finding{static, closed, crash, null}
	for i := range fs {
		fs[i].SetID()
	}
	return dir, fs
}

// TestTimelineForced checks the picture of a confirmed finding: the
// forced order puts the check, the nil store and the dereference in that
// order, though the run recorded the store first, with one arrow per step.
func TestTimelineForced(t *testing.T) {
	dir, fs := fixture(t)
	tl := buildTimeline(dir, fs[3])
	if tl.Source != "forced" || len(tl.Lanes) != 2 || len(tl.Arrows) != 2 {
		t.Fatalf("source %q, %d lanes, %d arrows; want forced, 2, 2", tl.Source, len(tl.Lanes), len(tl.Arrows))
	}
	if got := order(tl); !slices.Equal(got, []string{"check", "nil-store", "deref"}) {
		t.Errorf("drawn order %v, want check, nil-store, deref", got)
	}
	if tl.Recorded != "recorded run: nil-store → check → deref" {
		t.Errorf("recorded %q", tl.Recorded)
	}
	if !strings.Contains(tl.Caption, "the nil store between the check and the dereference") || !strings.Contains(tl.Caption, "the test failed") {
		t.Errorf("caption %q", tl.Caption)
	}
	if tl.Style != "forced" {
		t.Errorf("arrows of a confirmed finding in style %q, want forced", tl.Style)
	}
	f := fs[3]
	f.Status = finding.NotConfirmed
	if tl := buildTimeline(dir, f); tl.Style != "tried" || !strings.Contains(tl.Caption, "nothing failed") {
		t.Errorf("a forced order that confirmed nothing: style %q, caption %q", tl.Style, tl.Caption)
	}
	for _, e := range tl.Events {
		if e.Role == "check" && (e.FromSite || e.Where != "site 12") {
			t.Errorf("the check is drawn as %+v: want a helper event named by its site ID", e)
		}
		if e.Role == "deref" && e.Where != "p.go:9" {
			t.Errorf("the deref is at %q, want p.go:9", e.Where)
		}
	}
}

// TestTimelinePredicted checks a finding not validated: the order drawn
// is the one validation would force (the close before the send), though
// the run recorded the send first, and it says so.
func TestTimelinePredicted(t *testing.T) {
	dir, fs := fixture(t)
	tl := buildTimeline(dir, fs[1])
	if tl.Source != "predicted" || len(tl.Arrows) != 1 || !strings.HasPrefix(tl.Caption, "predicted, not forced: the close before the send") {
		t.Fatalf("source %q, %d arrows, caption %q", tl.Source, len(tl.Arrows), tl.Caption)
	}
	if got := order(tl); !slices.Equal(got, []string{"close", "send"}) {
		t.Errorf("drawn order %v, want close, send", got)
	}
}

// TestTimelineStatic checks a static finding: one lane per site, the two
// map accesses at once, and a note that nothing ran.
func TestTimelineStatic(t *testing.T) {
	dir, fs := fixture(t)
	tl := buildTimeline(dir, fs[0])
	if tl.Source != "static" || len(tl.Lanes) != 2 || len(tl.Bars) != 1 || len(tl.Events) != 2 || tl.Events[0].X != tl.Events[1].X {
		t.Fatalf("%+v: want two lanes with the accesses in one column, released together", tl)
	}
	if !strings.Contains(tl.Note, "nothing ran") {
		t.Errorf("note %q", tl.Note)
	}
}

// TestTimelineContradiction checks that an order against the goroutines'
// program order is not drawn as if it could happen.
func TestTimelineContradiction(t *testing.T) {
	dir, fs := fixture(t)
	f := fs[3]
	w := f.Witnesses[0]
	v := *f.Validation
	v.Order = &finding.Order{What: "nonsense", Edges: []finding.Edge{{Before: w.Events[0], After: w.Events[2]}}} // deref before check
	f.Validation = &v
	tl := buildTimeline(dir, f)
	if len(tl.Arrows) != 0 || !strings.Contains(tl.Note, "contradict") {
		t.Errorf("%d arrows, note %q: want none and a note", len(tl.Arrows), tl.Note)
	}
	if got := order(tl); !slices.Equal(got, []string{"nil-store", "check", "deref"}) {
		t.Errorf("drawn order %v, want the recorded one", got)
	}
}

// order returns the roles of a timeline's events from left to right.
func order(tl *timeline) []string {
	evs := slices.Clone(tl.Events)
	slices.SortStableFunc(evs, func(a, b tlEvent) int { return a.X - b.X })
	var out []string
	for _, e := range evs {
		out = append(out, e.Role)
	}
	return out
}

// TestSnippet checks the source context of sites, and what it says when
// the file is gone, shorter, newer than the run, or no longer holds the
// site's expression.
func TestSnippet(t *testing.T) {
	dir, _ := fixture(t)
	file := filepath.Join(dir, "p", "p.go")
	src := newSources(time.Now())
	sn := src.snippet(finding.Site{File: file, Line: 9, Col: 3, Role: "deref", Expr: "c.conn"})
	if sn.Problem != "" || len(sn.Lines) != 7 || sn.Lines[0].N != 6 {
		t.Fatalf("%+v: want lines 6 to 12 and no problem", sn)
	}
	hit := sn.Lines[3]
	if !hit.Hit || hit.N != 9 || hit.Caret != strings.Repeat(" ", 8)+"^" || hit.Text[8:14] != "c.conn" {
		t.Errorf("hit line %+v: want line 9 with a caret under c.conn (tabs as 4 spaces)", hit)
	}
	for _, tc := range []struct {
		site finding.Site
		want string
	}{
		{finding.Site{File: filepath.Join(dir, "gone.go"), Line: 1}, "the file is gone"},
		{finding.Site{File: file, Line: 99}, "the file has changed: it has 14 lines, the site is on line 99"},
		{finding.Site{File: file, Line: 4, Col: 2, Role: "nil-store", Expr: "s.other"}, "line 4 no longer holds s.other"},
		{finding.Site{File: file, Line: 4, Col: 2, Role: "panic", Expr: "runtime error: boom"}, ""},
	} {
		sn := src.snippet(tc.site)
		if tc.want == "" && sn.Problem != "" || !strings.Contains(sn.Problem, tc.want) {
			t.Errorf("%+v: problem %q, want %q", tc.site, sn.Problem, tc.want)
		}
	}
	if sn := newSources(time.Now().Add(-2 * time.Hour)).snippet(finding.Site{File: file, Line: 4, Role: "nil-store", Expr: "c.conn"}); !strings.Contains(sn.Problem, "changed since the run") {
		t.Errorf("a file modified after the run started: problem %q", sn.Problem)
	}
}

// TestHTML checks the page: findings by status, confirmed first and the
// rest in their order; the summary's counts; every text escaped, and no
// script.
func TestHTML(t *testing.T) {
	dir, fs := fixture(t)
	var b bytes.Buffer
	run := HTMLRun{Title: "precog test", Command: "precog test ./...", Dir: dir, Start: time.Now(), Elapsed: 3 * time.Second}
	if err := HTML(&b, run, fs); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	var statuses []string
	for _, m := range regexp.MustCompile(`<section class="finding" id="f\d+" data-status="([^"]+)" data-kind="([^"]+)"`).FindAllStringSubmatch(page, -1) {
		statuses = append(statuses, m[1]+" "+m[2])
	}
	want := []string{"confirmed crash", "confirmed con-null", "predicted con-closed", "static con-map"}
	if !slices.Equal(statuses, want) {
		t.Errorf("sections %v, want %v", statuses, want)
	}
	if strings.Contains(page, "<script") || !strings.Contains(page, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Errorf("the message is not escaped, or the page has a script")
	}
	if strings.Contains(page, "http://") && !strings.Contains(page, `xmlns="http://www.w3.org/2000/svg"`) || strings.Contains(page, "https://") {
		t.Errorf("the page names a network resource")
	}
	if !strings.Contains(page, "<b>2</b><span class=\"badge confirmed\">confirmed</span>") {
		t.Errorf("the summary does not count 2 confirmed findings")
	}
}

// TestHTMLInBrowser renders the page of the fixed findings in headless
// Chromium and checks what it shows: each finding's title, status and
// reproducer, a timeline with both goroutines' lanes, the stacks side by
// side, a race set apart in the closed section at the end, and a
// screenshot with the forced arrows' red and the sites' blue.
func TestHTMLInBrowser(t *testing.T) {
	bin := headless.Browser(t)
	dir, fs := fixture(t)
	fs = append(fs, apartRace(dir))
	page := filepath.Join(t.TempDir(), "report.html")
	if err := HTMLFile(page, HTMLRun{Title: "precog test", Dir: dir, Start: time.Now()}, fs); err != nil {
		t.Fatal(err)
	}
	if err := htmltest.Check(headless.DOM(t, bin, page), fs); err != nil {
		t.Error(err)
	}
	img := headless.Screenshot(t, bin, page, 1200, 1600, "")
	if b := img.Bounds(); b.Dx() != 1200 || b.Dy() != 1600 {
		t.Errorf("screenshot is %v, want 1200x1600", b)
	}
	if n := headless.Count(img, 0xcf222e); n < 200 {
		t.Errorf("screenshot: %d pixels of the confirmed red (badges, forced arrows), want at least 200", n)
	}
	if n := headless.Count(img, 0x0969da); n < 100 {
		t.Errorf("screenshot: %d pixels of the sites' blue, want at least 100", n)
	}
}

// BenchmarkHTML writes the report of 100 findings (the fixture's, 25
// times over), reading their one source file once.
func BenchmarkHTML(b *testing.B) {
	dir, fs := fixture(b)
	var many []finding.Finding
	for range 25 {
		many = append(many, fs...)
	}
	run := HTMLRun{Title: "precog test", Dir: dir, Start: time.Now()}
	var n int
	b.ReportAllocs()
	for b.Loop() {
		var buf bytes.Buffer
		if err := HTML(&buf, run, many); err != nil {
			b.Fatal(err)
		}
		n = buf.Len()
	}
	b.ReportMetric(float64(n)/float64(len(many)), "bytes/finding")
}

// TestHTMLFailureMessage: a failed test's message of many lines is in the
// headline by its first line and whole in a block of its own, once.
func TestHTMLFailureMessage(t *testing.T) {
	msg := "got:\n\tdigraph {\n\t}\nwant:\n\tdigraph {}"
	f := finding.Finding{Kind: finding.TestFailed, Status: finding.Confirmed, Message: "TestGraph failed: " + msg,
		Sites:      []finding.Site{{File: "/m/graph_test.go", Line: 152, Role: "fail", Expr: msg}},
		Validation: &finding.Validation{Effect: "test-failed", Reason: "happened in the recorded run: " + msg, Runs: 1, Failed: 1}}
	f.SetID()
	var b bytes.Buffer
	if err := HTML(&b, HTMLRun{Title: "precog test", Dir: "/m", Start: time.Now()}, []finding.Finding{f}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if !strings.Contains(page, `<span class="msg">TestGraph failed: got:</span>`) {
		t.Errorf("headline is not the message's first line")
	}
	if !strings.Contains(page, "<pre class=\"message\">got:\n\tdigraph {\n\t}\nwant:\n\tdigraph {}</pre>") {
		t.Errorf("no block with the whole message")
	}
	if strings.Count(page, "want:") != 1 {
		t.Errorf("the message is on the page %d times, want once", strings.Count(page, "want:"))
	}
}

// apartRace returns a data race into the fixture's file (dir's) that
// validation set apart: its forced runs touched different memory.
func apartRace(dir string) finding.Finding {
	file := filepath.Join(dir, "p", "p.go")
	const test = "example.com/p.TestReuse"
	write := finding.Event{Role: "write", G: 2, Site: 11, Kind: "Write", Index: 3}
	read := finding.Event{Role: "read", G: 1, Site: 12, Kind: "Read", Index: 5}
	f := finding.Finding{
		Kind: finding.Race, Status: finding.Apart,
		Message: "c.conn written in (*Client).close and read in (*Client).send, unordered",
		Sites: []finding.Site{
			{File: file, Line: 4, Col: 2, Role: "write", Expr: "c.conn", Function: "(*Client).close", ID: 11},
			{File: file, Line: 8, Col: 5, Role: "read", Expr: "c.conn", Function: "(*Client).send", ID: 12},
		},
		Tests:     []string{test},
		Witnesses: []finding.Witness{{Test: test, Events: []finding.Event{write, read}}},
		Validation: &finding.Validation{Test: test, Runs: 3,
			Reason: "with the write at p.go:4 right before the read at p.go:8, the accesses touched different memory: the write at p.go:4 at 0xc000010000, the read at p.go:8 at 0xc000038000",
			Order:  &finding.Order{What: "the write at p.go:4 right before the read at p.go:8", Edges: []finding.Edge{{Before: write, After: read}}}},
	}
	f.SetID()
	return f
}

// TestHTMLApart: a finding set apart is counted at the top, left out of
// the list of findings, and shown last, in a section closed until the
// reader opens it (TestHTMLInBrowser checks it in Chromium).
func TestHTMLApart(t *testing.T) {
	dir, fs := fixture(t)
	race := apartRace(dir)
	fs = append([]finding.Finding{race}, fs...)
	var b bytes.Buffer
	if err := HTML(&b, HTMLRun{Title: "precog test", Dir: dir, Start: time.Now()}, fs); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	var statuses []string
	for _, m := range regexp.MustCompile(`<section class="finding" id="f\d+" data-status="([^"]+)" data-kind="([^"]+)"`).FindAllStringSubmatch(page, -1) {
		statuses = append(statuses, m[1]+" "+m[2])
	}
	if want := []string{"confirmed crash", "confirmed con-null", "predicted con-closed", "static con-map", "apart race"}; !slices.Equal(statuses, want) {
		t.Errorf("sections %v, want %v", statuses, want)
	}
	details := strings.Index(page, `<details class="apart" id="apart"><summary><b>1 set apart</b>: data race whose forced runs`)
	if details < 0 || details > strings.Index(page, `data-status="apart"`) || strings.Contains(page, "<details class=\"apart\" id=\"apart\" open") {
		t.Errorf("the race set apart is not in a closed section of its own")
	}
	nav := page[strings.Index(page, "<nav>"):strings.Index(page, "</nav>")]
	if strings.Contains(nav, "apart") || strings.Count(nav, "<li>") != 4 {
		t.Errorf("the list at the top names the race set apart, or not the 4 others:\n%s", nav)
	}
	if !strings.Contains(page, `<b>1</b><span class="badge apart">apart</span>`) || !strings.Contains(page, `<b>5</b>findings`) {
		t.Errorf("the counts at the top leave out the race set apart")
	}
	if !strings.Contains(page, "(the order held, but the two accesses touched different memory)") {
		t.Errorf("the race's timeline caption does not say what the forced runs touched")
	}
	// Alone, it is not taken for no findings at all.
	b.Reset()
	if err := HTML(&b, HTMLRun{Title: "precog test", Dir: dir}, []finding.Finding{race}); err != nil {
		t.Fatal(err)
	}
	if p := b.String(); strings.Contains(p, "No findings.") || !strings.Contains(p, "No findings but those set apart, below.") {
		t.Errorf("a page of one race set apart says it has no findings")
	}
}
