package expect

import (
	"slices"
	"strings"
	"testing"

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
}
