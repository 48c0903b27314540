package predict

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/detect/hb"
	"github.com/precog-dev/precog/detect/reach"
	"github.com/precog-dev/precog/pipeline/control"
	"github.com/precog-dev/precog/shim/plan"
	"github.com/precog-dev/precog/shim/trace"
)

// vetReason is the start of the reason of a static candidate that no
// recorded run reached.
const vetReason = "not reached by any test: "

// candidates returns the static findings that validation can confirm at
// runtime: those of a kind with runtime findings whose sites have roles
// (two at least, the two sides of the bug); the checks' internal errors go
// to res as such.
func candidates(fs []finding.Finding, res *Result) []finding.Finding {
	var out []finding.Finding
	for _, f := range fs {
		switch {
		case f.Kind == finding.InternalError:
			res.InternalErrors = append(res.InternalErrors, f.Message)
		case f.Kind == finding.Limit:
			res.Notes = append(res.Notes, fmt.Sprintf("precog vet: %s: %s", staticPos(f), f.Message))
		default:
			out = append(out, f)
		}
	}
	return out
}

// noRoles is the reason of a static candidate whose check names no two
// sites in roles.
const noRoles = "not validated: the check names where it reports, not the two sites of the bug a forced run needs"

// A vetState collects, over the runs of every test, what they show of the
// static candidates (reach.Find).
type vetState struct {
	cands []finding.Finding
	// ran, per candidate and site with a role: whether some run reached
	// it.
	ran [][]bool
	// witnesses and tests, per candidate: the meetings of its sites
	// found, the unordered ones first, and the tests that had one.
	witnesses [][]finding.Witness
	ordered   [][]bool
	tests     [][]string
}

func newVetState(cands []finding.Finding) *vetState {
	v := &vetState{cands: cands, ran: make([][]bool, len(cands)), witnesses: make([][]finding.Witness, len(cands)),
		ordered: make([][]bool, len(cands)), tests: make([][]string, len(cands))}
	for i, f := range cands {
		v.ran[i] = make([]bool, len(reach.Roles(f)))
	}
	return v
}

// find looks for the candidates in one run of test, analysed in g.
func (v *vetState) find(g *hb.Graph, sites *trace.SiteTable) []reach.Result {
	if v == nil || len(v.cands) == 0 {
		return nil
	}
	return reach.Find(g, sites, v.cands)
}

// A vetHit is what one run showed of static candidate k: which of its
// sites ran, and the meeting of its sites found, if any.
type vetHit struct {
	k       int
	ran     []bool
	found   bool
	w       finding.Witness
	ordered bool
}

// hits returns what the run rs came from (test, run n, events evs) shows
// of the candidates. It reads nothing of v that changes: a test's
// analysis computes its hits on its own goroutine, and detect merges them
// into v once the analysis returned (an analysis abandoned at an
// interrupt then leaves v as it was, and the partial result keeps the
// candidates).
func (v *vetState) hits(rs []reach.Result, test string, n int, evs []trace.Event) []vetHit {
	var pts []plan.Point
	out := make([]vetHit, 0, len(rs))
	for k, r := range rs {
		h := vetHit{k: k, ran: r.Ran, found: r.Found, ordered: r.Ordered}
		if r.Found {
			h.w = r.Witness
			h.w.Test, h.w.Run = test, n
			if pts == nil {
				pts = control.Points(evs)
			}
			control.NameLocks(evs, pts, &h.w)
		}
		out = append(out, h)
	}
	return out
}

// merge keeps what the hits of one test show.
func (v *vetState) merge(hs []vetHit) {
	for _, h := range hs {
		k := h.k
		for i, ran := range h.ran {
			v.ran[k][i] = v.ran[k][i] || ran
		}
		if !h.found {
			continue
		}
		w, test := h.w, h.w.Test
		if !slices.Contains(v.tests[k], test) {
			v.tests[k] = append(v.tests[k], test)
		}
		// Unordered meetings first; at most MaxWitnesses, of
		// different tests when there are.
		at := len(v.witnesses[k])
		if !h.ordered {
			at = slices.Index(v.ordered[k], true)
			if at < 0 {
				at = len(v.witnesses[k])
			}
		}
		if at >= finding.MaxWitnesses || slices.ContainsFunc(v.witnesses[k], func(x finding.Witness) bool { return x.Test == test }) {
			continue
		}
		v.witnesses[k] = slices.Insert(v.witnesses[k], at, w)
		v.ordered[k] = slices.Insert(v.ordered[k], at, h.ordered)
		if len(v.witnesses[k]) > finding.MaxWitnesses {
			v.witnesses[k] = v.witnesses[k][:finding.MaxWitnesses]
			v.ordered[k] = v.ordered[k][:finding.MaxWitnesses]
		}
	}
}

// findings returns the candidates as findings of a run: those whose
// sites a run reached have their witnesses and tests and are predicted
// (validation forces them), the others are not reached, with the reason.
// Their sites with roles get the expression, function and ID of the
// instrumented site there (validation places a crash by a site's
// function when its line does not match: a deferred call).
func (v *vetState) findings(table *trace.SiteTable) []finding.Finding {
	var out []finding.Finding
	for k, f := range v.cands {
		f.Sites = slices.Clone(f.Sites)
		for i := range f.Sites {
			if s := &f.Sites[i]; s.Role != "" {
				name(s, table)
			}
		}
		f.Witnesses = v.witnesses[k]
		f.Tests = slices.Sorted(slices.Values(v.tests[k]))
		f.Reports = max(len(f.Tests), 1)
		switch {
		case len(reach.Roles(f)) < 2:
			// Nothing to force: the check says where it reports, not
			// the two sides of the bug.
			f.Status = finding.Static
			f.Validation = &finding.Validation{Reason: noRoles}
		case len(f.Witnesses) > 0:
			f.Status = finding.Predicted
		default:
			f.Status = finding.NotReached
			f.Validation = &finding.Validation{Reason: v.miss(k)}
		}
		out = append(out, f)
	}
	return out
}

// miss says why no run reached candidate k.
func (v *vetState) miss(k int) string {
	roles := reach.Roles(v.cands[k])
	var never, ran []string
	for i, s := range roles {
		d := fmt.Sprintf("the %s at %s", s.Role, shortSite(s))
		if v.ran[k][i] {
			ran = append(ran, d)
		} else {
			never = append(never, d)
		}
	}
	if len(never) > 0 {
		why := vetReason + "no recorded run ran " + strings.Join(never, " or ")
		if len(ran) > 0 {
			why += " (runs ran " + strings.Join(ran, " and ") + ")"
		}
		return why
	}
	return vetReason + "runs ran " + strings.Join(ran, " and ") + ", but never on one object from two goroutines"
}

// name fills the expression, function and ID of site s from the site of
// the table at its position (its line, if no site has its column).
func name(s *finding.Site, table *trace.SiteTable) {
	var best *trace.Site
	for i := range table.Sites {
		t := &table.Sites[i]
		if t.File != s.File || t.Line != s.Line || t.Kind == "func" {
			continue
		}
		if best == nil || t.Col == s.Col {
			best = t
		}
	}
	if best != nil {
		s.Expr, s.Function = best.Expr, best.Function
		if best.Col == s.Col {
			s.ID = best.ID
		}
	}
}

// namedSites returns the IDs of the access sites of the table on the
// lines of the sites of fs, one per line, for the shim's access filter.
func namedSites(table *trace.SiteTable, fs []finding.Finding) []byte {
	type fileLine struct {
		file string
		line int
	}
	lines := make(map[fileLine]bool)
	for _, f := range fs {
		for _, s := range f.Sites {
			lines[fileLine{s.File, s.Line}] = true
		}
	}
	var b strings.Builder
	for _, s := range table.Sites {
		if s.Kind != "func" && lines[fileLine{s.File, s.Line}] {
			b.WriteString(strconv.FormatUint(uint64(s.ID), 10))
			b.WriteByte('\n')
		}
	}
	return []byte(b.String())
}

// vetCounts counts the static candidates of precog test -vet by status,
// after validation: a candidate that is also a runtime finding (same ID)
// counts with that finding's status.
func (r *Result) vetCounts(ids []string) map[finding.Status]int {
	byID := make(map[string]finding.Status)
	for _, f := range r.Findings {
		byID[f.ID] = f.Status
	}
	n := make(map[finding.Status]int)
	for _, id := range ids {
		n[byID[id]]++
	}
	return n
}

func shortSite(s finding.Site) string {
	return fmt.Sprintf("%s:%d:%d", filepath.Base(s.File), s.Line, s.Col)
}

func staticPos(f finding.Finding) string {
	if len(f.Sites) == 0 || f.Sites[0].File == "" {
		return f.Package
	}
	return shortSite(f.Sites[0])
}
