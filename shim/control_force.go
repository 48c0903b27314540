package shim

import (
	"fmt"
	"time"

	"github.com/precog-dev/precog/shim/plan"
	"github.com/precog-dev/precog/shim/trace"
)

// forceState is the force mode's partial order, under control.mu.
type forceState struct {
	points map[pointKey]*fpoint
	list   []*fpoint // in the order the plan names them, for deterministic reports
	left   int       // steps not passed yet
}

// An fpoint is one step of the order.
type fpoint struct {
	p         plan.Point
	preds     []*fpoint
	reached   bool
	passed    bool
	reachedAt time.Time
	lazy      bool          // passed lazily (passLazily): by its goroutine's next event or a successor after readGrace
	succs     int           // steps that wait for it
	done      chan struct{} // closed when passed
}

func (f *forceState) load(c *control, edges []plan.Edge) error {
	f.points = make(map[pointKey]*fpoint)
	get := func(p plan.Point) (*fpoint, error) {
		if p.Site == 0 {
			return nil, fmt.Errorf("force step of goroutine %d at site 0", p.G)
		}
		k := keyOf(p)
		if fp := f.points[k]; fp != nil {
			return fp, nil
		}
		fp := &fpoint{p: p, done: make(chan struct{})}
		f.points[k] = fp
		f.list = append(f.list, fp)
		c.name(p.Site)
		return fp, nil
	}
	for _, e := range edges {
		a, err := get(e.Before)
		if err != nil {
			return err
		}
		b, err := get(e.After)
		if err != nil {
			return err
		}
		if a == b {
			return fmt.Errorf("force edge from step %s to itself", pointString(a.p))
		}
		b.preds = append(b.preds, a)
		a.succs++
	}
	if p := f.cycle(); p != nil {
		return fmt.Errorf("force edges form a cycle through step %s", pointString(p.p))
	}
	f.left = len(f.list)
	return nil
}

// cycle returns a step on a cycle of the order, or nil.
func (f *forceState) cycle() *fpoint {
	const (
		unseen = iota
		open
		closed
	)
	state := make(map[*fpoint]int)
	var visit func(p *fpoint) *fpoint
	visit = func(p *fpoint) *fpoint {
		switch state[p] {
		case open:
			return p
		case closed:
			return nil
		}
		state[p] = open
		for _, a := range p.preds {
			if q := visit(a); q != nil {
				return q
			}
		}
		state[p] = closed
		return nil
	}
	for _, p := range f.list {
		if q := visit(p); q != nil {
			return q
		}
	}
	return nil
}

// arrive holds gc at step pt until its predecessors have passed. c.mu is
// held.
func (f *forceState) arrive(c *control, gc *gctl, pt plan.Point, k trace.Kind) {
	p := f.points[keyOf(pt)]
	if p == nil || p.reached {
		return
	}
	p.reached, p.reachedAt = true, time.Now()
	c.emit(plan.Record{Event: plan.EvReached, Point: pointWithKind(p.p, k)})
	if c.final {
		return // late, after a wait gave up: evidence for the driver
	}
	for _, a := range p.preds {
		for !a.passed && !c.final {
			if a.p.G == gc.id {
				c.finish(plan.Diverged, fmt.Sprintf("step %s waits for step %s of its own goroutine, which it has not passed",
					pointString(p.p), pointString(a.p)))
				return
			}
			if ga := c.gs[a.p.G]; ga != nil && ga.ended {
				c.finish(plan.Diverged, fmt.Sprintf("step %s waits for step %s, but %s", pointString(p.p), pointString(a.p), c.describe(a.p)))
				return
			}
			if a.reached && a.lazy {
				if grace := readGrace - time.Since(a.reachedAt); grace > 0 {
					c.waitFor(a.done, grace)
				} else {
					// a's goroutine made its access and went on
					// without another event.
					f.pass(c, a)
				}
				continue
			}
			if ok, why := c.wait(a.done); !ok {
				reason := fmt.Sprintf("step %s gave up waiting for step %s: %s; %s", pointString(p.p), pointString(a.p), why, c.describe(a.p))
				c.emit(plan.Record{Event: plan.EvTimeout, Point: pointWithKind(p.p, k), Before: &a.p, Reason: reason})
				c.finish(plan.TimedOut, reason)
				return
			}
		}
	}
	if c.final {
		return
	}
	// A lazy step that no step waits for is passed at once: the last
	// step of a plan is often the access that crashes.
	if passAtArrival(k) || (passLazily(k) && p.succs == 0) {
		f.pass(c, p)
		return
	}
	p.lazy = passLazily(k)
	gc.pending = p
}

// pass marks p passed and lets its successors go. c.mu is held.
func (f *forceState) pass(c *control, p *fpoint) {
	if p.passed {
		return
	}
	p.passed = true
	close(p.done)
	f.left--
	c.emit(plan.Record{Event: plan.EvPassed, Point: &p.p, Seq: seqs.n.Add(1), WaitUS: time.Since(p.reachedAt).Microseconds()})
	if f.left == 0 {
		c.finish(plan.Confirmed, "")
	}
}

// ended checks the steps of gc, which ended. c.mu is held.
func (f *forceState) ended(c *control, gc *gctl) {
	for _, p := range f.list {
		if p.p.G == gc.id && !p.reached {
			c.finish(plan.Diverged, fmt.Sprintf("goroutine %d ended before reaching step %s: %s", gc.id, pointString(p.p), c.describe(p.p)))
			return
		}
	}
}

func pointString(p plan.Point) string {
	return fmt.Sprintf("(g %d, site %d, n %d)", p.G, p.Site, p.N)
}

func pointWithKind(p plan.Point, k trace.Kind) *plan.Point {
	p.Kind = k.String()
	return &p
}
