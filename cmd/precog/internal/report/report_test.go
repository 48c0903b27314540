package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/internal/sarif/sariftest"
)

// sample is a finding with every part the output shows.
func sample(dir string) finding.Finding {
	f := finding.Finding{
		Kind:    "con-null",
		Status:  finding.Predicted,
		Message: "nil stored to thd.procInfo may be dereferenced concurrently by (*Thread).show",
		Sites: []finding.Site{
			{File: filepath.Join(dir, "p", "p.go"), Line: 70, Col: 5, Role: "deref", Expr: "thd.procInfo", Function: "(*Thread).show"},
			{File: filepath.Join(dir, "p", "p.go"), Line: 61, Col: 2, Role: "nil-store", Expr: "thd.procInfo = nil"},
		},
		Spawns: []finding.Site{
			{File: filepath.Join(dir, "p", "p_test.go"), Line: 12, Col: 2, Role: "go", Expr: "go thd.show()"},
			{},
		},
		Evidence: finding.Evidence{
			Locks:  [][]string{{"mu@p.go:69"}, nil},
			Clocks: []string{"g1:4 g2:7", "g1:5 g2:2"},
			Notes:  []string{"the read did not observe nil in the recorded run"},
		},
		Tests:   []string{"example.com/p.TestA", "example.com/p.TestB"},
		Reports: 2,
	}
	f.SetID()
	return f
}

func TestText(t *testing.T) {
	dir := filepath.FromSlash("/src/mod")
	f := sample(dir)
	var b bytes.Buffer
	if err := Text(&b, dir, []finding.Finding{f}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	want := []string{
		filepath.FromSlash("p/p.go") + ":70:5: con-null: " + f.Message,
		"\t" + filepath.FromSlash("p/p_test.go") + ":12:2: go statement starts the goroutine of the deref",
		"\t" + filepath.FromSlash("p/p.go") + ":70:5: deref thd.procInfo in (*Thread).show (holding mu@p.go:69; clock g1:4 g2:7)",
		"\t" + filepath.FromSlash("p/p.go") + ":61:2: nil-store thd.procInfo = nil (no lock held; clock g1:5 g2:2)",
		"\tnote: the read did not observe nil in the recorded run",
		"\ttests: example.com/p.TestA example.com/p.TestB",
		"\tid " + f.ID + ", predicted",
	}
	if len(lines) != len(want) {
		t.Fatalf("got %d lines, want %d:\n%s", len(lines), len(want), b.String())
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("line %d:\n got %q\nwant %q", i, lines[i], want[i])
		}
	}
}

// TestTextSameSite: two con-null findings at one dereference, with nil
// stores in two places, are one block, headed by the confirmed one, with
// a line for the other; JSON keeps both whole and names the head in the
// other's sameAs. Controls: a con-index at the same position is a block
// of its own, and no finding alone names a head. The other's line names
// its status as its own block would ("predicted only, not confirmed").
func TestTextSameSite(t *testing.T) {
	dir := filepath.FromSlash("/src/mod")
	f := sample(dir)
	f.Status, f.Validation = finding.NotConfirmed, &finding.Validation{}
	g := sample(dir)
	g.Sites[1] = finding.Site{File: filepath.Join(dir, "p", "q.go"), Line: 9, Col: 3, Role: "nil-store", Expr: "thd.procInfo = nil", Function: "reset"}
	g.Status, g.Repro = finding.Confirmed, "precog repro g"
	g.Validation = &finding.Validation{Effect: "panic", Test: "example.com/p.TestA"}
	g.SetID()
	h := sample(dir)
	h.Kind = "con-index"
	h.SetID()
	var b bytes.Buffer
	if err := Text(&b, dir, []finding.Finding{f, g, h}); err != nil {
		t.Fatal(err)
	}
	var heads []string
	for line := range strings.Lines(b.String()) {
		if !strings.HasPrefix(line, "\t") {
			heads = append(heads, line)
		}
	}
	if len(heads) != 2 || !strings.Contains(heads[0], "con-null") || !strings.Contains(heads[1], "con-index") {
		t.Fatalf("blocks headed %q, want the con-null's and the con-index's:\n%s", heads, b.String())
	}
	also := "\talso at this site, with " + filepath.FromSlash("p/p.go") + ":61:2: nil-store thd.procInfo = nil; tests: example.com/p.TestA example.com/p.TestB; id " + f.ID + ", predicted only, not confirmed\n"
	block := b.String()[:strings.Index(b.String(), heads[1])]
	if !strings.Contains(block, "\tid "+g.ID+", confirmed (panic") || !strings.HasSuffix(block, also) {
		t.Errorf("the con-null block, want it headed by %s (confirmed) and ending in %q:\n%s", g.ID, also, block)
	}
	// A store of the head's statement at another column joins the block,
	// its line naming its own position.
	i := sample(dir)
	i.Sites[0].Col, i.Sites[0].Expr = 9, "b[i+1]"
	i.SetID()
	b.Reset()
	if err := Text(&b, dir, []finding.Finding{f, g, h, i}); err != nil {
		t.Fatal(err)
	}
	if want := "\talso at this site, with " + filepath.FromSlash("p/p.go") + ":70:9: deref b[i+1]"; !strings.Contains(b.String(), want) || strings.Count(b.String(), "con-null:") != 1 {
		t.Errorf("a store at another column of the head's line: want one con-null block with a line containing %q:\n%s", want, b.String())
	}
	b.Reset()
	if err := JSON(&b, []finding.Finding{f, g, h}); err != nil {
		t.Fatal(err)
	}
	var sameAs []string
	for line := range strings.Lines(b.String()) {
		var d struct{ SameAs string }
		if err := json.Unmarshal([]byte(line), &d); err != nil {
			t.Fatal(err)
		}
		sameAs = append(sameAs, d.SameAs)
	}
	if want := []string{g.ID, "", ""}; !slices.Equal(sameAs, want) {
		t.Errorf("sameAs %q, want %q", sameAs, want)
	}
}

func TestJSON(t *testing.T) {
	dir := filepath.FromSlash("/src/mod")
	f := sample(dir)
	var b bytes.Buffer
	if err := JSON(&b, []finding.Finding{f, f}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines, want one per finding:\n%s", len(lines), b.String())
	}
	var got struct {
		ID     string `json:"id"`
		Kind   string `json:"kind"`
		Status string `json:"status"`
		Sites  []struct {
			File       string `json:"file"`
			Line, Col  int
			Role, Expr string
		} `json:"sites"`
		Tests []string `json:"tests"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &got); err != nil {
		t.Fatal(err)
	}
	if got.ID != f.ID || got.Kind != "con-null" || got.Status != "predicted" || len(got.Tests) != 2 || len(got.Sites) != 2 {
		t.Errorf("decoded %+v", got)
	}
	if s := got.Sites[1]; s.File != f.Sites[1].File || s.Line != 61 || s.Col != 2 || s.Role != "nil-store" || s.Expr != "thd.procInfo = nil" {
		t.Errorf("site %+v, want %+v", s, f.Sites[1])
	}
	// A finding without tests still has the field.
	b.Reset()
	JSON(&b, []finding.Finding{{ID: "x", Kind: "oscs"}})
	if !strings.Contains(b.String(), `"tests":[]`) {
		t.Errorf("no tests field: %s", b.String())
	}
}

func TestSARIF(t *testing.T) {
	dir := t.TempDir()
	f := sample(dir)
	u := finding.Finding{Kind: "unicorn-p9", Status: finding.Predicted, Message: "m", Sites: []finding.Site{{File: "/elsewhere/x.go", Line: 3, Col: 1, Role: "read"}}}
	u.SetID()
	var b bytes.Buffer
	if err := SARIF(dir, KindRules(finding.RuntimeKinds()), []finding.Finding{f, u}, []string{"internal error: oscs panicked on p.TestA: boom\n\tstack"}).Write(&b); err != nil {
		t.Fatal(err)
	}
	if err := sariftest.Validate(b.Bytes()); err != nil {
		t.Fatalf("invalid SARIF: %v\n%s", err, b.String())
	}
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID              string
				Locations           []any
				RelatedLocations    []any
				PartialFingerprints map[string]string
			}
		}
	}
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	rs := log.Runs[0].Results
	if len(rs) != 2 || rs[0].RuleID != "con-null" || len(rs[0].Locations) != 1 || len(rs[0].RelatedLocations) != 2 || rs[1].RuleID != "unicorn-p9" {
		t.Errorf("results %+v", rs)
	}
	if len(rs) == 2 && (rs[0].PartialFingerprints["precogId/v1"] != f.ID || rs[1].PartialFingerprints["precogId/v1"] != u.ID) {
		t.Errorf("partial fingerprints %v %v, want the ids %s %s", rs[0].PartialFingerprints, rs[1].PartialFingerprints, f.ID, u.ID)
	}
	if !strings.Contains(b.String(), `"executionSuccessful": false`) || !strings.Contains(b.String(), "oscs panicked") {
		t.Errorf("internal error not a failed invocation's notification:\n%s", b.String())
	}
	if !strings.Contains(b.String(), `"uri": "p/p.go"`) || !strings.Contains(b.String(), `"uri": "file:///elsewhere/x.go"`) {
		t.Errorf("files not relative to %%SRCROOT%% or absolute:\n%s", b.String())
	}
}

// TestShortClock: a clock of a test with many goroutines is cut to its
// first six and last two components in the text report.
func TestShortClock(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"g0:1", "g0:1"},
		{"g0:1 g1:2 g2:3 g3:4 g4:5 g5:6 g6:7 g7:8", "g0:1 g1:2 g2:3 g3:4 g4:5 g5:6 g6:7 g7:8"},
		{"g0:1 g1:2 g2:3 g3:4 g4:5 g5:6 g6:7 g7:8 g8:9 g9:10 g10:11", "g0:1 g1:2 g2:3 g3:4 g4:5 g5:6 … 3 more … g9:10 g10:11"},
	} {
		if got := shortClock(tc.in); got != tc.want {
			t.Errorf("shortClock(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestTextFailure: a failed test's message is shown once, in the headline
// and below the site, bounded; the status line does not repeat it. A
// testify assertion's headline is its Error line.
func TestTextFailure(t *testing.T) {
	dir := filepath.FromSlash("/src/mod")
	long := "missing: [" + strings.Repeat("004f757d-0f1b-4574-bfc9-aa9193cf0951 ", 90) + "]"
	var diff []string
	for i := range 20 {
		diff = append(diff, fmt.Sprintf("\tline %d", i))
	}
	multi := "got:\n" + strings.Join(diff, "\n")
	// testify's assert.Equal: the message starts on the line below.
	testify := "\n\tError Trace:\t/src/mod/x_test.go:7\n\tError:      \tNot equal: \n\t            \texpected: 1\n\t            \tactual  : 2\n\tTest:       \tTestX"
	mk := func(kind, msg, reason string) finding.Finding {
		f := finding.Finding{Kind: kind, Status: finding.Confirmed, Message: "TestX failed: " + msg,
			Sites:      []finding.Site{{File: filepath.Join(dir, "x_test.go"), Line: 7, Role: "fail", Expr: msg}},
			Tests:      []string{"example.com/p.TestX"},
			Validation: &finding.Validation{Effect: "test-failed", Test: "example.com/p.TestX", Reason: reason}}
		f.SetID()
		return f
	}
	for _, tc := range []struct {
		f    finding.Finding
		want []string
	}{
		{mk(finding.TestFailed, "count = 6, want 3", "happened in the recorded run: count = 6, want 3"), []string{
			"x_test.go:7: test-failed: TestX failed: count = 6, want 3",
			"\tx_test.go:7: fail",
			"\ttests: example.com/p.TestX",
			"\tid ID, confirmed (test-failed, in example.com/p.TestX): happened in the recorded run",
		}},
		{mk(finding.TestFailed, long, "happened in the recorded run: "+long), []string{
			"x_test.go:7: test-failed: " + ("TestX failed: " + long)[:200] + fmt.Sprintf("… (%d more bytes; -json and -html show the whole message)", len(long)+14-200),
			"\tx_test.go:7: fail",
			"\ttests: example.com/p.TestX",
			"\tid ID, confirmed (test-failed, in example.com/p.TestX): happened in the recorded run",
		}},
		{mk(finding.TestFailed, multi, "happened in CFP's cheap run (the recorded run passed): "+multi), append(append([]string{
			"x_test.go:7: test-failed: TestX failed: got:",
			"\tx_test.go:7: fail",
		}, func() (l []string) {
			for _, d := range diff[:12] {
				l = append(l, "\t    "+d)
			}
			return l
		}()...),
			"\t    … 8 more lines (-json and -html show the whole message)",
			"\ttests: example.com/p.TestX",
			"\tid ID, confirmed (test-failed, in example.com/p.TestX): happened in CFP's cheap run (the recorded run passed)",
		)},
		{mk(finding.TestFailed, testify, "happened in the recorded run: "+testify), []string{
			"x_test.go:7: test-failed: TestX failed: Not equal:",
			"\tx_test.go:7: fail",
			"\t    \tError Trace:\tx_test.go:7",
			"\t    \t            \texpected: 1",
			"\t    \t            \tactual  : 2",
			"\t    \tTest:       \tTestX",
			"\ttests: example.com/p.TestX",
			"\tid ID, confirmed (test-failed, in example.com/p.TestX): happened in the recorded run",
		}},
		{mk(finding.Crash, "boom", "happened in the recorded run: panic: boom"), []string{
			"x_test.go:7: crash: TestX failed: boom",
			"\tx_test.go:7: fail",
			"\ttests: example.com/p.TestX",
			"\tid ID, confirmed (test-failed, in example.com/p.TestX): happened in the recorded run",
		}},
	} {
		var b bytes.Buffer
		if err := Text(&b, dir, []finding.Finding{tc.f}); err != nil {
			t.Fatal(err)
		}
		got := strings.ReplaceAll(strings.TrimSuffix(b.String(), "\n"), tc.f.ID, "ID")
		if want := strings.Join(tc.want, "\n"); got != want {
			t.Errorf("got\n%s\nwant\n%s", got, want)
		}
	}
}

func TestClipLine(t *testing.T) {
	s := strings.Repeat("a", maxWidth-1) + "é" + "b"
	got := clipLine(s)
	if !strings.HasPrefix(got, strings.Repeat("a", maxWidth-1)+"…") || !strings.Contains(got, "(3 more bytes") {
		t.Errorf("clipLine cut a rune or miscounted: %q", got)
	}
	if clipLine("short") != "short" {
		t.Error("clipLine changed a short line")
	}
}

// TestRelPaths: paths under the directory become relative where a path
// starts; a path that merely contains the directory's, and paths outside
// it, stay whole.
func TestRelPaths(t *testing.T) {
	dir := filepath.FromSlash("/src/mod")
	for in, want := range map[string]string{
		"\tError Trace:\t/src/mod/x_test.go:7":               "\tError Trace:\tx_test.go:7",
		"at /src/mod/a/b.go:3 and (/src/mod/c.go:4)":         "at a/b.go:3 and (c.go:4)",
		"/src/mod/x.go:1":                                    "x.go:1",
		"/x/src/mod/y.go:1 /src/module/z.go:2 /elsewhere.go": "/x/src/mod/y.go:1 /src/module/z.go:2 /elsewhere.go",
	} {
		if got := relPaths(dir, filepath.FromSlash(in)); got != filepath.FromSlash(want) {
			t.Errorf("relPaths(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestApartOutput: a data race set apart (its forced runs touched
// different memory) comes last in the text, its status line saying so
// with the reason; Apart splits it off; SARIF keeps it, under its ID, at
// level note, the others at error.
func TestApartOutput(t *testing.T) {
	dir := t.TempDir()
	f := sample(dir)
	race := finding.Finding{Kind: finding.Race, Status: finding.Apart, Message: "x.n written and read unordered",
		Sites: []finding.Site{
			{File: filepath.Join(dir, "p", "p.go"), Line: 10, Col: 2, Role: "write", Expr: "x.n"},
			{File: filepath.Join(dir, "p", "p.go"), Line: 20, Col: 9, Role: "read", Expr: "x.n"},
		},
		Validation: &finding.Validation{Runs: 3, Reason: "with the write right before the read, the accesses touched different memory: the write at p.go:10 at 0xc000010000, the read at p.go:20 at 0xc000038000"}}
	race.SetID()
	fs := []finding.Finding{race, f}
	shown, apart := Apart(fs)
	if len(shown) != 1 || shown[0].ID != f.ID || len(apart) != 1 || apart[0].ID != race.ID {
		t.Errorf("Apart = %d shown, %d apart; want the con-null shown and the race apart", len(shown), len(apart))
	}
	var b bytes.Buffer
	if err := Text(&b, dir, fs); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	if i, j := strings.Index(text, "con-null: "), strings.Index(text, "race: "); i < 0 || j < i {
		t.Errorf("the race set apart is not last:\n%s", text)
	}
	if want := "\tid " + race.ID + ", predicted only, set apart: with the write right before the read, the accesses touched different memory: "; !strings.Contains(text, want) {
		t.Errorf("no status line %q in:\n%s", want, text)
	}
	b.Reset()
	if err := SARIF(dir, KindRules(finding.RuntimeKinds()), fs, nil).Write(&b); err != nil {
		t.Fatal(err)
	}
	if err := sariftest.Validate(b.Bytes()); err != nil {
		t.Fatalf("invalid SARIF: %v", err)
	}
	var log struct {
		Runs []struct {
			Results []struct {
				Level               string
				Message             struct{ Text string }
				PartialFingerprints map[string]string
			}
		}
	}
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range log.Runs[0].Results {
		got = append(got, r.PartialFingerprints["precogId/v1"]+" "+r.Level)
	}
	if want := []string{race.ID + " note", f.ID + " error"}; !slices.Equal(got, want) {
		t.Errorf("SARIF results %v, want %v", got, want)
	}
	if m := log.Runs[0].Results[0].Message.Text; !strings.Contains(m, "(apart, id "+race.ID+")") {
		t.Errorf("SARIF message %q does not say apart", m)
	}
}
