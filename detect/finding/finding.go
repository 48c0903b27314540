// Package finding is what precog's trace checkers (detect/conmem,
// detect/oscs, detect/unicorn) report: a predicted concurrency bug, named
// by the sites of the user's code that make it up, with the evidence that
// some interleaving of the recorded run brings them together.
//
// A finding's ID is a hash of its kind and its sites (role, file name,
// function, line and column), so the same bug gets the same ID in every run,
// every test and every checkout of the same code; it changes when the lines
// move. Merge folds the findings of many tests into one per ID, keeping the
// tests that exposed each.
package finding

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/precog-dev/precog/shim/trace"
)

// Status says how sure precog is of a finding.
type Status string

const (
	// Predicted: some interleaving of a recorded run would make the
	// sites meet; no run has shown it yet.
	Predicted Status = "predicted"
	// Confirmed: a run forced into that interleaving failed.
	Confirmed Status = "confirmed"
)

// A Site is one place in the user's code that takes part in a finding.
type Site struct {
	File     string `json:"file"` // absolute path
	Line     int    `json:"line"`
	Col      int    `json:"col"`
	Role     string `json:"role"` // what the site does in the bug, such as "nil-store" or "deref"
	Expr     string `json:"expr"` // the source expression, such as "thd.procInfo"
	Function string `json:"function,omitempty"`
	// Goroutine names the goroutine that ran the site by the go statement
	// that started it ("" for a test's own goroutine), so the two sides of a
	// finding can be told apart.
	Goroutine string `json:"goroutine,omitempty"`
}

// SiteOf returns the site of the site table with the given ID, in role. A
// site the table does not know keeps only its role and an Expr saying so.
func SiteOf(sites *trace.SiteTable, id uint32, role string) Site {
	s, ok := sites.Lookup(id)
	if !ok {
		return Site{Role: role, Expr: "site " + strconv.FormatUint(uint64(id), 10) + " (not in the site table)"}
	}
	return Site{File: s.File, Line: s.Line, Col: s.Col, Role: role, Expr: s.Expr, Function: s.Function}
}

// Pos returns the site's position as file:line:col.
func (s Site) Pos() string {
	return s.File + ":" + strconv.Itoa(s.Line) + ":" + strconv.Itoa(s.Col)
}

// Evidence is why a checker believes the sites can meet. Each checker fills
// the parts it has.
type Evidence struct {
	// Locks lists, per site of the finding in order, the locks held there
	// ("mu@site" names), empty when none were held.
	Locks [][]string `json:"locks,omitempty"`
	// Clocks lists, per site in order, the vector clock at the event, as
	// "g1:4 g2:7", showing that neither side happens before the other.
	Clocks []string `json:"clocks,omitempty"`
	// Suspiciousness is Unicorn's Jaccard score, in [0, 1].
	Suspiciousness float64 `json:"suspiciousness,omitempty"`
	// FailingRuns and PassingRuns count the runs whose trace held the
	// pattern (Unicorn).
	FailingRuns int `json:"failingRuns,omitempty"`
	PassingRuns int `json:"passingRuns,omitempty"`
	// Notes are further facts, one short sentence each.
	Notes []string `json:"notes,omitempty"`
}

// A Finding is one predicted bug.
type Finding struct {
	ID      string `json:"id"`
	Kind    string `json:"kind"` // con-null, con-uninit, con-closed, con-index, con-map, oscs, unicorn-p<N>
	Status  Status `json:"status"`
	Message string `json:"message"` // one lower-case sentence, no trailing period
	Sites   []Site `json:"sites"`
	// Spawns are the go statements that started the goroutines of the
	// sites, one per site in order; a site on a test's own goroutine has a
	// zero Site here.
	Spawns []Site `json:"spawns,omitempty"`
	// Stacks are, per site in order, the functions open at the site,
	// outermost first, from the goroutine's function entry and exit events
	// (empty without precog record -funcs).
	Stacks   [][]Site `json:"stacks,omitempty"`
	Evidence Evidence `json:"evidence"`
	// Tests are the tests whose runs exposed the finding, as
	// "importpath.TestName", sorted.
	Tests []string `json:"tests"`
	// Reports counts how many times checkers reported the finding before
	// Merge folded them into one.
	Reports int `json:"reports"`
}

// SetID computes f.ID from its kind and sites.
func (f *Finding) SetID() {
	h := sha256.New()
	h.Write([]byte(f.Kind))
	keys := make([]string, len(f.Sites))
	for i, s := range f.Sites {
		keys[i] = strings.Join([]string{s.Role, filepath.Base(filepath.Dir(s.File)) + "/" + filepath.Base(s.File),
			s.Function, strconv.Itoa(s.Line), strconv.Itoa(s.Col)}, "\x00")
	}
	slices.Sort(keys)
	for _, k := range keys {
		h.Write([]byte{0})
		h.Write([]byte(k))
	}
	f.ID = hex.EncodeToString(h.Sum(nil))[:12]
}

// Merge folds findings with the same ID into one, whose Tests is the union
// of theirs and whose Reports is the sum, and returns them sorted by kind,
// then by the first site's position, then by ID. The first finding of an ID
// gives the rest of the merged one (evidence, stacks), except that a
// confirmed status wins over a predicted one. Findings without an ID get
// one first.
func Merge(fs []Finding) []Finding {
	byID := make(map[string]int)
	var out []Finding
	for _, f := range fs {
		if f.ID == "" {
			f.SetID()
		}
		if f.Reports == 0 {
			f.Reports = 1
		}
		i, ok := byID[f.ID]
		if !ok {
			byID[f.ID] = len(out)
			f.Tests = slices.Clone(f.Tests)
			out = append(out, f)
			continue
		}
		m := &out[i]
		m.Tests = append(m.Tests, f.Tests...)
		m.Reports += f.Reports
		if f.Status == Confirmed {
			m.Status = Confirmed
		}
	}
	for i := range out {
		slices.Sort(out[i].Tests)
		out[i].Tests = slices.Compact(out[i].Tests)
	}
	slices.SortFunc(out, Compare)
	return out
}

// Compare orders findings by kind, first site's file, line and column, then ID.
func Compare(a, b Finding) int {
	c := cmp.Compare(a.Kind, b.Kind)
	if c != 0 {
		return c
	}
	if len(a.Sites) > 0 && len(b.Sites) > 0 {
		sa, sb := a.Sites[0], b.Sites[0]
		if c := cmp.Or(cmp.Compare(sa.File, sb.File), cmp.Compare(sa.Line, sb.Line), cmp.Compare(sa.Col, sb.Col)); c != 0 {
			return c
		}
	}
	return cmp.Compare(a.ID, b.ID)
}

// Duplication is the CFP paper's duplication rate of a set of reports: the
// number of reports divided by the number of unique findings after Merge
// (1 when every report is a different bug; 0 for no findings).
func Duplication(merged []Finding) float64 {
	if len(merged) == 0 {
		return 0
	}
	n := 0
	for _, f := range merged {
		n += f.Reports
	}
	return float64(n) / float64(len(merged))
}
