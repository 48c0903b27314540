package conmem

import (
	"fmt"
	"slices"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/shim/trace"
)

// index reports Con-Overflow bugs (§4.5): a data race, concurrent and
// with no common lock, between a read whose value feeds an index or slice
// bound (or is the slice indexed) and another goroutine's write of the same
// location. The instrumenter's static analysis marks those reads
// (trace.UseIndex), in place of the paper's second, dependence-tracking
// run.
func (c *checker) index() {
	var reads, writes []int
	for _, list := range c.mem {
		reads, writes = reads[:0], writes[:0]
		for _, i := range list {
			switch {
			case c.g.Events[i].Kind == trace.EvWrite:
				writes = append(writes, i)
			case c.used(i, useIndex):
				reads = append(reads, i)
			}
		}
		if len(reads) == 0 || len(writes) == 0 {
			continue
		}
		reads, ok1 := c.instances(reads)
		writes, ok2 := c.instances(writes)
		if !ok1 || !ok2 {
			continue
		}
		for _, r := range reads {
			for _, w := range writes {
				if c.g.Goroutine(r) == c.g.Goroutine(w) {
					continue
				}
				roles := []role{{ev: r, role: finding.RoleIndex}, {ev: w, role: finding.RoleWrite}}
				if c.reported(finding.ConIndex, roles) || !c.g.Concurrent(r, w) || c.g.CommonLock(r, w) {
					continue
				}
				c.report(finding.ConIndex,
					fmt.Sprintf("%s used as an index or bound in %s may be changed concurrently by %s with no common lock: index or slice bounds out of range",
						c.expr(r), c.fn(r), c.fn(w)), c.withNext(list, c.withLast(list, c.withCheck(list, roles, r, w), r, w), w),
					"the read and the write are concurrent and hold no common lock")
			}
		}
	}
}

// withLast adds to roles, for validation, the last read at r's site that
// instances folded into r (the last iteration of a loop that indexes with
// the location, with no sync event since r) and its check: forcing the
// write in a later iteration is what makes a slice bound go past a value
// the loop already used (cherokee's [sent:len] with len reset to 0).
func (c *checker) withLast(list []int, roles []role, r, w int) []role {
	evs := c.g.Goroutines[c.g.Goroutine(r)].Events
	k, _ := slices.BinarySearch(evs, r)
	last := r
	for ; k < len(evs) && c.g.Events[evs[k]].Seq == c.g.Events[r].Seq; k++ {
		if e := c.g.Events[evs[k]]; e.Site == c.g.Events[r].Site && e.Kind == trace.EvRead {
			last = evs[k]
		}
	}
	if last == r {
		return roles
	}
	roles = append(roles, role{ev: last, role: "index-last", witness: true})
	if p := c.prevAccess(list, last); p >= 0 && p != r && c.g.Events[p].Kind == trace.EvRead && !c.g.HappensBefore(w, p) {
		roles = append(roles, role{ev: p, role: "check-last", witness: true})
	}
	return roles
}
