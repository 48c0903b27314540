package oscs

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/detect/hb"
	"github.com/precog-dev/precog/shim/trace"
)

// waitUses reports the atomicity violation that a sync.Cond waited once
// rather than in a loop hides inside one critical section of the source:
//
//	q.mu.Lock()
//	if len(q.items) == 0 { // the check
//		q.cond.Wait()  // unlocks q.mu while it sleeps, locks it again
//	}
//	s := q.items[0]    // the use: no check since Wait returned
//
// hb keeps a Cond's lock held through Wait (its lock sets are the
// source's), so the check and the use look like one section to the pair
// walk, and the location is a cond flag besides (CondFlagEdges), whose
// accesses the walk takes for synchronization. Wait is two sections: the
// check's, which ends when Wait unlocks, and the use's, which begins when
// it has locked again. Between the two, any goroutine can take the lock:
// another waiter woken by the same Broadcast, or one that did not wait.
//
// A goroutine G is reported when, in the trace:
//
//   - G reads a location L in a critical section and then waits on a Cond
//     with no other sync event between (as CondFlagEdges' waiters), and
//     the read is not itself dereferenced or indexed (the condition, not
//     a use);
//   - G's first access of L after Wait returns, before its next sync
//     event, is a read that is dereferenced or indexed (trace.UseDeref,
//     UseIndex) and decides no branch or loop exit: the use, with the
//     condition not evaluated again (a `for` loop's re-check is a
//     loop-exit read and keeps G silent);
//   - another goroutine writes L under a lock held at the use, and that
//     write is not one that a Signal or Broadcast follows (a consumer,
//     which takes what G was waiting for; a producer's write, which a
//     Broadcast follows, changes nothing G relies on);
//   - a producer's write of L (one a Signal or Broadcast follows, by
//     another goroutine, under a lock held at the check) came before the
//     check in the trace with no order synchronization between them: had
//     the check come first, G would have been waiting when that write's
//     Broadcast woke every waiter.
//
// The finding is an oscs pair: the check and that write, with their
// sections' Lock sites, and no Unlock for G's side, so that validation's
// reversal holds the producer's Lock until G has checked (the mutex then
// keeps the producer out until Wait has unlocked it: G waits when the
// Broadcast comes). The crash is the consumer's or G's index, dereference
// or wrong value after the Broadcast, in G's function.
//
// It takes the Cond's lock to be the one held at the check (the trace's
// CondWait names the Cond, not its L); with several held, a lock common to
// the check, the producer's write and the use.
func (c *checker) waitUses(base *hb.Graph) {
	g := c.g
	n := len(g.Goroutines)
	sinceSync := make([][]int, n)
	secWrites := make([][]int, n)
	announce := make(map[int]bool)
	writes := make(map[hb.Loc][]int)
	type wait struct {
		ev     int
		checks []int
	}
	var waits []wait
	for i := range g.Events {
		ev := &g.Events[i]
		gi := g.Goroutine(i)
		switch {
		case ev.Kind == trace.EvRead:
			if len(g.Locks(i)) > 0 {
				sinceSync[gi] = append(sinceSync[gi], i)
			}
		case ev.Kind == trace.EvWrite:
			if len(g.Locks(i)) > 0 {
				secWrites[gi] = append(secWrites[gi], i)
				loc := g.Loc(i)
				writes[loc] = append(writes[loc], i)
			}
		case ev.Kind.IsSync():
			switch ev.Kind {
			case trace.EvCondWait:
				if len(sinceSync[gi]) > 0 {
					waits = append(waits, wait{i, slices.Clone(sinceSync[gi])})
				}
			case trace.EvCondSignal, trace.EvCondBroadcast:
				for _, w := range secWrites[gi] {
					announce[w] = true
				}
				secWrites[gi] = secWrites[gi][:0]
			case trace.EvLock, trace.EvRLock, trace.EvTryLock:
				if len(g.Locks(i)) == 1 {
					secWrites[gi] = secWrites[gi][:0]
				}
			}
			sinceSync[gi] = sinceSync[gi][:0]
		}
	}
	if len(waits) == 0 {
		return
	}

	for _, wt := range waits {
		gi := g.Goroutine(wt.ev)
		for _, chk := range wt.checks {
			if c.siteUsed(chk, trace.UseDeref, trace.UseIndex) {
				continue // a use before Wait, not only a check
			}
			loc := g.Loc(chk)
			use := c.nextAccess(gi, wt.ev, loc)
			if use < 0 || g.Events[use].Kind != trace.EvRead ||
				!c.siteUsed(use, trace.UseDeref, trace.UseIndex) || c.siteUsed(use, trace.UseBranch, trace.UseLoopExit) {
				continue
			}
			consumer := slices.ContainsFunc(writes[loc], func(x int) bool {
				return g.Goroutine(x) != gi && !announce[x] && g.CommonLock(x, use)
			})
			if !consumer {
				continue
			}
			prod := -1
			for _, x := range writes[loc] {
				if x >= chk {
					break
				}
				if g.Goroutine(x) != gi && announce[x] && !base.HappensBefore(x, chk) {
					prod = x
				}
			}
			if prod < 0 {
				continue
			}
			lock, ok := c.commonLock(chk, prod)
			if !ok {
				continue
			}
			c.waitReport(chk, prod, use, wt.ev, lock, loc)
		}
	}
}

// siteUsed reports whether event i's site carries one of uses.
func (c *checker) siteUsed(i int, uses ...string) bool {
	s, ok := c.sites.Lookup(c.g.Events[i].Site)
	if !ok {
		return false
	}
	return slices.ContainsFunc(uses, s.Used)
}

// nextAccess returns goroutine gi's first access of loc after event from
// and before its next sync event, -1 if none.
func (c *checker) nextAccess(gi, from int, loc hb.Loc) int {
	evs := c.g.Goroutines[gi].Events
	k, _ := slices.BinarySearch(evs, from)
	for k++; k < len(evs); k++ {
		j := evs[k]
		kind := c.g.Events[j].Kind
		if kind.IsSync() {
			return -1
		}
		if isAccess(kind) && c.g.Loc(j) == loc {
			return j
		}
	}
	return -1
}

// waitReport records the finding of waitUses, once per site set.
func (c *checker) waitReport(chk, prod, use, wait int, lock uint64, loc hb.Loc) {
	r := report{
		a:      rec{ev: int32(chk), g: int32(c.g.Goroutine(chk)), sec: -1},
		b:      rec{ev: int32(prod), g: int32(c.g.Goroutine(prod)), sec: -1},
		bWrite: true, lock: lock, loc: loc, lacksRW: -1,
	}
	r.aLock = c.sectionAt(r.a, lock)
	r.bLock = c.sectionAt(r.b, lock)
	key := "wait:" + strconv.FormatUint(uint64(c.g.Events[chk].Site), 10) + "," + strconv.FormatUint(uint64(c.g.Events[prod].Site), 10) + "," +
		strconv.FormatUint(uint64(c.lockSite(r.aLock)), 10) + "," + strconv.FormatUint(uint64(c.lockSite(r.bLock)), 10)
	if c.seen[key] {
		return
	}
	c.seen[key] = true
	f := c.finding(r)
	// No Unlock for the waiting side: its section ends at Wait, which the
	// trace records only when Wait has returned (after the Broadcast).
	w := &f.Witnesses[0]
	w.Events = slices.DeleteFunc(w.Events, func(e finding.Event) bool { return e.Role == "unlock-1" })
	at := func(i int) finding.Site { return finding.SiteOf(c.sites, c.g.Events[i].Site, "") }
	pos := func(s finding.Site) string { return filepath.Base(s.File) + ":" + strconv.Itoa(s.Line) }
	sc, sp, su, sw, sl := f.Sites[0], f.Sites[1], at(use), at(wait), f.Sites[2]
	waitExpr := "Cond.Wait"
	if sw.Expr != "" {
		waitExpr = sw.Expr + ".Wait()"
	}
	f.Message = fmt.Sprintf("%s checked before %s in %s is used after Wait returns without a check, and %s's write of it can come between: Wait unlocks %s while it sleeps and every waiter wakes at one Broadcast: should Wait be called in a for loop?",
		sc.Expr, waitExpr, function(sc), function(sp), sl.Expr)
	f.Evidence.Notes = []string{
		fmt.Sprintf("OSCS-%s: %s at %s unlocks the lock between the check at %s and the use at %s: two critical sections, although the source has one", c.opts.paperName(), waitExpr, pos(sw), pos(sc), pos(su)),
		fmt.Sprintf("the use at %s indexes or dereferences the location and is no loop's check: the condition is not checked again after Wait returns", pos(su)),
		fmt.Sprintf("another goroutine writes the location under the lock with no Signal or Broadcast after it (it takes what the waiter waited for); the write at %s, which a Broadcast follows, is not ordered before the check: had the check come first, the Broadcast would have woken this goroutine and the other waiters together", pos(sp)),
		fmt.Sprintf("location 0x%x, GC epoch %d", loc.Addr, loc.Epoch),
	}
	c.waits = append(c.waits, f)
}
