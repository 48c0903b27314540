package plan

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestWireNames pins the JSON names that the shim and drivers of other
// versions read: the plan of the package doc's example decodes to the
// plan it describes, and a record encodes to the documented line.
func TestWireNames(t *testing.T) {
	const example = `{"mode": "force", "result": "/tmp/r.jsonl", "timeout_ms": 1000,
	 "edges": [
	   {"before": {"g": 7, "site": 12, "n": 0}, "after": {"g": 9, "site": 30, "n": 0}},
	   {"before": {"g": 9, "site": 30, "n": 0}, "after": {"g": 7, "site": 13, "n": 0}}],
	 "selects": [{"g": 7, "site": 14, "n": 2, "case": -1}]}`
	var got Plan
	if err := json.Unmarshal([]byte(example), &got); err != nil {
		t.Fatal(err)
	}
	want := Plan{Mode: Force, Result: "/tmp/r.jsonl", TimeoutMS: 1000,
		Edges: []Edge{
			{Before: Point{G: 7, Site: 12}, After: Point{G: 9, Site: 30}},
			{Before: Point{G: 9, Site: 30}, After: Point{G: 7, Site: 13}},
		},
		Selects: []Select{{Point: Point{G: 7, Site: 14, N: 2}, Case: -1}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the example decodes to %+v, want %+v", got, want)
	}

	forced, took := 1, 0
	rec := Record{Event: EvSelect, T: 5, Point: &Point{G: 7, Site: 14, N: 2, Kind: "Select"}, Case: &forced, Took: &took}
	line, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	const wantLine = `{"event":"select","t_us":5,"point":{"g":7,"site":14,"n":2,"kind":"Select"},"case":1,"took":0}`
	if string(line) != wantLine {
		t.Errorf("record line\n%s\nwant\n%s", line, wantLine)
	}
}

// TestGodebug: tracebackancestors only for a binary with marks, the
// user's settings after it, which win; without marks the user's alone.
func TestGodebug(t *testing.T) {
	for _, c := range []struct {
		user  string
		marks bool
		want  string
	}{
		{"", true, "tracebackancestors=5"},
		{"gctrace=1", true, "tracebackancestors=5,gctrace=1"},
		{"", false, ""},
		{"gctrace=1", false, "gctrace=1"},
	} {
		if got := Godebug(c.user, c.marks); got != c.want {
			t.Errorf("Godebug(%q, %v) = %q, want %q", c.user, c.marks, got, c.want)
		}
	}
}
