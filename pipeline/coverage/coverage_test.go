package coverage

import (
	"errors"
	"io/fs"
	"slices"
	"testing"
	"time"

	"github.com/precog-dev/precog/pipeline/record"
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

// TestMeasureLimit checks Options.MeasureLimit: once it has passed, the
// tests left are not measured, have no coverage (so guided detection
// records them in full) and share one note; without a limit, the same
// tests go on to be read (the control: their traces are missing, each
// with a note of its own).
func TestMeasureLimit(t *testing.T) {
	ix := &record.Index{Packages: []*record.Package{{ImportPath: "p", Dir: t.TempDir(), Tests: []*record.Test{
		{Name: "TestA", Outcome: record.Pass, Broken: "no trace"},
		{Name: "TestB", Outcome: record.Pass, Broken: "no trace"},
	}}}}
	rep := &Report{}
	if err := rep.add(t.Context(), t.TempDir(), ix, 0, map[string]*Package{}, Options{MeasureLimit: time.Nanosecond}); err != nil {
		t.Fatal(err)
	}
	want := []string{"measuring the function pairs stopped after 1ns with 2 of the 2 tests not measured; they have no coverage and are detected in full"}
	if !slices.Equal(rep.Notes, want) {
		t.Errorf("notes:\n%q\nwant\n%q", rep.Notes, want)
	}
	for _, tt := range rep.Packages[0].Tests {
		if tt.Skipped == "" || len(tt.Runs) != 1 || tt.Runs[0] != nil {
			t.Errorf("%s: skipped %q, runs %v; want no coverage", tt.Name, tt.Skipped, tt.Runs)
		}
	}

	rep = &Report{}
	if err := rep.add(t.Context(), t.TempDir(), ix, 0, map[string]*Package{}, Options{}); err != nil {
		t.Fatal(err)
	}
	want = []string{"p.TestA: no trace; no coverage", "p.TestB: no trace; no coverage"}
	if !slices.Equal(rep.Notes, want) {
		t.Errorf("without a limit, notes:\n%q\nwant\n%q", rep.Notes, want)
	}
}

// TestMaxEvents checks Options.MaxEvents: a run with more events than the
// bound is not read (its trace file does not exist here) and has no
// coverage; without the bound the same run is read, and its missing file
// is the error.
func TestMaxEvents(t *testing.T) {
	ix := &record.Index{Packages: []*record.Package{{ImportPath: "p", Dir: t.TempDir(), Tests: []*record.Test{
		{Name: "TestBig", Outcome: record.Pass, Trace: "big.trace", Events: 6_000_001},
	}}}}
	rep := &Report{}
	if err := rep.add(t.Context(), t.TempDir(), ix, 0, map[string]*Package{}, Options{MaxEvents: 6_000_000}); err != nil {
		t.Fatal(err)
	}
	want := []string{"p.TestBig: 6000001 events, over the 6000000 that CFP measures whole (about 0.92 GiB of memory); no coverage"}
	if !slices.Equal(rep.Notes, want) {
		t.Errorf("notes:\n%q\nwant\n%q", rep.Notes, want)
	}
	if tt := rep.Packages[0].Tests[0]; tt.Skipped == "" || len(tt.Runs) != 1 || tt.Runs[0] != nil {
		t.Errorf("skipped %q, runs %v; want no coverage", tt.Skipped, tt.Runs)
	}
	rep = &Report{}
	if err := rep.add(t.Context(), t.TempDir(), ix, 0, map[string]*Package{}, Options{MaxEvents: -1}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("without the bound: error %v, want the trace read (and missing)", err)
	}
}
