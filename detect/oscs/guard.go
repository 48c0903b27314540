package oscs

import (
	"slices"

	"github.com/precog-dev/precog/detect/hb"
	"github.com/precog-dev/precog/shim/trace"
)

// The two Go-specific filters of doc.go ("What changed for Go"): a lazy
// initialization against a reader that does not dereference the location
// unchecked, and a nil store against a reader that checks for nil and
// dereferences in the same critical section.

// writeRead returns the write and the read of a write-read pair; ok is
// false for two writes.
func writeRead(p rec, pWrite bool, cur rec, cWrite bool) (w, r rec, ok bool) {
	switch {
	case pWrite && !cWrite:
		return p, cur, true
	case cWrite && !pWrite:
		return cur, p, true
	}
	return none, none, false
}

// lazyInit reports whether the pair is an initialization on first use
// against a reader that copes with either order: the write is a lazy
// initialization (rec.init: its critical section read the location, saw
// the zero value, and stored a non-zero one) of a pointer-shaped location
// (pointer), and the read's critical
// section does not begin its use of the location with a dereference
// without a nil check (trace.UseDeref). Whichever section runs first
// initializes; a reader that came first would have seen the zero value
// and checked it.
func (c *checker) lazyInit(p rec, pWrite bool, cur rec, cWrite bool, loc hb.Loc) bool {
	w, r, ok := writeRead(p, pWrite, cur, cWrite)
	if !ok || !w.init || !c.pointer(loc) {
		return false
	}
	return !c.sectionUse(r, loc).firstDeref
}

// pointer reports whether some read of loc in the trace is dereferenced
// (trace.UseDeref), which makes it a pointer, map, func or interface: the
// shape of a lazily made object, and not that of a counter or a maximum
// whose first update also reads zero and writes non-zero (Fig. 5).
func (c *checker) pointer(loc hb.Loc) bool {
	if c.derefLocs == nil {
		c.derefLocs = make(map[hb.Loc]bool)
		for i := range c.g.Events {
			if ev := &c.g.Events[i]; ev.Kind == trace.EvRead && c.derefSite(ev.Site) {
				c.derefLocs[c.g.Loc(i)] = true
			}
		}
	}
	return c.derefLocs[loc]
}

// nilGuarded reports whether the pair is a nil store against a reader
// that handles nil: the write stores zero, and the read's critical section
// first reads the location without dereferencing it (a nil check) and
// then, in the same critical section, dereferences it (the location is a
// pointer, and its use is under the lock with the check); when the section
// found nil and skipped its use, a dereference of the same expression
// between the check and the Unlock in the source stands for it
// (derefAfter). The reader sees
// nil and skips, or sees the pointer and uses it with the store held off.
// A section that checks and lets go of the lock before the use (MySQL-2)
// has no dereference in it and stays reported, as does one that
// dereferences first (Mozilla-1's compile).
func (c *checker) nilGuarded(p rec, pWrite bool, cur rec, cWrite bool, loc hb.Loc) bool {
	w, r, ok := writeRead(p, pWrite, cur, cWrite)
	if !ok || w.val != 0 {
		return false
	}
	u := c.sectionUse(r, loc)
	if !u.firstRead || u.firstDeref {
		return false
	}
	return u.deref || c.derefAfter(r.sec, u.firstSite)
}

// derefAfter is nilGuarded's evidence when the section did not dereference
// the location in this run (it found nil and skipped its use): a read site
// of the same expression in the same function, marked trace.UseDeref,
// after the check and, in the source, before the Unlock that ended the
// section (or anywhere after the check, when that Unlock is not later in
// the same function: a deferred Unlock, or one in a caller).
func (c *checker) derefAfter(sec int32, check uint32) bool {
	chk, ok := c.sites.Lookup(check)
	if !ok {
		return false
	}
	var end trace.Site
	bounded := false
	if e := c.g.Sections()[sec].End; e >= 0 {
		end, bounded = c.sites.Lookup(c.g.Events[e].Site)
		bounded = bounded && end.File == chk.File && end.Function == chk.Function && before(chk, end)
	}
	if c.derefSites == nil {
		c.derefSites = make(map[siteKey][]trace.Site)
		for _, st := range c.sites.Sites {
			if st.Kind == "read" && st.Used(trace.UseDeref) {
				k := siteKey{st.File, st.Function, st.Expr}
				c.derefSites[k] = append(c.derefSites[k], st)
			}
		}
	}
	for _, d := range c.derefSites[siteKey{chk.File, chk.Function, chk.Expr}] {
		if before(chk, d) && (!bounded || before(d, end)) {
			return true
		}
	}
	return false
}

// siteKey groups the sites of one expression in one function.
type siteKey struct{ file, function, expr string }

// before reports whether site a comes before site b in the same file.
func before(a, b trace.Site) bool {
	return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col
}

// sectionUse returns how r's critical section (its goroutine's outermost
// one open at r, with the sections nested in it) uses loc, scanning the
// section's events once for all its locations.
func (c *checker) sectionUse(r rec, loc hb.Loc) secUse {
	if r.sec < 0 {
		return secUse{}
	}
	uses, ok := c.secUses[r.sec]
	if !ok {
		uses = make(map[hb.Loc]secUse)
		s := c.g.Sections()[r.sec]
		evs := c.g.Goroutines[s.G].Events
		k, _ := slices.BinarySearch(evs, s.Begin)
		for ; k < len(evs) && (s.End < 0 || evs[k] <= s.End); k++ {
			i := evs[k]
			ev := &c.g.Events[i]
			if !isAccess(ev.Kind) {
				continue
			}
			l := c.g.Loc(i)
			u, seen := uses[l]
			read := ev.Kind == trace.EvRead
			deref := read && c.derefSite(ev.Site)
			if !seen {
				u.firstRead, u.firstDeref, u.firstSite = read, deref, ev.Site
			}
			u.deref = u.deref || deref
			uses[l] = u
		}
		c.secUses[r.sec] = uses
	}
	return uses[loc]
}

func (c *checker) derefSite(id uint32) bool {
	d, ok := c.derefs[id]
	if !ok {
		s, found := c.sites.Lookup(id)
		d = found && s.Used(trace.UseDeref)
		c.derefs[id] = d
	}
	return d
}
