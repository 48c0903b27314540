package shim

import (
	"fmt"
	"runtime"

	"github.com/precog-dev/precog/shim/plan"
	"github.com/precog-dev/precog/shim/trace"
)

// replayState is the replay mode's order, under control.mu.
type replayState struct {
	order    []plan.Point
	index    map[pointKey]int
	last     map[uint64]int // each goroutine's last position in the order
	pos      int            // the next position to pass
	advanced chan struct{}  // closed and replaced whenever pos moves or a blocking position arrives

	// The positions of blocking operations (waitAtRecord), in order, and
	// which have arrived; blocked indexes the first that has neither
	// arrived nor passed.
	blocking []int
	arrived  map[int]bool
	blocked  int

	// soft: the order of a force plan (plan.Plan.Until), which the run
	// follows as long as it can: leaving it lets it go (off) rather than
	// ending the run. until is how many positions are followed (all in
	// replay mode); lastIn is each goroutine's last position before it.
	soft   bool
	until  int
	off    bool
	lastIn map[uint64]int
	hold   map[uint64]bool // soft: goroutines with no position, held until off (plan.Plan.Hold)
}

func (r *replayState) load(c *control, order []plan.Point, until int, soft bool) error {
	r.order = order
	r.index = make(map[pointKey]int, len(order))
	r.last = make(map[uint64]int)
	r.lastIn = make(map[uint64]int)
	r.advanced = make(chan struct{})
	r.soft, r.until = soft, len(order)
	if soft && until > 0 && until < len(order) {
		r.until = until
	}
	for i, p := range order {
		if p.Site == 0 {
			return fmt.Errorf("replay position %d at site 0", i)
		}
		if j, dup := r.index[keyOf(p)]; dup {
			return fmt.Errorf("replay positions %d and %d are both %s", j, i, pointString(p))
		}
		r.index[keyOf(p)] = i
		r.last[p.G] = i
		if i < r.until {
			r.lastIn[p.G] = i
		}
		c.name(p.Site)
		if blockingName(p.Kind) {
			r.blocking = append(r.blocking, i)
		}
	}
	r.arrived = make(map[int]bool)
	if len(order) == 0 {
		return fmt.Errorf("replay plan with an empty order")
	}
	return nil
}

// waitAtRecord reports whether the turn of an event of kind k is awaited
// when it is recorded, after the operation, rather than at arrival: the
// operation blocks until another goroutine's later event in the order (a
// receive waits for its send, and the events between them in the order
// happened while the receiver was blocked).
func waitAtRecord(k trace.Kind) bool {
	for _, b := range blockingKinds {
		if k == b {
			return true
		}
	}
	return false
}

var blockingKinds = [...]trace.Kind{trace.EvChanRecv, trace.EvSelect, trace.EvWGWait, trace.EvCondWait}

// blockingName reports whether name is the name of a kind waitAtRecord
// accepts.
func blockingName(name string) bool {
	for _, b := range blockingKinds {
		if b.String() == name {
			return true
		}
	}
	return false
}

// arrive holds gc at pt until pt is the next position of the order. c.mu is
// held.
func (r *replayState) arrive(c *control, gc *gctl, pt plan.Point, k trace.Kind) {
	if r.off || !k.IsSync() {
		return // let go, or a memory access a force plan named: not ordered
	}
	last, ok := r.last[gc.id]
	if !ok {
		if r.soft && r.hold[gc.id] {
			r.waitOff(c, pt) // all it did came after the order
		}
		return // not in the order: free
	}
	i, ok := r.index[keyOf(pt)]
	if !ok && r.soft && last < r.pos {
		// The goroutine has passed all its positions: the recorded
		// run ended (or crashed) before this point, which comes after
		// the whole order.
		r.waitOff(c, pt)
		return
	}
	if !ok {
		r.diverge(c, pt, fmt.Sprintf("%s (%s) is not in the order; the replay got to position %d of %d",
			pointString(pt), k, r.pos, r.until))
		return
	}
	if want := r.order[i].Kind; want != "" && want != k.String() && !(want == casFailed && k == trace.EvAtomicStore) {
		r.diverge(c, pt, fmt.Sprintf("%s is %s, the order has %s there; the replay got to position %d of %d",
			pointString(pt), k, want, r.pos, r.until))
		return
	}
	if i >= r.until {
		// After the positions to follow: it came after them in the
		// recorded run, so it waits until they have passed.
		r.waitTurn(c, i)
		return
	}
	gc.replay = i
	if waitAtRecord(k) {
		// The operation's turn comes after it, but the goroutines
		// blocked in operations like it queue up in the order they
		// arrive (a channel's receivers, a Cond's waiters): they enter
		// in the order of their events.
		if !r.waitBlocked(c, i) {
			return
		}
		r.arrived[i] = true
		r.changed()
		gc.turnAt = true
		return
	}
	if !r.waitTurn(c, i) {
		return
	}
	if passAtArrival(k) {
		gc.replay = -1
		r.advance(c, i)
	}
}

// casFailed is the kind a compare-and-swap that failed records, at a site
// whose gate it passed as a store (the shim's AtomicCompareAndSwap*).
var casFailed = trace.EvAtomicLoad.String()

// waitOff holds a goroutine of a force plan's order at pt, a point after
// the order, until the order is let go. c.mu is held.
func (r *replayState) waitOff(c *control, pt plan.Point) {
	for !c.final && !r.off {
		if ok, why := c.wait(r.advanced); !ok {
			next := r.order[r.pos]
			r.leave(c, pt, fmt.Sprintf("%s, after the order, gave up waiting for position %d %s: %s; %s",
				pointString(pt), r.pos, pointString(next), why, c.describe(next)))
			return
		}
	}
}

// waitTurn waits until position i is next. c.mu is held.

func (r *replayState) waitTurn(c *control, i int) bool {
	for !c.final && !r.off && r.pos < i {
		if ok, why := c.wait(r.advanced); !ok {
			next := r.order[r.pos]
			reason := fmt.Sprintf("position %d %s gave up waiting for position %d %s: %s; %s",
				i, pointString(r.order[i]), r.pos, pointString(next), why, c.describe(next))
			if r.soft {
				r.leave(c, r.order[i], reason)
				return false
			}
			c.emit(plan.Record{Event: plan.EvTimeout, Point: &r.order[i], Before: &next, Pos: r.pos, Of: len(r.order), Reason: reason})
			c.timedOut(reason)
			return false
		}
	}
	return !c.final && !r.off
}

// diverge ends the replay because the run did something the order does
// not have, at pt: the run diverged, or for a force plan's order, it is
// let go. c.mu is held.
func (r *replayState) diverge(c *control, pt plan.Point, reason string) {
	if r.soft {
		r.leave(c, pt, reason)
		return
	}
	c.finish(plan.Diverged, reason)
}

// leave lets a force plan's order go where the run left it, at pt. c.mu
// is held.
func (r *replayState) leave(c *control, pt plan.Point, reason string) {
	if r.off {
		return
	}
	r.off = true
	r.changed()
	var at *plan.Point
	if pt.Site != 0 {
		at = &pt
	}
	c.emit(plan.Record{Event: plan.EvLeft, Point: at, Pos: r.pos, Of: r.until, Reason: reason})
	c.replayOff()
}

// finishIfDone writes the final state once every position has passed.
// c.mu is held.
func (r *replayState) finishIfDone(c *control) {
	if r.soft && r.pos == r.until {
		r.off = true
		r.changed()
		c.emit(plan.Record{Event: plan.EvReplayed, Pos: r.pos, Of: r.until})
		c.replayOff()
		return
	}
	if r.pos == len(r.order) {
		c.finish(plan.Confirmed, "")
	}
}

// waitBlocked waits until every blocking position before i has arrived or
// passed. c.mu is held.
func (r *replayState) waitBlocked(c *control, i int) bool {
	waited := false
	for !c.final && !r.off {
		for r.blocked < len(r.blocking) && (r.blocking[r.blocked] < r.pos || r.arrived[r.blocking[r.blocked]]) {
			r.blocked++
		}
		if r.blocked == len(r.blocking) || r.blocking[r.blocked] >= i {
			break
		}
		j := r.blocking[r.blocked]
		if ok, why := c.wait(r.advanced); !ok {
			reason := fmt.Sprintf("position %d %s gave up waiting for position %d %s to block first: %s; %s",
				i, pointString(r.order[i]), j, pointString(r.order[j]), why, c.describe(r.order[j]))
			if r.soft {
				r.leave(c, r.order[i], reason)
				return false
			}
			c.emit(plan.Record{Event: plan.EvTimeout, Point: &r.order[i], Before: &r.order[j], Pos: r.pos, Of: len(r.order), Reason: reason})
			c.timedOut(reason)
			return false
		}
		waited = true
	}
	if waited && !c.final {
		// Let the goroutine that arrived before enter its operation.
		c.mu.Unlock()
		runtime.Gosched()
		c.mu.Lock()
	}
	return !c.final && !r.off
}

// changed wakes the goroutines waiting for a change of the replay's state.
func (r *replayState) changed() {
	close(r.advanced)
	r.advanced = make(chan struct{})
}

// advance passes position i. c.mu is held.
func (r *replayState) advance(c *control, i int) {
	if c.final || r.off || r.pos != i {
		return
	}
	r.pos++
	r.changed()
	c.emit(plan.Record{Event: plan.EvPassed, Point: &r.order[i], Seq: seqs.n.Add(1), Pos: i, Of: r.until})
	r.finishIfDone(c)
}

// ended checks that gc, which ended, has no position left. c.mu is held.
func (r *replayState) ended(c *control, gc *gctl) {
	if last, ok := r.lastIn[gc.id]; ok && last >= r.pos && !r.off {
		r.diverge(c, plan.Point{}, fmt.Sprintf("goroutine %d ended before reaching position %d %s; the replay got to position %d of %d",
			gc.id, last, pointString(r.order[last]), r.pos, r.until))
	}
}
