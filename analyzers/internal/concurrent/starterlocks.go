package concurrent

import (
	"github.com/precog-dev/precog/analyzers/goroutines"
	"github.com/precog-dev/precog/analyzers/locksets"
	"github.com/precog-dev/precog/analyzers/sharedloc"
)

// withStarter returns v, the view of an access on a goroutine of c, with
// the locks that the goroutine starting c's goroutines holds for their
// whole life added to its locks (see starterLocks), against the other
// side of the pair: b, reached as vb, on a goroutine of cb.
func (e *Env) withStarter(v View, c *goroutines.Context, b *sharedloc.Access, vb View, cb *goroutines.Context) View {
	lib := e.starterLocks(c, b, vb, cb, e.Locks.OutsideTests())
	if len(lib) == 0 {
		return v // OutsideTests holds at least what All holds
	}
	v.LibLocks = v.LibLocks.Union(lib)
	if c.Test == nil {
		v.Locks = v.Locks.Union(lib)
	} else {
		v.Locks = v.Locks.Union(e.starterLocks(c, b, vb, cb, e.Locks.All()))
	}
	return v
}

// starterLocks returns, in the lock sets s, the mutexes held by the
// goroutine that starts c's goroutines from the `go` statement to the
// Wait that joins them, when they live only within one call of the
// function F that starts them (ordering.Result.JoinedWithin): held at the
// statement and at that Wait. A goroutine that F starts and waits for
// while it holds mu runs wholly inside that critical section of mu, so
// another section of mu (on any goroutine but F's caller within the call,
// and the goroutines that call starts) comes before or after all of it
// (Shopify/toxiproxy's chainAddToxic and chainRemoveToxic each start a
// goroutine per link and wait for them, under the collection's lock: the
// two never edit a link's stubs at once). It returns nothing against b
// when b may run during the call all the same: in F or a function F may
// call (the starting goroutine's own code, unlocked or not), on another
// goroutine of c (started by the same statement), or on goroutines a `go`
// statement in that code starts. A lock released and taken again between
// the statement and the Wait is not noticed.
func (e *Env) starterLocks(c *goroutines.Context, b *sharedloc.Access, vb View, cb *goroutines.Context, s *locksets.Solution) locksets.Set {
	if c == cb {
		return nil
	}
	joins, ok := e.Order.JoinedWithin(c)
	if !ok {
		return nil
	}
	reach := e.Order.ReachableFrom(c.Site.Parent())
	if reach[b.Fn()] || reach[vb.Fn] || cb.Site != nil && reach[cb.Site.Parent()] {
		return nil
	}
	held := s.At(c.Site)
	for _, w := range joins {
		held = held.Intersect(s.At(w))
	}
	return held
}
