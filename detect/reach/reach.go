// Package reach ties a static finding (a diagnostic of precog vet) to a
// recorded run: it finds the events of the run at the finding's sites and,
// when the run reached every one of them on one object from two
// goroutines, names one such meeting as a finding.Witness, the events
// validation forces into the order the finding's kind names. This is the
// design's flow from static candidates to runtime confirmation
// (ConMem-v, conmem.txt section 5, applied to the static checks' sites
// instead of the trace checkers' predictions).
//
// It is pure: the trace's events, their happens-before graph (detect/hb)
// and the site table in, a witness out.
//
// Sites are matched by file and line, preferring a site of the exact
// column: a static check and the instrumenter place an access at the same
// position (the finding IDs of both sides rest on it), but a check may
// report a statement's position where the instrumenter has its operands.
// Events are matched by what their role does (a dereference is a read, a
// nil store a write, a close a close). The events of a meeting touch the
// same object (address and GC epoch) on different goroutines; a pair that
// happens-before leaves unordered is preferred, since only that one can be
// forced into the other order. Unsound for reachability in general: a run
// that reached the sites on different objects, or on one goroutine, does
// not count, though another input might make them meet.
package reach

import (
	"slices"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/detect/hb"
	"github.com/precog-dev/precog/shim/trace"
)

// maxPerSite bounds the events kept per site of a finding: the first ones
// of the run, which the pair search tries against each other.
const maxPerSite = 256

// A Result is what one run shows of a static finding.
type Result struct {
	// Ran has one entry per site of the finding that has a role, in
	// order: whether the run had an event there.
	Ran []bool
	// Witness names the events of a meeting of the sites, when Found.
	Witness finding.Witness
	Found   bool
	// Ordered: the only meetings found are ordered by happens-before, so
	// the witness's order may not be forceable.
	Ordered bool
}

// Roles returns the sites of f that have a role, in order.
func Roles(f finding.Finding) []finding.Site {
	var out []finding.Site
	for _, s := range f.Sites {
		if s.Role != "" {
			out = append(out, s)
		}
	}
	return out
}

// Find looks for the sites of each static finding of fs in the run g,
// whose sites the table describes, and returns one Result per finding.
func Find(g *hb.Graph, sites *trace.SiteTable, fs []finding.Finding) []Result {
	type at struct{ f, r int }
	ids := make(map[uint32][]at)
	evs := make([][][]int, len(fs))
	roles := make([][]finding.Site, len(fs))
	for k, f := range fs {
		roles[k] = Roles(f)
		evs[k] = make([][]int, len(roles[k]))
		for id, rs := range siteIDs(sites, roles[k]) {
			for _, r := range rs {
				ids[id] = append(ids[id], at{k, r})
			}
		}
	}
	for i := range g.Events {
		e := &g.Events[i]
		for _, a := range ids[e.Site] {
			if does(roles[a.f][a.r].Role, e, sites) && len(evs[a.f][a.r]) < maxPerSite {
				evs[a.f][a.r] = append(evs[a.f][a.r], i)
			}
		}
	}
	out := make([]Result, len(fs))
	for k, f := range fs {
		out[k] = find(g, f.Kind, roles[k], evs[k])
	}
	return out
}

// find looks for a meeting of the sites of a finding of kind in their
// roles, given the events of the run at each.
func find(g *hb.Graph, kind string, roles []finding.Site, evs [][]int) Result {
	res := Result{Ran: make([]bool, len(roles))}
	if len(roles) < 2 {
		return res
	}
	for r := range roles {
		evs[r] = prefer(roles[r].Role, g, evs[r])
	}
	for r := range roles {
		res.Ran[r] = len(evs[r]) > 0
	}
	if slices.Contains(res.Ran, false) {
		return res
	}
	// The first site's event meets one event of each other site: same
	// object, another goroutine, unordered if possible.
	var best []int
	bestOrdered := true
	for _, a := range evs[0] {
		pick := []int{a}
		ordered := false
		for r := 1; r < len(roles); r++ {
			b, unordered := meet(g, a, evs[r])
			if b < 0 {
				pick = nil
				break
			}
			pick = append(pick, b)
			ordered = ordered || !unordered
		}
		if pick == nil {
			continue
		}
		if best == nil || bestOrdered && !ordered {
			best, bestOrdered = pick, ordered
		}
		if !ordered {
			break
		}
	}
	if best == nil {
		return res
	}
	res.Found, res.Ordered = true, bestOrdered
	for r, i := range best {
		res.Witness.Events = append(res.Witness.Events, event(g, i, roles[r].Role))
	}
	// con-null and con-index: the reader's check of the value, its last
	// read of the location before the use, goes before the write so that
	// the check passes and the use sees the write (validate's orders).
	if k := kind; (k == finding.ConNull || k == finding.ConIndex) && len(best) == 2 {
		if p := prevRead(g, best[0]); p >= 0 && !g.HappensBefore(best[1], p) {
			res.Witness.Events = append(res.Witness.Events, event(g, p, "check"))
		}
	}
	// con-index in a loop: the last read at the index's site with no
	// sync event since the one found, and its check (conmem's withLast):
	// a write in a later iteration is what takes a bound past a value
	// the loop already used.
	if kind == finding.ConIndex && len(best) == 2 {
		r, w := best[0], best[1]
		if last := lastInLoop(g, r); last != r {
			res.Witness.Events = append(res.Witness.Events, event(g, last, "index-last"))
			if p := prevRead(g, last); p >= 0 && p != r && !g.HappensBefore(w, p) {
				res.Witness.Events = append(res.Witness.Events, event(g, p, "check-last"))
			}
		}
	}
	return res
}

// lastInLoop returns the last read at event r's site by r's goroutine
// with no sync event since r (the same seq), or r.
func lastInLoop(g *hb.Graph, r int) int {
	evs := g.Goroutines[g.Goroutine(r)].Events
	k, _ := slices.BinarySearch(evs, r)
	last := r
	for ; k < len(evs) && g.Events[evs[k]].Seq == g.Events[r].Seq; k++ {
		if e := g.Events[evs[k]]; e.Site == g.Events[r].Site && e.Kind == trace.EvRead {
			last = evs[k]
		}
	}
	return last
}

// siteIDs maps the IDs of the table's sites at the positions of roles to
// the indices of the roles there: the sites of the exact position when
// there are some, else every site on the line.
func siteIDs(sites *trace.SiteTable, roles []finding.Site) map[uint32][]int {
	ids := make(map[uint32][]int)
	for r, s := range roles {
		var exact, line []uint32
		for i := range sites.Sites {
			t := &sites.Sites[i]
			if t.File != s.File || t.Line != s.Line || t.Kind == "func" {
				continue
			}
			line = append(line, t.ID)
			if t.Col == s.Col {
				exact = append(exact, t.ID)
			}
		}
		if len(exact) == 0 {
			exact = line
		}
		for _, id := range exact {
			ids[id] = append(ids[id], r)
		}
	}
	return ids
}

// does reports whether event e can stand for a site of the role.
func does(role string, e *trace.Event, sites *trace.SiteTable) bool {
	switch role {
	case finding.RoleDeref, finding.RoleRead, finding.RoleIndex:
		return e.Kind == trace.EvRead || e.Kind == trace.EvAtomicLoad
	case finding.RoleNilStore, finding.RoleInit, finding.RoleWrite:
		return e.Kind == trace.EvWrite || e.Kind == trace.EvAtomicStore
	case finding.RoleClose:
		return e.Kind == trace.EvChanClose
	case finding.RoleSend:
		if e.Kind == trace.EvSelect {
			s, ok := sites.Lookup(e.Site)
			return ok && e.Arg >= 0 && int(e.Arg) < len(s.Cases) && s.Cases[e.Arg] == 's'
		}
		return e.Kind == trace.EvChanSend
	case finding.RoleDone:
		return e.Kind == trace.EvWGDone
	case finding.RoleAdd:
		return e.Kind == trace.EvWGAdd
	case finding.RoleMapWrite:
		return e.Kind == trace.EvMapWrite
	case finding.RoleMapRead:
		return e.Kind == trace.EvMapRead
	case finding.RoleMapRange:
		return e.Kind == trace.EvMapIter
	}
	return e.Addr != 0
}

// prefer orders the events of a site: for a nil store, those that stored
// nil first.
func prefer(role string, g *hb.Graph, evs []int) []int {
	if role != finding.RoleNilStore {
		return evs
	}
	var nils, rest []int
	for _, i := range evs {
		if g.Events[i].Value == 0 {
			nils = append(nils, i)
		} else {
			rest = append(rest, i)
		}
	}
	return append(nils, rest...)
}

// meet returns the first of evs on a's object and another goroutine, one
// unordered with a if there is one, and whether it is; -1 if none.
func meet(g *hb.Graph, a int, evs []int) (int, bool) {
	la := g.Loc(a)
	found := -1
	for _, b := range evs {
		lb := g.Loc(b)
		if lb.Addr != la.Addr || lb.Epoch != la.Epoch || g.Goroutine(b) == g.Goroutine(a) {
			continue
		}
		if g.Concurrent(a, b) {
			return b, true
		}
		if found < 0 {
			found = b
		}
	}
	return found, false
}

// prevRead returns the last access of event i's goroutine to i's object
// before i if it is a read, or -1.
func prevRead(g *hb.Graph, i int) int {
	evs := g.Goroutines[g.Goroutine(i)].Events
	loc := g.Loc(i)
	for k := len(evs) - 1; k >= 0; k-- {
		j := evs[k]
		if j >= i {
			continue
		}
		if l := g.Loc(j); l.Addr != loc.Addr || l.Epoch != loc.Epoch || l.Gen != loc.Gen {
			continue
		}
		if k := g.Events[j].Kind; k == trace.EvRead || k == trace.EvAtomicLoad {
			return j
		}
		return -1
	}
	return -1
}

// event names event i of g in role as a control point.
func event(g *hb.Graph, i int, role string) finding.Event {
	e := &g.Events[i]
	return finding.Event{Role: role, G: e.Goroutine, Site: e.Site, N: g.Instance(i), Kind: e.Kind.String(), Index: i}
}
