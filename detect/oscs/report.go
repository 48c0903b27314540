package oscs

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/detect/hb"
	"github.com/precog-dev/precog/shim/trace"
)

// report records a pair the filters left, unless a pair with the same
// sites was reported before: one finding per site set, not per dynamic
// instance.
func (c *checker) report(p rec, pWrite bool, cur rec, cWrite bool, loc hb.Loc, lacks int32) {
	lock, ok := c.commonLock(int(p.ev), int(cur.ev))
	r := report{a: p, aWrite: pWrite, b: cur, bWrite: cWrite, lock: lock, loc: loc, lacksRW: lacks}
	if ok {
		r.aLock = c.sectionAt(p, lock)
		r.bLock = c.sectionAt(cur, lock)
		if c.handed(r.aLock) || c.handed(r.bLock) {
			// A lock handed between goroutines: its section is no
			// operation of a function (the receiver's Begin is no
			// Lock, the giver's End no Unlock), and without the
			// hand-off the pair had no common lock.
			return
		}
	}
	c.stats.Reported++
	if !ok {
		return
	}
	if c.siteLess(r.b, r.a) {
		r.a, r.b = r.b, r.a
		r.aWrite, r.bWrite = r.bWrite, r.aWrite
		r.aLock, r.bLock = r.bLock, r.aLock
	}
	ids := []uint32{c.g.Events[r.a.ev].Site, c.g.Events[r.b.ev].Site, c.lockSite(r.aLock), c.lockSite(r.bLock)}
	slices.Sort(ids)
	var key strings.Builder
	for _, id := range ids {
		key.WriteString(strconv.FormatUint(uint64(id), 10))
		key.WriteByte(',')
	}
	if c.seen[key.String()] {
		return
	}
	c.seen[key.String()] = true
	c.reports = append(c.reports, r)
}

// handed reports whether section k began with a lock handed to its
// goroutine (hb.Section.Handed).
func (c *checker) handed(k int) bool {
	return k >= 0 && c.g.Sections()[k].Handed
}

// commonLock returns a lock held at both events in modes that exclude
// each other.
func (c *checker) commonLock(a, b int) (uint64, bool) {
	for _, x := range c.g.Locks(a) {
		for _, y := range c.g.Locks(b) {
			if x.Addr == y.Addr && (x.Mode == hb.Write || y.Mode == hb.Write) {
				return x.Addr, true
			}
		}
	}
	return 0, false
}

// sectionAt returns the innermost section of r's goroutine on lock that is
// open at r's event, -1 if none.
func (c *checker) sectionAt(r rec, lock uint64) int {
	secs := c.g.Sections()
	own := c.secsOf[r.g]
	k, _ := slices.BinarySearchFunc(own, int(r.ev), func(s int32, ev int) int { return cmp.Compare(secs[s].Begin, ev) })
	for k--; k >= 0; k-- {
		s := secs[own[k]]
		if s.Lock.Addr == lock && (s.End < 0 || s.End >= int(r.ev)) {
			return int(own[k])
		}
	}
	return -1
}

func (c *checker) lockSite(sec int) uint32 {
	if sec < 0 {
		return 0
	}
	return c.g.Events[c.g.Sections()[sec].Begin].Site
}

// siteLess orders the two sides of a pair by their sites' positions, so
// that a finding's sites and message do not depend on which side the run
// happened to record first.
func (c *checker) siteLess(x, y rec) bool {
	sx, _ := c.sites.Lookup(c.g.Events[x.ev].Site)
	sy, _ := c.sites.Lookup(c.g.Events[y.ev].Site)
	if d := cmp.Or(cmp.Compare(sx.File, sy.File), cmp.Compare(sx.Line, sy.Line), cmp.Compare(sx.Col, sy.Col)); d != 0 {
		return d < 0
	}
	if d := cmp.Compare(c.g.Events[x.ev].Site, c.g.Events[y.ev].Site); d != 0 {
		return d < 0
	}
	return x.ev < y.ev
}

func verb(write bool) string {
	if write {
		return finding.RoleWrite
	}
	return finding.RoleRead
}

func (c *checker) findings() []finding.Finding {
	out := make([]finding.Finding, 0, len(c.reports)+len(c.waits))
	for _, r := range c.reports {
		out = append(out, c.finding(r))
	}
	out = append(out, c.waits...)
	slices.SortFunc(out, finding.Compare)
	return out
}

func (c *checker) finding(r report) finding.Finding {
	evA, evB := int(r.a.ev), int(r.b.ev)
	sa := finding.SiteOf(c.sites, c.g.Events[evA].Site, verb(r.aWrite))
	sb := finding.SiteOf(c.sites, c.g.Events[evB].Site, verb(r.bWrite))
	la := finding.SiteOf(c.sites, c.lockSite(r.aLock), finding.RoleLock)
	lb := finding.SiteOf(c.sites, c.lockSite(r.bLock), finding.RoleLock)
	events := []int{evA, evB, c.sectionBegin(r.aLock, evA), c.sectionBegin(r.bLock, evB)}

	f := finding.Finding{Kind: finding.OSCS, Status: finding.Predicted, Sites: []finding.Site{sa, sb, la, lb}}
	for k, i := range events {
		gi := c.g.Goroutine(i)
		var spawn finding.Site
		if id := c.g.Spawn(gi); id != 0 {
			spawn = finding.SiteOf(c.sites, id, finding.RoleGo)
			f.Sites[k].Goroutine = filepath.Base(spawn.File) + ":" + strconv.Itoa(spawn.Line) + ":" + strconv.Itoa(spawn.Col)
		} else if c.g.Adopted(gi) {
			spawn = finding.UnseenSpawn(c.g.Goroutines[gi].Creators)
		}
		f.Spawns = append(f.Spawns, spawn)
		var stack []finding.Site
		for _, j := range c.g.Stack(i) {
			stack = append(stack, finding.SiteOf(c.sites, c.g.Events[j].Site, finding.RoleCall))
		}
		f.Stacks = append(f.Stacks, stack)
		f.Evidence.Clocks = append(f.Evidence.Clocks, c.g.Clock(i).String())
		locks := c.g.LockNames(i, c.sites)
		if k >= 2 && i != events[k-2] {
			locks = c.heldBefore(i)
		}
		f.Evidence.Locks = append(f.Evidence.Locks, locks)
	}
	f.Witnesses = []finding.Witness{c.witness(f.Sites, events, r)}
	f.Message = c.message(r, sa, sb, la)
	f.Evidence.Notes = c.notes(r, sa, sb)
	f.SetID()
	return f
}

// heldBefore names the locks held at the Lock event i other than the one
// it takes: a lock site's report line lists what was held when the Lock
// was called ("lock rt.mu ... (holding rt.mu@a.go:42)" said nothing).
func (c *checker) heldBefore(i int) []string {
	var out []string
	for _, l := range c.g.Locks(i) {
		if l.Addr != c.g.Events[i].Addr {
			out = append(out, hb.LockName(c.sites, c.g.Acquired(i, l.Addr), l.Addr, l.Mode == hb.Read))
		}
	}
	return out
}

// witness names the finding's events for validation: the four of its
// sites, then the Unlock that ends each side's critical section ("unlock-1"
// for the side of the first site, "unlock-2"), when the run recorded it;
// then each side's goroutine's sections of the lock just before and just
// after its own ("prev-lock-1", "prev-unlock-1", "next-lock-1",
// "next-unlock-1", and the same with 2), whose Lock and Unlock the run
// recorded: an atomicity violation runs the other side's section between
// two of them (pipeline/validate's oscsOrders).
func (c *checker) witness(sites []finding.Site, events []int, r report) finding.Witness {
	var w finding.Witness
	add := func(i int, role string) {
		ev := c.g.Events[i]
		w.Events = append(w.Events, finding.Event{Role: role, G: ev.Goroutine, Site: ev.Site, N: c.g.Instance(i), Kind: ev.Kind.String(), Index: i})
	}
	for k, i := range events {
		add(i, sites[k].Role)
	}
	secs := c.g.Sections()
	for k, sec := range []int{r.aLock, r.bLock} {
		if sec >= 0 {
			if end := secs[sec].End; end >= 0 {
				add(end, "unlock-"+strconv.Itoa(k+1))
			}
		}
	}
	for k, sec := range []int{r.aLock, r.bLock} {
		if sec < 0 {
			continue
		}
		side := strconv.Itoa(k + 1)
		for _, d := range []struct {
			dir  int
			name string
		}{{-1, "prev-"}, {1, "next-"}} {
			if n := c.adjacent(sec, d.dir); n >= 0 && secs[n].End >= 0 && !secs[n].Handed {
				add(secs[n].Begin, d.name+"lock-"+side)
				add(secs[n].End, d.name+"unlock-"+side)
			}
		}
	}
	return w
}

func (c *checker) sectionBegin(sec, fallback int) int {
	if sec < 0 {
		return fallback
	}
	return c.g.Sections()[sec].Begin
}

func function(s finding.Site) string {
	if s.Function == "" {
		return filepath.Base(s.File) + ":" + strconv.Itoa(s.Line)
	}
	return s.Function
}

// message is the finding's sentence: which variable, which accesses, under
// which lock, and the fix as a question.
func (c *checker) message(r report, sa, sb, lock finding.Site) string {
	expr := sa.Expr
	lockExpr := lock.Expr
	if lockExpr == "" {
		lockExpr = "0x" + strconv.FormatUint(r.lock, 16)
	}
	where := "in " + function(sa) + " and " + verb(r.bWrite) + " in " + function(sb)
	if function(sa) == function(sb) {
		where = "and " + verb(r.bWrite) + " in " + function(sa) + " on two goroutines"
	}
	effect := "whether the read sees the write"
	if r.aWrite && r.bWrite {
		effect = "the value " + expr + " is left with"
	}
	return fmt.Sprintf("%s of %s %s hold %s in critical sections that can run in either order, which decides %s: should they be one critical section, or ordered?",
		verb(r.aWrite), expr, where, lockExpr, effect)
}

func (c *checker) notes(r report, sa, sb finding.Site) []string {
	notes := []string{
		"OSCS-" + c.opts.paperName() + ": neither access happens before the other, and both hold the lock",
	}
	switch {
	case r.aWrite && r.bWrite:
		notes = append(notes, fmt.Sprintf("the writes store different values (%d, %d): not redundant", c.g.Events[r.a.ev].Value, c.g.Events[r.b.ev].Value))
	default:
		notes = append(notes, "the write changes the value: not redundant")
	}
	side := sa
	if r.b.g == r.lacksRW {
		side = sb
	}
	notes = append(notes, fmt.Sprintf("the critical section of the %s at %s:%d has no read of %s followed by a write: not commutative",
		side.Role, filepath.Base(side.File), side.Line, sa.Expr))
	notes = append(notes, c.shape(r, sa, sb))
	notes = append(notes, fmt.Sprintf("location 0x%x, GC epoch %d", r.loc.Addr, r.loc.Epoch))
	return notes
}

// lockedAt says where the sections first and second of one goroutine
// were locked: "locked at a.go:10, then at a.go:20", or, when one helper
// locked both, "locked twice at a.go:10, from Get, then from Put", with
// the functions that called the helper (from the goroutine's open
// function entries), so the two do not read as one place; without them,
// "locked twice at a.go:10, in one call or two", so that two calls
// of one function (a test's setup and its body) do not read as one.
func (c *checker) lockedAt(first, second int) string {
	at := func(sec int) string {
		st, _ := c.sites.Lookup(c.lockSite(sec))
		return filepath.Base(st.File) + ":" + strconv.Itoa(st.Line)
	}
	a, b := at(first), at(second)
	if a != b {
		return "locked at " + a + ", then at " + b
	}
	caller := func(sec int) string {
		st := c.g.Stack(c.g.Sections()[sec].Begin)
		if len(st) < 2 {
			return ""
		}
		s, _ := c.sites.Lookup(c.g.Events[st[len(st)-2]].Site)
		return s.Function
	}
	ca, cb := caller(first), caller(second)
	switch {
	case ca == "" || cb == "":
		// Without function events (-funcs) the two lockings may be two
		// calls of one function, a loop's two turns, or one call that
		// locks twice: not told apart.
		return "locked twice at " + a + ", in one call or two"
	case ca == cb:
		return "locked twice at " + a + ", both from " + ca
	}
	return "locked twice at " + a + ", from " + ca + ", then from " + cb
}

// shape names the kind of bug the pair is (§2.2): an atomicity violation
// when one side's goroutine also touches the location in its previous or
// next critical section of the lock, so that the other side's section can
// fall between its two (Fig. 3c: Mozilla-1, MySQL1-A, KB1); otherwise an
// order violation, where only which section runs first matters (Fig. 4:
// Mozilla-3), or, for two writes, a lost update.
//
// A neighbor that is one call's other section or its caller's other step
// (sameCall, twoStep: what the whole-operation filter takes for one piece
// of work) names the shape before one that may be another call of the
// same operation (a test's loop calling Increment three times), and so
// does a read-only section's step that touches another location the
// other side writes (splitRead's multi-variable shape through two calls:
// a renderer's Value, then IsDone, with Increment's section, which
// writes both, between them): that is the split that keeps such a pair
// of whole operations reported, and naming the repeated call instead
// sends the reader after a split the filter itself deems two operations.
func (c *checker) shape(r report, sa, sb finding.Site) string {
	type side struct {
		sec, other int
		s, o       finding.Site
	}
	var sides []side
	for _, sd := range []side{{r.aLock, r.bLock, sa, sb}, {r.bLock, r.aLock, sb, sa}} {
		if sd.sec >= 0 {
			sides = append(sides, sd)
		}
	}
	// One call's two sections, or a caller's two steps that are not two
	// calls of one operation (repeated: a loop's, which splitRead lets
	// go as well).
	steps := func(k, n int) bool { return c.sameCall(k, n) || !c.repeated(k, n) && c.twoStep(k, n) }
	for _, sd := range sides {
		for _, n := range c.neighbors(sd.sec) {
			if c.footprint(n).touched[r.loc] && steps(sd.sec, n) {
				return c.atomicity(r, sd.sec, n, sd.s, sd.o)
			}
		}
	}
	for _, sd := range sides {
		if sd.other < 0 || len(c.footprint(sd.sec).written) > 0 {
			// splitRead's shape is a reader's: a writer's pair that
			// no neighbor splits on its location is a lost update or
			// an order violation.
			continue
		}
		w := c.footprint(sd.other).written
		for _, n := range c.neighbors(sd.sec) {
			if !steps(sd.sec, n) {
				continue
			}
			if st, ok := c.firstAccess(n, func(l hb.Loc) bool { return l != r.loc && w[l] }); ok {
				first, second := c.ordered(sd.sec, n)
				fa, fb, ea, eb := function(sd.s), st.Function, sd.s.Expr, st.Expr
				if first == n {
					fa, fb, ea, eb = fb, fa, eb, ea
				}
				return fmt.Sprintf("atomicity violation: %s, then %s, on one goroutine, touch %s, then %s, in two critical sections (%s) that a function of the program takes in that order on one object, and %s's section, which writes %s, can run between them",
					fa, fb, ea, eb, c.lockedAt(first, second), function(sd.o), st.Expr)
			}
		}
	}
	for _, sd := range sides {
		for _, n := range c.neighbors(sd.sec) {
			if c.footprint(n).touched[r.loc] {
				return c.atomicity(r, sd.sec, n, sd.s, sd.o)
			}
		}
	}
	if r.aWrite && r.bWrite {
		return "lost update: the later write discards the earlier one unseen, in either order"
	}
	return "order violation: which critical section runs first decides what the read sees"
}

// atomicity is the note of the atomicity shape whose two sections are k
// (the side of the reported access s) and its neighbor n, which touch
// the pair's location, with the other side's section (o) between them.
func (c *checker) atomicity(r report, k, n int, s, o finding.Site) string {
	first, second := c.ordered(k, n)
	// Who touches the location: the reported access's function and that
	// of the other section's first access to it, which differ where a
	// caller's two calls hold the sections (otel's Clear, then Len).
	who := function(s) + " touches"
	fa, fb := function(s), c.touchedIn(n, r.loc, s)
	if first == n {
		fa, fb = fb, fa
	}
	if fa != fb {
		who = fa + ", then " + fb + ", on one goroutine, touch"
	}
	return fmt.Sprintf("atomicity violation: %s %s in two critical sections (%s), and %s's section can run between them",
		who, s.Expr, c.lockedAt(first, second), function(o))
}

// ordered returns sections a and b, the earlier first.
func (c *checker) ordered(a, b int) (int, int) {
	if c.g.Sections()[b].Begin < c.g.Sections()[a].Begin {
		return b, a
	}
	return a, b
}

// touchedIn names the function of section sec's first access to loc,
// function(def) if the section has none or its site names no function.
func (c *checker) touchedIn(sec int, loc hb.Loc, def finding.Site) string {
	if st, ok := c.firstAccess(sec, func(l hb.Loc) bool { return l == loc }); ok && st.Function != "" {
		return st.Function
	}
	return function(def)
}

// firstAccess returns the site of section sec's first access (of its
// goroutine, in the section) to a location that match accepts.
func (c *checker) firstAccess(sec int, match func(hb.Loc) bool) (trace.Site, bool) {
	s := c.g.Sections()[sec]
	evs := c.g.Goroutines[s.G].Events
	j, _ := slices.BinarySearch(evs, s.Begin)
	for ; j < len(evs) && (s.End < 0 || evs[j] <= s.End); j++ {
		i := evs[j]
		if isAccess(c.g.Events[i].Kind) && match(c.g.Loc(i)) {
			return c.sites.Lookup(c.g.Events[i].Site)
		}
	}
	return trace.Site{}, false
}
