// Package streamed turns what hb.Stream knows of an event into a
// finding's site and witness event, for the checkers that walk a trace
// too large to hold (races.CheckStream, conmem.CheckStream): nothing can
// refer back to the trace afterwards, so each witness event is named as a
// control point here, with its Lock as pipeline/control.NameLocks would
// name it from the whole trace.
package streamed

import (
	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/detect/hb"
	"github.com/precog-dev/precog/shim/trace"
)

// MaxLockScan is pipeline/control's bound on how far back NameLocks looks
// for the Lock of a witness event's critical section: an open Lock older
// than that is not named.
const MaxLockScan = 1 << 20

// An Event is one side of a streamed finding: the event at Index of kind
// Kind at Site, its instance N, and what the walk knew of it.
type Event struct {
	Index int
	Site  uint32
	N     uint64
	Kind  trace.Kind
	Ctx   *hb.Context
}

// Witness returns e as a witness event in role: its goroutine, site and
// instance name it as a control point, and its Lock is the outermost Lock
// of its goroutine still open at it, within MaxLockScan events.
func (e Event) Witness(role string) finding.Event {
	w := finding.Event{Role: role, G: e.Ctx.ID, Site: e.Site, N: e.N, Kind: e.Kind.String(), Index: e.Index}
	if e.Index > 0 {
		var outer *hb.Held
		for h := e.Ctx.Held; h != nil && e.Index-h.Index < MaxLockScan; h = h.Next {
			outer = h
		}
		if outer != nil && outer.Site != 0 {
			w.Lock = &finding.Event{Role: "lock", G: e.Ctx.ID, Site: outer.Site, N: outer.N, Kind: outer.Kind.String(), Index: outer.Index}
		}
	}
	return w
}

// AddSite appends e, in role, to f's sites, spawns, stacks and evidence,
// as the checkers on a whole graph do for an event.
func AddSite(f *finding.Finding, sites *trace.SiteTable, e Event, role string) {
	ctx := e.Ctx
	s := finding.SiteOf(sites, e.Site, role)
	var spawn finding.Site
	if sp := ctx.Spawn; sp != 0 {
		spawn = finding.SiteOf(sites, sp, finding.RoleGo)
		s.Goroutine = spawn.Pos()
	} else if ctx.Adopted {
		spawn = finding.UnseenSpawn(ctx.Creators)
	}
	f.Sites = append(f.Sites, s)
	f.Spawns = append(f.Spawns, spawn)
	var stack []finding.Site
	for fr := ctx.Stack; fr != nil; fr = fr.Up {
		stack = append(stack, finding.SiteOf(sites, fr.Site, finding.RoleCall))
	}
	for l, r := 0, len(stack)-1; l < r; l, r = l+1, r-1 {
		stack[l], stack[r] = stack[r], stack[l]
	}
	f.Stacks = append(f.Stacks, stack)
	f.Evidence.Locks = append(f.Evidence.Locks, ctx.LockNames(sites))
	f.Evidence.Clocks = append(f.Evidence.Clocks, ctx.Clock.VC().String())
}
