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
}

func (r *replayState) load(c *control, order []plan.Point) error {
	r.order = order
	r.index = make(map[pointKey]int, len(order))
	r.last = make(map[uint64]int)
	r.advanced = make(chan struct{})
	for i, p := range order {
		if p.Site == 0 {
			return fmt.Errorf("replay position %d at site 0", i)
		}
		if j, dup := r.index[keyOf(p)]; dup {
			return fmt.Errorf("replay positions %d and %d are both %s", j, i, pointString(p))
		}
		r.index[keyOf(p)] = i
		r.last[p.G] = i
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
	if _, ok := r.last[gc.id]; !ok {
		return // not in the order: free
	}
	i, ok := r.index[keyOf(pt)]
	if !ok {
		c.finish(plan.Diverged, fmt.Sprintf("%s (%s) is not in the order; the replay got to position %d of %d",
			pointString(pt), k, r.pos, len(r.order)))
		return
	}
	if want := r.order[i].Kind; want != "" && want != k.String() {
		c.finish(plan.Diverged, fmt.Sprintf("%s is %s, the order has %s there; the replay got to position %d of %d",
			pointString(pt), k, want, r.pos, len(r.order)))
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

// waitTurn waits until position i is next. c.mu is held.

func (r *replayState) waitTurn(c *control, i int) bool {
	for !c.final && r.pos < i {
		if ok, why := c.wait(r.advanced); !ok {
			next := r.order[r.pos]
			reason := fmt.Sprintf("position %d %s gave up waiting for position %d %s: %s; %s",
				i, pointString(r.order[i]), r.pos, pointString(next), why, c.describe(next))
			c.emit(plan.Record{Event: plan.EvTimeout, Point: &r.order[i], Before: &next, Pos: r.pos, Of: len(r.order), Reason: reason})
			c.timedOut(reason)
			return false
		}
	}
	return !c.final
}

// finishIfDone writes the final state once every position has passed.
// c.mu is held.
func (r *replayState) finishIfDone(c *control) {
	if r.pos == len(r.order) {
		c.finish(plan.Confirmed, "")
	}
}

// waitBlocked waits until every blocking position before i has arrived or
// passed. c.mu is held.
func (r *replayState) waitBlocked(c *control, i int) bool {
	waited := false
	for !c.final {
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
	return !c.final
}

// changed wakes the goroutines waiting for a change of the replay's state.
func (r *replayState) changed() {
	close(r.advanced)
	r.advanced = make(chan struct{})
}

// advance passes position i. c.mu is held.
func (r *replayState) advance(c *control, i int) {
	if c.final || r.pos != i {
		return
	}
	r.pos++
	r.changed()
	c.emit(plan.Record{Event: plan.EvPassed, Point: &r.order[i], Seq: seqs.n.Add(1), Pos: i, Of: len(r.order)})
	r.finishIfDone(c)
}

// ended checks that gc, which ended, has no position left. c.mu is held.
func (r *replayState) ended(c *control, gc *gctl) {
	if last, ok := r.last[gc.id]; ok && last >= r.pos {
		c.finish(plan.Diverged, fmt.Sprintf("goroutine %d ended before reaching position %d %s; the replay got to position %d of %d",
			gc.id, last, pointString(r.order[last]), r.pos, len(r.order)))
	}
}
