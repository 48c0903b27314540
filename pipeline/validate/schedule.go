package validate

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/shim/plan"
	"github.com/precog-dev/precog/shim/trace"

	"github.com/precog-dev/precog/internal/atomicfile"
)

// ScheduleVersion is the version of the schedule file's layout.
const ScheduleVersion = 1

// A Schedule is the reproducer of a confirmed finding: which test to run,
// how to build it, and the force plan that made it fail. Its sites name
// every site the plan refers to by position and expression as well as by
// site ID, so that a reproducer run after edits can tell whether the code
// it forces is still the code it was made for (Check).
type Schedule struct {
	Version int    `json:"version"`
	ID      string `json:"id"`
	Kind    string `json:"kind"`
	Message string `json:"message"`
	Effect  string `json:"effect"`
	Reason  string `json:"reason"` // the failure validation saw
	Order   string `json:"order"`  // the forced order in words
	// Repeat is how many runs one reproduction may take: more than 1
	// where the effect needs luck on top of the order (con-map).
	Repeat int `json:"repeat,omitempty"`

	// Build: the directory go ran in, the package and its test, the go
	// build flags, and what the instrumenter was asked for.
	Dir string `json:"dir"`
	// Patterns are the packages precog test instrumented: the site IDs
	// depend on them.
	Patterns   []string `json:"patterns"`
	Package    string   `json:"package"`
	PackageDir string   `json:"packageDir"`
	Test       string   `json:"test"`
	BuildFlags []string `json:"build,omitempty"`
	All        bool     `json:"all,omitempty"`
	Funcs      bool     `json:"funcs,omitempty"`
	Deps       string   `json:"deps,omitempty"`
	// CFP: the build had the CFP plan (precog test's default), whose
	// function sites count in the site IDs.
	CFP bool `json:"cfp,omitempty"`

	// Run: the test binary's arguments and the bound of one run.
	Args      []string      `json:"args"`
	TimeoutNs time.Duration `json:"timeoutNs"`

	Sites []ScheduleSite `json:"sites"`
	Plan  *plan.Plan     `json:"plan"`
	// Finding is the finding as validation confirmed it, for the
	// reproducer's classification of its runs.
	Finding finding.Finding `json:"finding"`
}

// A ScheduleSite is one site the plan names.
type ScheduleSite struct {
	ID   uint32 `json:"siteId"`
	File string `json:"file"`
	Line int    `json:"line"`
	Col  int    `json:"col"`
	Kind string `json:"kind"`
	Expr string `json:"expr"`
}

// NewSchedule makes the schedule of a confirmed result, with the sites of
// its plan and of the go statements of the finding's goroutines looked up
// in sites.
func NewSchedule(f finding.Finding, r Result, sites *trace.SiteTable) *Schedule {
	s := &Schedule{
		Version: ScheduleVersion, ID: f.ID, Kind: f.Kind, Message: f.Message,
		Effect: r.Validation.Effect, Reason: r.Validation.Reason, Order: r.Order.What, Repeat: r.Order.Repeat,
		Test: testName(r.Witness.Test), Args: r.Target.Args, TimeoutNs: r.Target.Timeout,
		Plan: r.Plan, Finding: f,
	}
	s.Finding.Witnesses = []finding.Witness{r.Witness}
	seen := make(map[uint32]bool)
	add := func(id uint32) {
		if id == 0 || seen[id] {
			return
		}
		seen[id] = true
		if st, ok := sites.Lookup(id); ok {
			s.Sites = append(s.Sites, ScheduleSite{ID: id, File: st.File, Line: st.Line, Col: st.Col, Kind: st.Kind, Expr: st.Expr})
		}
	}
	for _, e := range r.Plan.Edges {
		add(e.Before.Site)
		add(e.After.Site)
	}
	for _, g := range r.Plan.Together {
		for _, p := range g {
			add(p.Site)
		}
	}
	for _, sp := range f.Spawns {
		add(sp.ID)
	}
	return s
}

func testName(test string) string {
	if i := strings.LastIndexByte(test, '.'); i >= 0 {
		return test[i+1:]
	}
	return test
}

// Write writes the schedule to path.
func (s *Schedule) Write(path string) error {
	data, err := json.MarshalIndent(s, "", "\t")
	if err != nil {
		return err
	}
	// Renamed into place: two precog runs that share a cache (its repro
	// directory) and confirm the same finding write the same file, and
	// precog repro must never read half of one.
	return atomicfile.Write(path, append(data, '\n'), 0o644)
}

// ReadSchedule reads a schedule file.
func ReadSchedule(path string) (*Schedule, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s Schedule
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("reading schedule %s: %w", path, err)
	}
	if s.Version != ScheduleVersion {
		return nil, fmt.Errorf("schedule %s has version %d, want %d: run precog test again", path, s.Version, ScheduleVersion)
	}
	if s.Plan == nil || len(s.Plan.Edges)+len(s.Plan.Together) == 0 {
		return nil, fmt.Errorf("schedule %s has no plan", path)
	}
	return &s, nil
}

// ErrCodeChanged is wrapped by Check's error when the code a schedule
// forces is no longer what it was made for.
var ErrCodeChanged = errors.New("the code changed")

// Check compares the schedule's sites with the site table of a new
// instrumented build: every site must have the same ID, position, kind
// and expression. Edits elsewhere that leave them so (in files numbered
// after them, or that move no site) keep the reproducer valid; otherwise
// the error says which site changed.
func (s *Schedule) Check(sites *trace.SiteTable) error {
	for _, want := range s.Sites {
		got, ok := sites.Lookup(want.ID)
		if ok && got.File == want.File && got.Line == want.Line && got.Col == want.Col && got.Kind == want.Kind && got.Expr == want.Expr {
			continue
		}
		where := fmt.Sprintf("site %d (%s:%d:%d %s)", want.ID, want.File, want.Line, want.Col, want.Expr)
		for _, st := range sites.Sites {
			if st.File == want.File && st.Expr == want.Expr && st.Kind == want.Kind && (st.Line == want.Line || st.ID == want.ID) {
				return fmt.Errorf("%w: %s is now site %d at %s:%d:%d; run precog test again for a new reproducer", ErrCodeChanged, where, st.ID, st.File, st.Line, st.Col)
			}
		}
		return fmt.Errorf("%w: %s is gone; run precog test again for a new reproducer", ErrCodeChanged, where)
	}
	return nil
}
