package shim

import (
	"fmt"
	"sync/atomic"
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
	reachedAt int64         // nanotime
	lazy      bool          // passed lazily (passLazily): by its goroutine's next event or a successor after readGrace
	succs     int           // steps that wait for it
	done      chan struct{} // closed when passed
	// letGo is closed when its predecessors have passed and its
	// goroutine goes on (at letAt): a successor waiting for a lazy step
	// then starts its grace rather than waiting for a pass that may
	// never be recorded (the reader returns without another event).
	letGo chan struct{}
	letAt int64 // nanotime; 0 until let go
	// goid: a lazy step's goroutine's runtime id, whose state a
	// successor asks once the grace is over (goroutineState).
	goid uint64
	grp  *fgroup // the group released together with it, if any
	// panicked: its goroutine ended while the release panicked, or
	// panicked before it reached the step (ended)
	// (abandon); it never passes.
	panicked bool
}

// An fgroup is a group of steps released at the same instant
// (plan.Plan.Together).
type fgroup struct {
	members []*fpoint
	arrived int           // under control.mu
	all     chan struct{} // closed when every member has arrived
	running atomic.Int32  // members running again after the release
	leaveAt atomic.Int64  // when they all leave, on nanotime's clock
}

// spinWait is how long a goroutine of a group spins, rather than blocks,
// for the others: a woken goroutine starts microseconds late, longer than
// a map write lasts. leaveSpin bounds the spin after the release.
const (
	spinWait  = 2 * time.Millisecond
	leaveSpin = 10 * time.Millisecond
)

func (f *forceState) load(c *control, edges []plan.Edge, together [][]plan.Point) error {
	f.points = make(map[pointKey]*fpoint)
	get := func(p plan.Point) (*fpoint, error) {
		if p.Site == 0 {
			return nil, fmt.Errorf("force step of goroutine %d at site 0", p.G)
		}
		k := keyOf(p)
		if fp := f.points[k]; fp != nil {
			return fp, nil
		}
		fp := &fpoint{p: p, done: make(chan struct{}), letGo: make(chan struct{})}
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
	for _, pts := range together {
		if len(pts) < 2 {
			return fmt.Errorf("a group of %d steps to release together", len(pts))
		}
		grp := &fgroup{all: make(chan struct{})}
		gs := make(map[uint64]bool)
		for _, pt := range pts {
			fp, err := get(pt)
			if err != nil {
				return err
			}
			if fp.grp != nil {
				return fmt.Errorf("step %s in two groups", pointString(fp.p))
			}
			if gs[pt.G] {
				return fmt.Errorf("two steps of goroutine %d in one group", pt.G)
			}
			gs[pt.G] = true
			fp.grp = grp
			grp.members = append(grp.members, fp)
		}
	}
	f.left = len(f.list)
	return nil
}

// together holds gc at p, a step of a group, until every step of the
// group has arrived, then lets them all go at once. c.mu is held; it is
// released while waiting.
func (f *forceState) together(c *control, gc *gctl, p *fpoint, k trace.Kind) {
	grp := p.grp
	grp.arrived++
	if grp.arrived == len(grp.members) {
		close(grp.all)
		for _, m := range grp.members {
			f.pass(c, m)
		}
	} else if ok, why := c.waitSpin(grp.all); !ok {
		reason := fmt.Sprintf("step %s gave up waiting for the other steps of its group: %s", pointString(p.p), why)
		for _, m := range grp.members {
			if !m.reached {
				reason += "; " + c.describe(m.p)
				break
			}
		}
		c.emit(plan.Record{Event: plan.EvTimeout, Point: pointWithKind(p.p, k), Reason: reason})
		c.timedOut(reason)
		return
	}
	if !p.passed {
		return // the run was decided while it waited
	}
	// Leave together: every member spins until all run again; the last
	// sets a time a few microseconds ahead, and all spin on the clock
	// until then, so that they leave within a clock read of each other.
	c.mu.Unlock()
	if int(grp.running.Add(1)) == len(grp.members) {
		grp.leaveAt.Store(nanotime() + int64(leaveAhead))
	}
	for t0 := nanotime(); grp.leaveAt.Load() == 0 && nanotime()-t0 < int64(leaveSpin); {
	}
	if at := grp.leaveAt.Load(); at > 0 {
		for nanotime() < at {
		}
	}
	c.mu.Lock()
}

// leaveAhead is how far ahead of the last member's return the members of
// a group leave: time for the others to see it.
const leaveAhead = 5 * time.Microsecond

// waitSpin is wait that spins for up to spinWait before it blocks. c.mu
// is held; it is released while waiting.
func (c *control) waitSpin(ch <-chan struct{}) (ok bool, why string) {
	c.mu.Unlock()
	t0 := nanotime()
	for nanotime()-t0 < int64(spinWait) {
		select {
		case <-ch:
			c.used.Add(nanotime() - t0)
			c.mu.Lock()
			return true, ""
		case <-c.giveUp:
			c.used.Add(nanotime() - t0)
			c.mu.Lock()
			return true, ""
		default:
		}
	}
	c.used.Add(nanotime() - t0)
	c.mu.Lock()
	return c.wait(ch)
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
// held. addr is what the step's operation touches: the "reached" line
// names it, with the collections counted so far (gcEpoch), so that the
// driver can tell whether two forced accesses touched one piece of memory
// (a forced run records no trace).
func (f *forceState) arrive(c *control, gc *gctl, pt plan.Point, k trace.Kind, addr uintptr) {
	p := f.points[keyOf(pt)]
	if p == nil || p.reached {
		return
	}
	p.reached, p.reachedAt = true, nanotime()
	rec := plan.Record{Event: plan.EvReached, Point: pointWithKind(p.p, k), Addr: uint64(addr)}
	if addr != 0 {
		rec.Epoch = gcEpoch.Load()
	}
	c.emit(rec)
	if c.final {
		return // late, after a wait gave up: evidence for the driver
	}
	for _, a := range p.preds {
		woken := false // by a's letGo: this goroutine waited before a was let go
		var held int64 // when a's goroutine was first seen able to run after a's grace
		check := lazyCheckMin
		for !a.passed && !c.final {
			if a.p.G == gc.id {
				c.finish(plan.Diverged, fmt.Sprintf("step %s waits for step %s of its own goroutine, which it has not passed",
					pointString(p.p), pointString(a.p)))
				return
			}
			if ga := c.gs[a.p.G]; ga != nil && ga.ended && !a.panicked {
				c.finish(plan.Diverged, fmt.Sprintf("step %s waits for step %s, but %s", pointString(p.p), pointString(a.p), c.describe(a.p)))
				return
			}
			if a.lazy {
				g := readGrace
				if woken {
					g = wokenGrace
				}
				if grace := g - time.Duration(nanotime()-a.letAt); grace > 0 {
					c.waitFor(a.done, grace)
					continue
				}
				// a's goroutine made no event since its read was
				// let go: it may still be on its way to the load.
				t0 := nanotime()
				st, status := c.readerState(a.goid)
				cost := time.Duration(nanotime() - t0)
				if a.passed || c.final {
					continue
				}
				if st != readerMayRun {
					why := "its goroutine has ended"
					if st == readerBlocked {
						why = "its goroutine is blocked (" + status + ") where control sees nothing"
					}
					f.passBy(c, a, "passed by a successor after its grace: "+why)
					continue
				}
				now := nanotime()
				if held == 0 {
					held = now
				}
				d := min(check, c.timeout-time.Duration(now-held), time.Duration(c.budget-c.used.Load()))
				if d <= 0 {
					why := "waited " + c.timeout.String()
					if left := time.Duration(c.budget - c.used.Load()); left <= 0 {
						why = "the control budget of " + time.Duration(c.budget).String() + " ran out"
					}
					if status == "" {
						status = "of unknown state"
					}
					reason := fmt.Sprintf("step %s gave up waiting for step %s: %s; its goroutine was %s, without another event since the read, so it may not have loaded the value it read; %s",
						pointString(p.p), pointString(a.p), why, status, c.describe(a.p))
					c.emit(plan.Record{Event: plan.EvTimeout, Point: pointWithKind(p.p, k), Before: &a.p, Reason: reason})
					c.timedOut(reason)
					return
				}
				if testHookLazyHeld != nil {
					testHookLazyHeld(status)
				}
				c.waitFor(a.done, d)
				check = max(min(2*check, lazyCheckMax), lazyCheckCost*cost)
				continue
			}
			// Until a is let go, wait for that: a lazy step is then
			// waited for its grace only. Let go and not lazy, it
			// passes with its operation.
			ch := a.letGo
			if a.letAt != 0 {
				ch = a.done
			} else {
				woken = true
			}
			if ok, why := c.wait(ch); !ok {
				reason := fmt.Sprintf("step %s gave up waiting for step %s: %s; %s", pointString(p.p), pointString(a.p), why, c.describe(a.p))
				if a.panicked {
					reason += "; the release at its step panicked"
				}
				c.emit(plan.Record{Event: plan.EvTimeout, Point: pointWithKind(p.p, k), Before: &a.p, Reason: reason})
				c.timedOut(reason)
				return
			}
		}
	}
	if c.final {
		return
	}
	if p.grp != nil {
		f.together(c, gc, p, k)
		return
	}
	// A send that a step waits for passes once its value is in the
	// channel, or, if it would block, just before it blocks (Send): a
	// successor let go at arrival could close the channel or find it
	// empty before the send. Inside a synctest bubble it passes at
	// arrival still (Send's try would run outside the bubble's clock).
	send := k == trace.EvChanSend && p.succs > 0 && !gc.bubble
	// A lazy step that no step waits for is passed at once: the last
	// step of a plan is often the access that crashes.
	if (passAtArrival(k) && !send) || (passLazily(k) && p.succs == 0) {
		f.pass(c, p)
		return
	}
	p.lazy = passLazily(k)
	if p.lazy {
		p.goid = goid()
	}
	gc.pending, gc.release, gc.send = p, releasedAfter(k) || send, send
	p.let()
}

// releasedAfter reports whether a step of kind k is a release recorded
// before it happens and passed once it returned (releaseBefore).
func releasedAfter(k trace.Kind) bool {
	switch k {
	case trace.EvUnlock, trace.EvRUnlock, trace.EvWGAdd, trace.EvWGDone, trace.EvCondSignal, trace.EvCondBroadcast, trace.EvChanClose:
		return true
	}
	return false
}

// abandon notes that p, a release whose goroutine ended before the
// release returned, never passes: the release panicked. Its successors
// keep waiting (until their timeout, or the panic ends the process) rather
// than seeing its goroutine's end as a divergence and going on. c.mu is
// held.
func (f *forceState) abandon(p *fpoint) {
	p.panicked = true
}

// let marks p let go, once. c.mu is held.
func (p *fpoint) let() {
	if p.letAt == 0 {
		p.letAt = nanotime()
		close(p.letGo)
	}
}

// readerState returns the state of the goroutine of runtime id id
// (goroutineState). c.mu is held; it is released meanwhile, so that the
// goroutine, if it is at its next event and waits for c.mu, passes its step
// itself (which orders its load before the successor for the race detector
// too).
func (c *control) readerState(id uint64) (readerState, string) {
	c.mu.Unlock()
	c.stackMu.Lock()
	st, status := goroutineState(id, &c.stackBuf)
	c.stackMu.Unlock()
	c.mu.Lock()
	return st, status
}

// lazyCheckMin and lazyCheckMax bound the backoff between two looks at
// the state of a lazy step's goroutine after its grace. goroutineState
// stops the world while it prints every goroutine's stack (about 3ms
// for 1,000 goroutines, 100ms for 10,000, 0.9s for 100,000, at load 17), so
// the next look also waits lazyCheckCost times as long as the last took:
// the program under test runs at least nine tenths of the time.
const (
	lazyCheckMin  = time.Millisecond
	lazyCheckMax  = 64 * time.Millisecond
	lazyCheckCost = 10
)

// testHookLazyHeld, if set (by tests only), runs when a successor found a
// lazy step's goroutine able to run after the grace and goes on waiting
// for it. c.mu is held.
var testHookLazyHeld func(status string)

// pass marks p passed and lets its successors go. c.mu is held.
func (f *forceState) pass(c *control, p *fpoint) { f.passBy(c, p, "") }

// passBy is pass, with why its "passed" line says, if not by its own
// goroutine. c.mu is held.
func (f *forceState) passBy(c *control, p *fpoint, why string) {
	if p.passed {
		return
	}
	p.passed = true
	p.let()
	close(p.done)
	f.left--
	c.emit(plan.Record{Event: plan.EvPassed, Point: &p.p, Seq: seqs.n.Add(1), WaitUS: time.Duration(nanotime() - p.reachedAt).Microseconds(), Reason: why})
	if f.left == 0 && (!c.replaying || c.replay.off) {
		c.finish(plan.Confirmed, "")
	}
}

// ended checks the steps of gc, which ended. c.mu is held; gc's own
// goroutine calls it, from its End.
func (f *forceState) ended(c *control, gc *gctl) {
	for _, p := range f.list {
		if p.p.G == gc.id && !p.reached {
			if panicking() {
				// End, which the rewritten goroutine defers first,
				// runs last: nothing is left to recover the panic,
				// and the process dies of it. The crash came while
				// the order held: the held goroutines stay held, and
				// one that arrives later waits too (panicked).
				p.panicked = true
				c.emit(plan.Record{Event: plan.EvPanicked, Point: &p.p, Reason: fmt.Sprintf("goroutine %d panicked before reaching step %s", gc.id, pointString(p.p))})
				return
			}
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
