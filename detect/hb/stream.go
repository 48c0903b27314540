package hb

import (
	"errors"
	"io"

	"github.com/precog-dev/precog/shim/trace"
)

// maxTakeSlots bounds the locations whose last store Stream keeps for the
// hand-offs through a container (see "Hand-offs" in the package doc): a
// take of a slot stored longer ago is missed.
const maxTakeSlots = 1 << 18

// DefaultWindow is StreamOptions.Window's default: 65,536 events (5 MiB of
// trace.Event), sixteen times lateStoreReach and a hundred times the
// longest wait measured on real traces (598 events on raft:
// bench/RESULTS.md, "how far hb looks ahead").
const DefaultWindow = 1 << 16

// StreamOptions configures Stream.
type StreamOptions struct {
	// Options are Analyze's, but for two: Stream takes no Edges (an
	// error) and hands no locks between goroutines (as
	// Options.NoHandedLocks: a hand-off is known at the receiver's Unlock,
	// which may come any time later). Hand-offs through a container
	// (Options.NoTakes) are matched as the walk comes to them, the latest
	// maxTakeSlots slots' stores kept. With LockOrder, the race checker's
	// order, none is used.
	Options
	// Window is how many events the matches look ahead of the walk
	// (DefaultWindow if 0).
	Window int
}

// StreamStats counts what one Stream did.
type StreamStats struct {
	Events     int // events walked
	Goroutines int // goroutines (dense indices) seen
	// Unsettled counts the events walked while their goroutine's clock
	// was unsettled: it lacked an order that a match past the window
	// would have given (Context.Unsettled).
	Unsettled int
	// WordsUntracked counts the accesses whose word got no field
	// generation (Graph.WordsUntracked).
	WordsUntracked int
}

// A Step is what the walk knows of one event when it reaches it.
type Step struct {
	Index    int          // the event's place in the global order, as in trace.ReadAll
	Event    *trace.Event // valid during the call only
	Ctx      *Context
	Loc      Loc    // as Graph.Loc
	Instance uint64 // as Graph.Instance (and control.Points' N), for an event with a site
	// Parent is the dense index of the goroutine that started the
	// event's, -1 if none was recorded (Graph.Goroutines' Parent).
	Parent int
	// Prev is the event of its goroutine before it (no Ctx if none).
	Prev EventRef
	// Joined are the last events of the subtests that the event's
	// goroutine joined just before it (Graph.Joined), each with its
	// context: valid during the call only.
	Joined []EventRef
}

// An EventRef is an event the walk passed, by its index and context (a
// subtest's last event in Step.Joined): what Before asks of it.
type EventRef struct {
	Index int
	Ctx   *Context
}

// A Context is what Stream knows of an event but the event itself: its
// goroutine, clock, lock set, epoch, stack and open Locks. The events of a
// goroutine between two changes share one Context, which nothing changes:
// a checker may keep it.
type Context struct {
	G     int    // dense goroutine index
	ID    uint64 // the goroutine's logical id
	Clock Clock
	Locks []Lock // as Graph.Locks; shared: do not modify
	Epoch uint64 // the goroutine's GC epoch
	Stack *Frame // the open EvFuncEnter events, innermost first, as Graph.Stack
	// Held are the Lock, RLock and successful TryLock events of the
	// goroutine that no Unlock or RUnlock of their address matched yet,
	// newest first (an unlock matches the newest lock of its address,
	// whatever the modes).
	Held    *Held
	Spawn   uint32 // as Graph.Spawn
	Adopted bool   // as Graph.Adopted, so far
	// Creators are the goroutine's Goroutine.Creators so far; shared:
	// do not modify.
	Creators []string
	// Unsettled is set when the goroutine's clock lacks an order that a
	// match past the window would have given: a send whose receive,
	// a receive whose send, or an atomic load whose store came later
	// than the window reaches (or not at all, which a stream cannot tell
	// until its end), and
	// everything that acquired such a clock since. A race reported at
	// an unsettled event may be false; one at a settled event is one
	// that Analyze's graph has too. Never set when the window holds the
	// whole trace.
	Unsettled bool
}

// LockNames names the locks held at the context's event, as
// Graph.LockNames: each by the newest open Lock event of its address.
func (c *Context) LockNames(sites *trace.SiteTable) []string {
	var out []string
	for _, l := range c.Locks {
		var site uint32
		for h := c.Held; h != nil; h = h.Next {
			if h.Addr == l.Addr {
				site = h.Site
				break
			}
		}
		out = append(out, LockName(sites, site, l.Addr, l.Mode == Read))
	}
	return out
}

// A Frame is an open EvFuncEnter of a goroutine.
type Frame struct {
	Site  uint32
	Index int
	Up    *Frame // the caller's; nil for the outermost
}

// A Held is a Lock, RLock or successful TryLock event that is still open.
type Held struct {
	Addr  uint64
	Site  uint32
	N     uint64 // Step.Instance of the Lock
	Kind  trace.Kind
	Index int
	Next  *Held // the open Lock before it
}

// A Clock is an event's vector clock (persistent: keeping it is cheap).
type Clock struct {
	s   snapshot
	g   int32
	own uint32
}

// Own returns the clock's component of its own goroutine.
func (c Clock) Own() uint32 { return c.own }

// Get returns component g.
func (c Clock) Get(g int) uint32 {
	if g == int(c.g) {
		return c.own
	}
	return c.s.get(g, nil)
}

// VC returns the clock as a vector, as Graph.Clock.
func (c Clock) VC() VC {
	v := vclock{root: c.s.root, depth: c.s.depth, g: c.g, own: c.own, hasG: true}
	return v.vc(int(c.g) + 1)
}

// Before reports whether the event of goroutine x at index i, whose
// context is x, happens before the event at index j whose context is y:
// Graph.HappensBefore on two Steps.
func Before(x *Context, i int, y *Context, j int) bool {
	if x.G == y.G {
		return i < j
	}
	return x.Clock.own <= y.Clock.s.get(x.G, nil)
}

// streamState is Stream's walk's own state.
type streamState struct {
	visit  func(*Step)
	stats  StreamStats
	spawn  []uint32 // per dense goroutine: Graph.Spawn
	counts map[instKey]uint64
	step   Step
}

type instKey struct {
	g    uint64
	site uint32
}

// Stream walks the events that next returns, which must come in the global
// order (trace.OrderedReader's Next), and calls visit for each with what
// Analyze's graph would say of it, keeping no per-event state: its memory
// is the goroutines' and sync objects' state and a window of
// opts.Window events. The matches that Analyze makes over the whole trace
// before its walk (a send's receive, a select's send recorded after its
// receive, an atomic load's later store, the event before a Cond.Wait's
// return) are made over the window ahead of the walk; a match within it is
// exactly Analyze's. One past it is replaced by what cannot invent a race:
// more order where it can be had (the receiver's clock now instead of at
// its receive; the held locks released before any event whose goroutine's
// next event is past the window, as if a Cond.Wait followed), and
// otherwise the goroutine is marked unsettled (Context.Unsettled). With a
// window longer than the trace every Step is what Analyze's Graph says of
// the event. Stream returns when next returns an error: io.EOF ends it
// without one; any other error (trace.ErrBroken after the events before
// the damage) is returned after the events before it are walked.
func Stream(next func() (trace.Event, error), opts StreamOptions, visit func(*Step)) (StreamStats, error) {
	if len(opts.Edges) > 0 {
		return StreamStats{}, errors.New("hb.Stream takes no extra edges")
	}
	w := opts.Window
	if w == 0 {
		w = DefaultWindow
	}
	w = max(w, 1)
	a := newAnalyzer(&Graph{opts: opts.Options}, opts.Options)
	if !opts.LockOrder && !opts.NoTakes && len(a.ptr) > 0 {
		a.taker = newTaker(a.varOf, a.ptr, maxTakeSlots)
	}
	a.ring = make([]trace.Event, min(w, 1024))
	a.stream = &streamState{visit: visit, counts: make(map[instKey]uint64)}
	head := 0
	var err error
	for {
		ev, e := next()
		if e != nil {
			if e != io.EOF {
				err = e
			}
			break
		}
		if head >= w {
			a.walk(head - w)
		} else if head == len(a.ring) {
			// The window grows up to w as the events come (nothing
			// has wrapped yet), so that a short trace with a long
			// window costs its length.
			a.ring = append(a.ring, make([]trace.Event, min(w, 2*head)-head)...)
		}
		a.ring[head%w] = ev
		a.ahead(head)
		head++
	}
	a.eof = true
	for i := max(0, head-w); i < head; i++ {
		a.walk(i)
	}
	a.stream.stats.Goroutines = len(a.gs)
	a.stream.stats.WordsUntracked = a.words.untracked
	return a.stream.stats, err
}

// walk walks event i and forgets what the matches said of it.
func (a *analyzer) walk(i int) {
	a.event(i)
	a.forget(i)
	a.stream.stats.Events++
}

// unsettle marks goroutine gi's clock as lacking an order (see
// Context.Unsettled).
func (a *analyzer) unsettle(gi int) {
	st := a.gs[gi]
	if !st.vc.taint {
		st.vc.taint = true
		st.snap = -1
	}
}

// step calls Stream's visitor for event i of goroutine gi, at the point of
// the walk where Analyze fills the Graph's per-event data.
func (a *analyzer) step(i, gi int, ev *trace.Event) {
	s := a.stream
	st := a.gs[gi]
	if ev.Kind == trace.EvFuncEnter {
		st.stack = &Frame{Site: ev.Site, Index: i, Up: st.stack}
	}
	if st.snap < 0 {
		st.snapVC = st.vc.copy(a.tk)
		st.snap = 0
		st.ctx = nil
	}
	c := st.ctx
	adopted := a.Goroutines[gi].adopted()
	creators := a.Goroutines[gi].Creators
	if c == nil || c.Clock.own != st.vc.own || c.Epoch != st.epoch || c.Stack != st.stack || c.Held != st.openLk || c.Adopted != adopted || len(c.Creators) != len(creators) {
		c = &Context{
			G:         gi,
			ID:        a.Goroutines[gi].ID,
			Clock:     Clock{s: snapshot{root: st.snapVC.root, depth: st.snapVC.depth}, g: int32(gi), own: st.vc.own},
			Locks:     st.locks,
			Epoch:     st.epoch,
			Stack:     st.stack,
			Held:      st.openLk,
			Spawn:     s.spawn[gi],
			Adopted:   adopted,
			Creators:  creators,
			Unsettled: st.vc.taint,
		}
		st.ctx = c
	}
	if c.Unsettled {
		s.stats.Unsettled++
	}
	l := Loc{Addr: ev.Addr, Epoch: st.epoch}
	switch ev.Kind {
	case trace.EvRead, trace.EvWrite:
		l.Var = a.varOf[ev.Site]
	case trace.EvMapMake, trace.EvChanMake:
		if a.made == nil {
			a.made = make(map[uint64]uint32)
		}
		a.made[ev.Addr]++
	case trace.EvMapRead, trace.EvMapWrite, trace.EvMapIter,
		trace.EvChanSend, trace.EvChanRecv, trace.EvChanClose, trace.EvSelect:
		l.Gen = a.made[ev.Addr]
	case trace.EvNew:
		a.words.made(ev.Addr, ev.Value)
	}
	if hasFieldGen(ev.Kind) {
		l.Gen = a.words.touch(ev.Addr)
	}
	var n uint64
	if ev.Site != 0 {
		k := instKey{ev.Goroutine, ev.Site}
		n = s.counts[k]
		s.counts[k] = n + 1
	}
	s.step = Step{Index: i, Event: ev, Ctx: c, Loc: l, Instance: n, Parent: a.Goroutines[gi].Parent, Prev: st.last, Joined: st.joinedAt}
	s.visit(&s.step)
	st.joinedAt, st.last = st.joinedAt[:0], EventRef{Index: i, Ctx: c}

	// After the event: the stack and the open Locks it changes.
	switch ev.Kind {
	case trace.EvFuncExit:
		if st.stack != nil {
			st.stack = st.stack.Up
		}
	case trace.EvLock, trace.EvRLock, trace.EvTryLock:
		if ev.Kind != trace.EvTryLock || ev.Value != 0 {
			st.openLk = &Held{Addr: ev.Addr, Site: ev.Site, N: n, Kind: ev.Kind, Index: i, Next: st.openLk}
		}
	case trace.EvUnlock, trace.EvRUnlock:
		st.openLk = unheld(st.openLk, ev.Addr)
	}
}

// unheld returns h without its newest Lock of addr, copying the newer ones.
func unheld(h *Held, addr uint64) *Held {
	if h == nil {
		return nil
	}
	if h.Addr == addr {
		return h.Next
	}
	rest := unheld(h.Next, addr)
	if rest == h.Next {
		return h
	}
	c := *h
	c.Next = rest
	return &c
}
