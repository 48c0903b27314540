package coverage

import (
	"slices"
	"testing"
)

// TestNoteLimit checks that the tests whose pairing stopped at cfp's bound
// share one note, the first in full and the others by name, each once
// however many runs reached the bound, beside the notes of other kinds.
func TestNoteLimit(t *testing.T) {
	rep := &Report{Notes: []string{"p.TestA: damaged"}}
	rep.noteLimit("p.TestB", "stopped pairing after 9 comparisons (f and g)")
	rep.Notes = append(rep.Notes, "p.TestC: no coverage")
	rep.noteLimit("p.TestD", "stopped pairing after 9 comparisons (f and f)")
	rep.noteLimit("p.TestB", "stopped pairing after 9 comparisons (f and g)") // its second run
	rep.noteLimit("q.TestE", "stopped pairing after 9 comparisons (h and h)")
	rep.noteLimit("p.TestD", "stopped pairing after 9 comparisons (f and f)")
	want := []string{
		"p.TestA: damaged",
		"p.TestB: stopped pairing after 9 comparisons (f and g); so did 2 more tests: p.TestD, q.TestE",
		"p.TestC: no coverage",
	}
	if !slices.Equal(rep.Notes, want) {
		t.Errorf("notes:\n%q\nwant\n%q", rep.Notes, want)
	}
}
