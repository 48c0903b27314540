package unicorn

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/detect/hb"
	"github.com/precog-dev/precog/shim/trace"
)

// A Run is one run of a test: its patterns and whether it failed.
type Run struct {
	Patterns RunPatterns
	Failed   bool
	// Cut says that Patterns are those of the run's first events only
	// (pipeline/predict analyses so a trace too large to hold): a
	// pattern the run does not show may lie after the cut. Scores counts
	// such a run the way that can only lower a score (see "Runs analysed
	// in part" in the package doc).
	Cut bool
}

// blind reports whether Step 1 kept no pair in the run: every pair is a
// pattern, so the run has none. A cut run is never blind: its events
// after the cut may have had pairs, and it counts as a failing run that
// lacks the patterns it did not show.
func (r Run) blind() bool { return !r.Cut && len(r.Patterns.Patterns) == 0 }

// A Score is a pattern's suspiciousness over a set of runs.
type Score struct {
	// Pattern is its first instance in the first failing run that has
	// it, or in the first run if no failing run does; Run is that run's
	// index in the runs scored.
	Pattern Pattern
	Run     int
	// Failed and Passed count the failing and passing runs that have the
	// pattern.
	Failed, Passed int
	// Unseen counts the passing cut runs (Run.Cut) that do not show the
	// pattern, Missed the failing ones: it may lie after their cut.
	Unseen, Missed int
	// Susp is failed(s) / (totalfailed + passed(s)), formula (1), with
	// the Unseen runs in passed(s): the lowest score the cut runs allow.
	// High is the highest, with the Missed runs in failed(s) instead;
	// without cut runs the two are equal.
	Susp, High float64
}

// Scores computes every pattern's suspiciousness over runs (Step 3) and
// returns them ranked: by decreasing Susp, then by more failing runs, then
// by Key. With no failing run every score is 0. A failing run in which
// Step 1 kept no pair at all is blind (its accesses' order unknown to the
// trace, as for plain accesses with no sync event between them): it cannot
// tell a pattern's absence from its own blindness, and does not count in
// totalfailed. A cut run (Run.Cut) that does not show a pattern counts as
// lacking it if it failed and as having it if it passed.
func Scores(runs []Run) []Score {
	total, cutFailed, cutPassed := 0, 0, 0
	for _, r := range runs {
		if r.Failed && !r.blind() {
			total++
		}
		if r.Cut && r.Failed {
			cutFailed++
		} else if r.Cut {
			cutPassed++
		}
	}
	byKey := make(map[string]*Score)
	var keys []string
	// cut counts the failing and the passing cut runs that show each
	// pattern.
	cut := make(map[string]*[2]int)
	for i, r := range runs {
		for _, p := range r.Patterns.Patterns {
			k := p.Key()
			s, ok := byKey[k]
			if !ok {
				s = &Score{Pattern: p, Run: i}
				byKey[k] = s
				keys = append(keys, k)
				cut[k] = new([2]int)
			}
			if r.Failed && s.Failed == 0 {
				// The failing order is what validation forces.
				s.Pattern, s.Run = p, i
			}
			if r.Failed {
				s.Failed++
			} else {
				s.Passed++
			}
			if r.Cut && r.Failed {
				cut[k][0]++
			} else if r.Cut {
				cut[k][1]++
			}
		}
	}
	out := make([]Score, 0, len(keys))
	for _, k := range keys {
		s := byKey[k]
		s.Missed, s.Unseen = cutFailed-cut[k][0], cutPassed-cut[k][1]
		if total > 0 {
			s.Susp = float64(s.Failed) / float64(total+s.Passed+s.Unseen)
			s.High = float64(s.Failed+s.Missed) / float64(total+s.Passed)
		}
		out = append(out, *s)
	}
	slices.SortFunc(out, func(a, b Score) int {
		return cmp.Or(cmp.Compare(b.Susp, a.Susp), cmp.Compare(b.Failed, a.Failed), strings.Compare(a.Pattern.Key(), b.Pattern.Key()))
	})
	return out
}

// Rank ranks the patterns of runs and reports the groups at the top score
// as findings, following the reporting policy in the package doc: nothing
// without both failing and passing runs, nothing below Options.MinScore.
// With cut runs (Run.Cut) the top is that of the lowest scores, and a group
// there is reported only if no pattern outside it can score higher (see
// "Runs analysed in part" in the package doc).
func Rank(runs []Run, sites *trace.SiteTable, opts Options) []finding.Finding {
	failed, blind, cut := 0, 0, false
	for _, r := range runs {
		if r.Failed {
			failed++
			if r.blind() {
				blind++
			}
		}
		cut = cut || r.Cut
	}
	if failed == 0 || failed == len(runs) {
		return nil
	}
	scores := Scores(runs)
	if len(scores) == 0 || scores[0].Susp < opts.minScore() {
		return nil
	}
	top := 0
	for top < len(scores) && scores[top].Susp == scores[0].Susp {
		top++
	}
	var out []finding.Finding
	for _, group := range groups(scores[:top]) {
		if cut && outranked(group, scores) {
			continue
		}
		f := report(group, len(scores), failed-blind, len(runs)-failed, sites)
		if blind > 0 {
			f.Evidence.Notes = append(f.Evidence.Notes, fmt.Sprintf("%d more failing runs kept no pair of accesses (their order unknown to the trace) and are left out of the ranking", blind))
		}
		out = append(out, f)
	}
	slices.SortFunc(out, finding.Compare)
	return out
}

// outranked reports whether a pattern of scores outside group, whose
// patterns share the lowest score group[0].Susp, has a highest score above
// it: in the whole runs that pattern may rank above the group.
func outranked(group, scores []Score) bool {
	in := make(map[string]bool, len(group))
	for _, s := range group {
		in[s.Pattern.Key()] = true
	}
	for _, s := range scores {
		if s.High > group[0].Susp && !in[s.Pattern.Key()] {
			return true
		}
	}
	return false
}

// groups partitions the top-ranked scores into groups that share a root
// cause: patterns that have a site in common and involve the same two
// goroutines (by the go statements that started them) are in one group,
// and so, transitively, are the patterns linked through them. Each group
// comes back with its representative first: the pattern with the most
// accesses, then the lower pattern number, then the smaller key.
func groups(top []Score) [][]Score {
	parent := make([]int, len(top))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		if parent[i] != i {
			parent[i] = find(parent[i])
		}
		return parent[i]
	}
	for i := range top {
		for j := i + 1; j < len(top); j++ {
			if related(top[i].Pattern, top[j].Pattern) {
				parent[find(i)] = find(j)
			}
		}
	}
	byRoot := make(map[int][]Score)
	var roots []int
	for i := range top {
		r := find(i)
		if _, ok := byRoot[r]; !ok {
			roots = append(roots, r)
		}
		byRoot[r] = append(byRoot[r], top[i])
	}
	var out [][]Score
	for _, r := range roots {
		g := byRoot[r]
		slices.SortFunc(g, func(a, b Score) int {
			return cmp.Or(cmp.Compare(len(b.Pattern.Accesses), len(a.Pattern.Accesses)),
				cmp.Compare(a.Pattern.P, b.Pattern.P), strings.Compare(a.Pattern.Key(), b.Pattern.Key()))
		})
		out = append(out, g)
	}
	return out
}

// related reports whether patterns p and q share a site and the pair of go
// statements that started their two goroutines.
func related(p, q Pattern) bool {
	spawns := func(p Pattern) [2]uint32 {
		var s [2]uint32
		for _, a := range p.Accesses {
			s[a.Role-1] = a.Spawn
		}
		if s[0] > s[1] {
			s[0], s[1] = s[1], s[0]
		}
		return s
	}
	if spawns(p) != spawns(q) {
		return false
	}
	for _, a := range p.Accesses {
		for _, b := range q.Accesses {
			if a.Site == b.Site {
				return true
			}
		}
	}
	return false
}

// descriptions are Table I's descriptions, in house style, with %[1]s for
// x, %[2]s for y, %[3]s for goroutine 1's function and %[4]s for
// goroutine 2's.
var descriptions = [finding.UnicornPatterns + 1]string{
	1:  "%[1]s is written by %[4]s after %[3]s read it: %[3]s may go on with a stale value",
	2:  "%[1]s is read by %[4]s after %[3]s wrote it: an unexpected value is read",
	3:  "%[1]s is written by %[4]s after %[3]s wrote it: the first write is lost",
	4:  "%[3]s reads %[1]s twice and %[4]s writes it in between: the two reads differ",
	5:  "%[3]s writes %[1]s and reads it back, and %[4]s writes it in between: the read does not get %[3]s's value",
	6:  "%[3]s writes %[1]s twice and %[4]s reads it in between: a temporary value is seen",
	7:  "%[3]s reads %[1]s and then writes it, and %[4]s writes it in between: %[4]s's write is lost",
	8:  "%[3]s writes %[1]s twice and %[4]s writes it in between: %[4]s's write is lost",
	9:  "%[3]s and %[4]s each write %[1]s and %[2]s, in orders that interleave: the final %[1]s and %[2]s disagree",
	10: "%[3]s and %[4]s each write %[1]s and %[2]s, in orders that interleave: the final %[1]s and %[2]s disagree",
	11: "%[3]s and %[4]s each write %[1]s and %[2]s, in orders that interleave: the final %[1]s and %[2]s disagree",
	12: "%[4]s reads %[1]s and %[2]s while %[3]s writes both: it sees them inconsistent",
	13: "%[4]s reads %[1]s and %[2]s while %[3]s writes both: it sees them inconsistent",
	14: "%[3]s reads %[1]s and %[2]s while %[4]s writes both: it sees them inconsistent",
	15: "%[3]s reads %[1]s and %[2]s while %[4]s writes both: it sees them inconsistent",
	16: "%[3]s reads %[1]s and %[2]s while %[4]s writes both: it sees them inconsistent",
	17: "%[4]s reads %[1]s and %[2]s while %[3]s writes both: it sees them inconsistent",
}

// report makes the finding of a group, whose first score is its
// representative.
func report(group []Score, patterns, failed, passed int, sites *trace.SiteTable) finding.Finding {
	s := group[0]
	p := s.Pattern
	f := finding.Finding{
		Kind:   finding.Unicorn(p.P),
		Status: finding.Predicted,
	}
	var expr [2]string
	var fn [3]string
	for _, a := range p.Accesses {
		site := finding.SiteOf(sites, a.Site, a.Label())
		if expr[a.Var] == "" {
			expr[a.Var] = variable(site.Expr)
		}
		if fn[a.Role] == "" {
			fn[a.Role] = cmp.Or(site.Function, fmt.Sprintf("goroutine %d", a.Role))
		}
		if a.Spawn != 0 {
			site.Goroutine = goStmt(sites, a.Spawn)
		}
		f.Sites = append(f.Sites, site)
		var spawn finding.Site
		if a.Spawn != 0 {
			spawn = finding.SiteOf(sites, a.Spawn, finding.RoleGo)
		}
		f.Spawns = append(f.Spawns, spawn)
		var stack []finding.Site
		for _, id := range a.Stack {
			stack = append(stack, finding.SiteOf(sites, id, finding.RoleCall))
		}
		f.Stacks = append(f.Stacks, stack)
		f.Evidence.Clocks = append(f.Evidence.Clocks, a.Clock)
		var locks []string
		for _, h := range a.Locks {
			locks = append(locks, hb.LockName(sites, h.Site, h.Addr, h.Read))
		}
		f.Evidence.Locks = append(f.Evidence.Locks, locks)
	}
	if !slices.ContainsFunc(f.Evidence.Locks, func(l []string) bool { return len(l) > 0 }) {
		f.Evidence.Locks = nil
	}
	if fn[1] == fn[2] {
		fn[1], fn[2] = fn[1]+" (goroutine 1)", fn[2]+" (goroutine 2)"
	}
	f.Message = fmt.Sprintf(descriptions[p.P], expr[0], expr[1], fn[1], fn[2]) +
		fmt.Sprintf(" (in %d of %d failing runs and %d of %d passing runs)", s.Failed, failed, s.Passed, passed)
	if len(f.Stacks) > 0 && slices.IndexFunc(f.Stacks, func(st []finding.Site) bool { return len(st) > 0 }) < 0 {
		f.Stacks = nil
	}
	// The witness names the accesses by their events in run s.Run; the
	// driver, which has the trace, turns that index into its run number
	// and fills in each event's goroutine and instance.
	w := finding.Witness{Run: s.Run}
	for _, a := range p.Accesses {
		k := trace.EvRead
		if a.Write {
			k = trace.EvWrite
		}
		w.Events = append(w.Events, finding.Event{Role: a.Label(), Site: a.Site, Kind: k.String(), Index: a.Event})
	}
	f.Witnesses = []finding.Witness{w}
	f.Evidence.Suspiciousness = s.Susp
	f.Evidence.FailingRuns = s.Failed
	f.Evidence.PassingRuns = s.Passed
	f.Evidence.Notes = append(f.Evidence.Notes, fmt.Sprintf("pattern %s, rank 1 of %d patterns", labels(p), patterns))
	if s.Unseen > 0 {
		f.Evidence.Notes = append(f.Evidence.Notes, fmt.Sprintf("%d of the passing runs %s analysed only in %s first events (-max-trace) and did not show it there: the score counts %s as having it, which may lie after the cut",
			s.Unseen, plural(s.Unseen, "was", "were"), plural(s.Unseen, "its", "their"), plural(s.Unseen, "it", "them")))
	}
	if s.Missed > 0 {
		f.Evidence.Notes = append(f.Evidence.Notes, fmt.Sprintf("%d of the failing runs %s analysed only in %s first events (-max-trace) and did not show it there: it may lie after the cut",
			s.Missed, plural(s.Missed, "was", "were"), plural(s.Missed, "its", "their")))
	}
	for _, o := range group[1:] {
		f.Evidence.Notes = append(f.Evidence.Notes, fmt.Sprintf("same root cause: unicorn-p%d %s at %s", o.Pattern.P, labels(o.Pattern), positions(o.Pattern, sites)))
	}
	f.SetID()
	return f
}

// variable names the variable an access expression accesses: the map of
// a delete call, else the expression.
func variable(expr string) string {
	if m, ok := strings.CutPrefix(expr, "delete("); ok {
		if i := strings.IndexByte(m, ','); i > 0 {
			return m[:i]
		}
	}
	return expr
}

// labels returns the pattern's accesses in the paper's notation, such as
// "W1(x) R2(x) W1(x)".
func labels(p Pattern) string {
	var l []string
	for _, a := range p.Accesses {
		l = append(l, a.Label())
	}
	return strings.Join(l, " ")
}

// positions returns the file:line of the pattern's sites.
func positions(p Pattern, sites *trace.SiteTable) string {
	var l []string
	for _, a := range p.Accesses {
		if s, ok := sites.Lookup(a.Site); ok {
			l = append(l, fmt.Sprintf("%s:%d", baseName(s.File), s.Line))
		} else {
			l = append(l, fmt.Sprintf("site %d", a.Site))
		}
	}
	return strings.Join(l, " ")
}

func baseName(path string) string {
	if i := strings.LastIndexAny(path, `/\`); i >= 0 {
		return path[i+1:]
	}
	return path
}

// goStmt names a goroutine by the position of the go statement that
// started it.
func goStmt(sites *trace.SiteTable, id uint32) string {
	if s, ok := sites.Lookup(id); ok {
		return fmt.Sprintf("go statement at %s:%d", baseName(s.File), s.Line)
	}
	return fmt.Sprintf("go statement site %d", id)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
