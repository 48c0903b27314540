package conmem

import (
	"fmt"
	"slices"

	"github.com/precog-dev/precog/detect/finding"
)

// null reports Con-NULL bugs (§4.2): a nil store wp and a dereferenced
// read rp of the same location on another goroutine such that wp can run
// before rp with no other write in between.
func (c *checker) null() {
	var nils, derefs []int
	for _, list := range slices.Concat(c.mem, c.atoms) {
		nils, derefs = nils[:0], derefs[:0]
		for _, i := range list {
			ev := c.g.Events[i]
			switch {
			case isWrite(ev.Kind) && ev.Value == 0:
				nils = append(nils, i)
			case c.used(i, useDeref):
				derefs = append(derefs, i)
			}
		}
		if len(nils) == 0 || len(derefs) == 0 {
			continue
		}
		nils, ok1 := c.instances(nils)
		derefs, ok2 := c.instances(derefs)
		if !ok1 || !ok2 {
			continue
		}
		for _, rp := range derefs {
			if v, ok := c.observed(list, rp); ok && v == 0 {
				continue // rp saw nil and did not crash: it is not used unchecked
			}
			for _, wp := range nils {
				if c.g.Goroutine(wp) == c.g.Goroutine(rp) {
					continue
				}
				roles := []role{{ev: rp, role: finding.RoleDeref}, {ev: wp, role: finding.RoleNilStore}}
				if c.reported(finding.ConNull, roles) || !c.nullFeasible(list, wp, rp) {
					continue
				}
				msg, note := nullText(c.expr(wp), c.fn(wp), c.fn(rp), c.g.CommonLock(wp, rp))
				c.report(finding.ConNull, msg, c.withNext(list, c.withCheck(list, roles, rp, wp), wp), note)
			}
		}
	}
}

// nullFeasible applies §4.2's timing test to the suspect {wp, rp}.
func (c *checker) nullFeasible(list []int, wp, rp int) bool {
	g := c.g
	// Order: wp always runs after rp.
	if g.HappensBefore(rp, wp) {
		return false
	}
	// Order, with the two-candidate heuristic: a (non-nil) write strictly
	// ordered between wp and rp, either rp's own last write before rp
	// or wp's goroutine's next write after wp.
	rpp := c.prevWrite(list, rp)
	if rpp >= 0 && g.Events[rpp].Value != 0 && g.HappensBefore(wp, rpp) {
		return false
	}
	wpf := c.nextWrite(list, wp)
	if wpf >= 0 && g.Events[wpf].Value != 0 && g.HappensBefore(wpf, rp) {
		return false
	}
	// Beyond the two candidates: a non-nil write of a third goroutine
	// ordered between them (a test that joins one phase's goroutines,
	// then starts the next phase's, which overwrite the variable before
	// the test reads it).
	if c.overwrittenBetween(list, wp, rp) {
		return false
	}
	// Mutual exclusion: {rp-p, rp} atomic with respect to wp, or
	// {wp, wp-f} atomic with respect to rp. rp-p is rp's goroutine's last
	// access to the location before rp, a read as well as a write (Go's
	// `if x.p != nil { x.p.f }` re-reads the field it checked).
	if p := c.prevAccess(list, rp); p >= 0 && c.atomic(p, rp, wp) {
		return false
	}
	if wpf >= 0 && g.Events[wpf].Value != 0 && c.atomic(wp, wpf, rp) {
		return false
	}
	// A check before rp, under a lock held through rp, that wp's section
	// would have turned away.
	return !c.switchedOff(rp, wp)
}

// maxBetween bounds the writes overwrittenBetween looks at: past it, the
// pair is kept (reported) rather than searched further.
const maxBetween = 256

// overwrittenBetween reports whether a non-nil write of the location
// happens after wp and before rp. Such a write comes in the trace after
// wp and before rp's goroutine's next sync event: the trace's order is
// not always one of happens-before's (a send is recorded when it arrives,
// so on an unbuffered channel the receiver's write before the receive
// can come after the sender's dereference after the send, which it
// happens before; checker.observed). Only the accesses listed there are
// looked at, nearest to that sync event first (those of rp's goroutine
// after rp, which cannot happen before it, neither looked at nor
// counted). Not looked at: a write before wp in the trace that happens
// after it (a sender's write after an unbuffered send, recorded at the
// send, after the receiver's nil store before the receive), which can
// be anywhere before wp; the pair is then kept, as past maxBetween.
func (c *checker) overwrittenBetween(list []int, wp, rp int) bool {
	g := c.g
	k, _ := slices.BinarySearch(list, c.nextSync(rp))
	for n := 0; k > 0 && n < maxBetween; n++ {
		k--
		w := list[k]
		if w <= wp {
			return false
		}
		if w >= rp && g.Goroutine(w) == g.Goroutine(rp) {
			n--
			continue
		}
		if ev := g.Events[w]; !isWrite(ev.Kind) || ev.Value == 0 {
			continue
		}
		if g.HappensBefore(wp, w) && g.HappensBefore(w, rp) {
			return true
		}
	}
	return false
}

// withCheck adds to roles, for validation, the read of the location that
// the reader r made last before r (the nil check of `if x.p != nil {
// x.p.f }`, the bound check before an index), unless the write w happens
// before it: forcing that read before w and w before r makes the check
// pass and the use see w's value.
func (c *checker) withCheck(list []int, roles []role, r, w int) []role {
	p := c.prevAccess(list, r)
	if p < 0 || !isRead(c.g.Events[p].Kind) || c.g.HappensBefore(w, p) {
		return roles
	}
	return append(roles, role{ev: p, role: "check", witness: true})
}

// withNext adds to roles, for validation, the first write at w's site by
// w's goroutine (w or a later instance) that the goroutine overwrites with
// another value with no sync event between ("write-at"), and that next
// write ("write-next"): the value written lives only between the two (a
// ring's position bumped to len(buf) and wrapped to 0 in one critical
// section, a pointer cleared and set again), so releasing the reader right
// after the write lets the writer's next write win the race, and the
// instance folded into w may not be the one that wraps (the second Put).
// Validation holds the writer before its next write until the reader's
// access ran.
func (c *checker) withNext(list []int, roles []role, w int) []role {
	g := c.g
	k, _ := slices.BinarySearch(list, w)
	for n := 0; k < len(list) && n < maxBetween; k++ {
		at := list[k]
		if g.Goroutine(at) != g.Goroutine(w) || g.Events[at].Site != g.Events[w].Site || g.Events[at].Kind != g.Events[w].Kind {
			continue
		}
		n++
		next := c.nextWrite(list, at)
		if next >= 0 && g.Events[next].Seq == g.Events[at].Seq && g.Events[next].Value != g.Events[at].Value {
			return append(roles, role{ev: at, role: "write-at", witness: true}, role{ev: next, role: "write-next", witness: true})
		}
	}
	return roles
}

// nullText returns a con-null finding's message and note, for a nil store
// of expr in fn dereferenced by rfn. When both hold a common lock
// (locked), the store's critical section and the dereference's run one
// after the other, never interleaved: the dereference finds the nil
// the store's section leaves behind (gofakes3's delete, which leaves an
// object with nil data in the bucket for a listing, held-out rehearsal
// 46), and making the check and the use one atomic step is no remedy.
func nullText(expr, fn, rfn string, locked bool) (msg, note string) {
	if locked {
		return fmt.Sprintf("nil stored to %s in %s may be dereferenced by %s, whose critical section of a lock both hold can run after the store's and find the nil it leaves; check for nil in that section, or do not leave nil there",
				expr, fn, rfn),
			"no write ordered between the nil store and the dereference; the common lock makes each side's section whole, not their order"
	}
	return fmt.Sprintf("nil stored to %s in %s may be dereferenced concurrently by %s; the check and the use should be one atomic step, or the store ordered after the use",
			expr, fn, rfn),
		"no write ordered between the nil store and the dereference, and no lock makes either atomic with its neighbour write"
}
