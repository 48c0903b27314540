package expect

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/precog-dev/precog/detect/finding"
)

func TestParse(t *testing.T) {
	e, err := Parse([]byte(`# MySQL-1
runs 3 # per test
con-null mysql.go:72 mysql.go:61 mysql.go:72 confirmed
oscs a.go:1
`))
	if err != nil {
		t.Fatal(err)
	}
	if e.Runs != 3 || len(e.Findings) != 2 {
		t.Fatalf("Parse = %+v", e)
	}
	if got := e.Findings[0]; got.Kind != "con-null" || !slices.Equal(got.Sites, []string{"mysql.go:61", "mysql.go:72"}) || got.Line != 3 || got.Status != Confirmed {
		t.Errorf("first finding %+v", got)
	}
	for _, bad := range []struct{ text, err string }{
		{"runs 0", "not a positive number"},
		{"runs 1\nruns 2", "a second runs line"},
		{"con-bogus a.go:1", "unknown kind"},
		{"unicorn-p18 a.go:1", "unknown kind"},
		{"unicorn-p07 a.go:1", "unknown kind"},
		{"oscs", "has no sites"},
		{"oscs confirmed", "has no sites"},
		{"oscs maybe", "has no sites"},
		{"oscs a.go", "is not file:line"},
		{"oscs a.go:0", "is not file:line"},
		{"oscs a.go:1 b.go:2\noscs b.go:2 a.go:1", "the finding of line 1 again"},
	} {
		if _, err := Parse([]byte(bad.text)); err == nil || !strings.Contains(err.Error(), bad.err) {
			t.Errorf("Parse(%q) = %v, want %q", bad.text, err, bad.err)
		}
	}
}

func TestCompare(t *testing.T) {
	e, err := Parse([]byte("con-null m.go:61 m.go:72 confirmed\noscs m.go:5 m.go:9\n"))
	if err != nil {
		t.Fatal(err)
	}
	site := func(file string, line int) finding.Site { return finding.Site{File: file, Line: line} }
	reported := []finding.Finding{
		{Kind: "con-null", Sites: []finding.Site{site("/k/mysql/m.go", 72), site("/k/mysql/m.go", 61)}, Tests: []string{"x/mysql.TestA"}},
		{Kind: "con-map", Sites: []finding.Site{site("/k/mysql/m.go", 1), site("/k/other/o.go", 2)}, Tests: []string{"x/mysql.TestB"}},
		{Kind: "oscs", Sites: []finding.Site{site("/k/mysql/m.go", 5), site("/k/mysql/m.go", 9)}, Tests: []string{"x/mysql2.TestA"}},
	}
	r := Compare(e, "/k/mysql", "x/mysql", reported)
	if len(r.Missing) != 1 || r.Missing[0].Kind != "oscs" ||
		!slices.Equal(r.Extra, []string{"con-map /k/other/o.go:2 m.go:1"}) ||
		len(r.WrongStatus) != 1 || r.WrongStatus[0].Want.Kind != "con-null" {
		t.Errorf("Compare = %+v", r)
	}
	reported[0].Status = finding.Confirmed
	if r := Compare(e, "/k/mysql", "x/mysql", reported); len(r.WrongStatus) != 0 {
		t.Errorf("Compare with the con-null confirmed = %+v", r)
	}
	// An "apart" line wants that status; "predicted" takes it too.
	for _, tc := range []struct {
		line   string
		status finding.Status
		wrong  bool
	}{
		{"con-null m.go:61 m.go:72 apart", finding.Apart, false},
		{"con-null m.go:61 m.go:72 apart", finding.NotConfirmed, true},
		{"con-null m.go:61 m.go:72 predicted", finding.Apart, false},
		{"con-null m.go:61 m.go:72 confirmed", finding.Apart, true},
	} {
		e, err := Parse([]byte(tc.line))
		if err != nil {
			t.Fatal(err)
		}
		reported[0].Status = tc.status
		if r := Compare(e, "/k/mysql", "x/mysql", reported[:1]); (len(r.WrongStatus) > 0) != tc.wrong {
			t.Errorf("%q, reported %s: wrong status %v, want %v", tc.line, tc.status, len(r.WrongStatus) > 0, tc.wrong)
		}
	}
	// A "sometimes" line is neither missing when not reported nor extra
	// when reported, whatever its status.
	e, err = Parse([]byte("con-null m.go:61 m.go:72 sometimes\n"))
	if err != nil {
		t.Fatal(err)
	}
	if r := Compare(e, "/k/mysql", "x/mysql", reported[:1]); len(r.Missing)+len(r.Extra)+len(r.WrongStatus) != 0 {
		t.Errorf("Compare with a sometimes finding reported = %+v", r)
	}
	if r := Compare(e, "/k/mysql", "x/mysql", nil); len(r.Missing)+len(r.Extra)+len(r.WrongStatus) != 0 {
		t.Errorf("Compare with no sometimes finding reported = %+v", r)
	}
}

func TestParseExplain(t *testing.T) {
	x, err := ParseExplain([]byte(`# Fig. 4
test TestFig4 # the only one
failing natural
root race ./fig4.go:20 fig4.go:20 # two goroutines, one line
timeout 5s
`))
	if err != nil {
		t.Fatal(err)
	}
	if x.Test != "TestFig4" || x.Failing != Natural || x.Kind != Race || !slices.Equal(x.Sites, []string{"fig4.go:20", "fig4.go:20"}) || x.Timeout != 5*time.Second {
		t.Fatalf("ParseExplain = %+v", x)
	}
	for _, bad := range []struct{ text, err string }{
		{"failing natural\nroot none", "no test line"},
		{"test TestA\nroot none", "no failing line"},
		{"test TestA\nfailing natural", "no root line"},
		{"test TestA\ntest TestB", "a second test line"},
		{"test A", "want test TestName"},
		{"failing sometimes", "want failing natural or failing predicted"},
		{"root bogus a.go:1", "unknown root kind"},
		{"root race a.go:1", "wants 2 sites, has 1"},
		{"root race a.go:1 a.go:2 a.go:3 a.go:4", "wants 3 sites, has 4"},
		{"root order a.go:1 a.go:2 a.go:3 a.go:4", "wants 3 sites, has 4"},
		{"root atomicity a.go:1", "wants 2 sites, has 1"},
		{"root atomicity a.go:1 a.go:2 a.go:3 a.go:4", "wants 3 sites, has 4"},
		{"root definition a.go:1 a.go:2", "wants 1 sites, has 2"},
		{"root none a.go:1", "wants 0 sites, has 1"},
		{"root definition a.go", "is not file:line"},
		{"runs 3", "unknown item"},
		{"timeout -1s", "want timeout D"},
		{"timeout 5s\ntimeout 6s", "a second timeout line"},
	} {
		if _, err := ParseExplain([]byte(bad.text)); err == nil || !strings.Contains(err.Error(), bad.err) {
			t.Errorf("ParseExplain(%q) = %v, want %q", bad.text, err, bad.err)
		}
	}
}

func TestReadExplain(t *testing.T) {
	path := filepath.Join(t.TempDir(), "explain")
	if err := os.WriteFile(path, []byte("test TestA\nfailing predicted\nroot definition a.go:7\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	x, err := ReadExplain(path)
	if err != nil || x.Failing != PredictedFailure || x.Kind != Definition || !slices.Equal(x.Sites, []string{"a.go:7"}) {
		t.Errorf("ReadExplain = %+v, %v", x, err)
	}
	if err := os.WriteFile(path, []byte("test TestA\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadExplain(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("ReadExplain of a bad file = %v, want an error naming it", err)
	}
}

func TestExplainCheck(t *testing.T) {
	dir := "/k/fig4"
	at := func(file string, line int) SiteRef { return SiteRef{File: filepath.Join(dir, file), Line: line} }
	ptr := func(s SiteRef) *SiteRef { return &s }
	race := Explain{Test: "TestA", Failing: Natural, Kind: Race, Sites: []string{"a.go:2", "a.go:9"}}
	atom := Explain{Kind: Atomicity, Sites: []string{"a.go:7", "a.go:3", "a.go:9"}}
	race3 := Explain{Kind: Race, Sites: []string{"a.go:2", "a.go:2", "a.go:1"}}
	order3 := Explain{Kind: Order, Sites: []string{"a.go:7", "a.go:3", "a.go:9"}}
	for _, c := range []struct {
		x     Explain
		kind  string
		root  *SiteRef
		sites []SiteRef
		err   string // "" for agreement
	}{
		{race, Race, ptr(at("a.go", 2)), []SiteRef{at("a.go", 9), at("a.go", 2)}, ""},
		{race, Race, ptr(at("a.go", 2)), []SiteRef{at("a.go", 2), at("a.go", 9), at("a.go", 2)}, ""},
		{race, Atomicity, ptr(at("a.go", 2)), []SiteRef{at("a.go", 2), at("a.go", 9)}, "kind atomicity, want race"},
		{race, Race, ptr(at("a.go", 9)), []SiteRef{at("a.go", 2), at("a.go", 9)}, "root site a.go:9, want a.go:2"},
		{race, Race, ptr(at("a.go", 2)), []SiteRef{at("a.go", 2), at("b.go", 9)}, "sites b.go:9 beside the root, want a.go:9"},
		{race, Race, ptr(SiteRef{File: "/elsewhere/a.go", Line: 2}), nil, "root site /elsewhere/a.go:2"},
		{race, Race, nil, nil, "no root site"},
		{Explain{Kind: Race, Sites: []string{"a.go:2", "a.go:2"}}, Race, ptr(at("a.go", 2)), []SiteRef{at("a.go", 2), at("a.go", 2)}, ""},
		{Explain{Kind: Race, Sites: []string{"a.go:2", "a.go:2"}}, Race, ptr(at("a.go", 2)), []SiteRef{at("a.go", 2)}, ""},
		{Explain{Kind: Race, Sites: []string{"a.go:2", "a.go:2"}}, Race, ptr(at("a.go", 2)), []SiteRef{at("a.go", 2), at("a.go", 1)}, "sites a.go:1 a.go:2 beside the root, want a.go:2"},
		{race3, Race, ptr(at("a.go", 2)), []SiteRef{at("a.go", 2), at("a.go", 2)}, ""},
		{race3, Race, ptr(at("a.go", 2)), []SiteRef{at("a.go", 2), at("a.go", 1)}, ""},
		{race3, Race, ptr(at("a.go", 2)), []SiteRef{at("a.go", 2), at("a.go", 5)}, "sites a.go:2 a.go:5 beside the root, want a.go:1 or a.go:2"},
		{Explain{Kind: Definition, Sites: []string{"a.go:5"}}, Definition, ptr(at("a.go", 5)), nil, ""},
		{atom, Atomicity, ptr(at("a.go", 7)), []SiteRef{at("a.go", 7), at("a.go", 9)}, ""},
		{atom, Atomicity, ptr(at("a.go", 7)), []SiteRef{at("a.go", 3), at("a.go", 7)}, ""},
		{atom, Atomicity, ptr(at("a.go", 7)), []SiteRef{at("a.go", 3), at("a.go", 7), at("a.go", 9)}, ""},
		{atom, Atomicity, ptr(at("a.go", 7)), []SiteRef{at("a.go", 7)}, "sites  beside the root, want a.go:3 or a.go:9"},
		{atom, Atomicity, ptr(at("a.go", 7)), []SiteRef{at("a.go", 7), at("a.go", 8)}, "sites a.go:8 beside the root"},
		{atom, Atomicity, ptr(at("a.go", 3)), []SiteRef{at("a.go", 3), at("a.go", 7)}, "root site a.go:3, want a.go:7"},
		{order3, Order, ptr(at("a.go", 7)), []SiteRef{at("a.go", 7), at("a.go", 3)}, ""},
		{order3, Order, ptr(at("a.go", 7)), []SiteRef{at("a.go", 7), at("a.go", 4)}, "sites a.go:4 beside the root"},
		{Explain{Kind: Order, Sites: []string{"a.go:7", "a.go:3"}}, Order, ptr(at("a.go", 7)), []SiteRef{at("a.go", 7), at("a.go", 3), at("a.go", 9)}, "sites a.go:3 a.go:9 beside the root, want a.go:3"},
		{Explain{Kind: Definition, Sites: []string{"a.go:5"}}, Definition, ptr(at("a.go", 6)), nil, "root site a.go:6"},
		{Explain{Kind: None}, None, nil, nil, ""},
		{Explain{Kind: None}, None, ptr(at("a.go", 6)), nil, "root cause a.go:6 reported, want none"},
		{Explain{Kind: None}, Definition, ptr(at("a.go", 6)), nil, "kind definition, want none"},
	} {
		err := c.x.Check(dir, c.kind, c.root, c.sites)
		if (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("%+v.Check(%s, %v, %v) = %v, want %q", c.x, c.kind, c.root, c.sites, err, c.err)
		}
	}
}
