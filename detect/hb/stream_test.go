package hb

import (
	"io"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/precog-dev/precog/shim/trace"
)

// streamAll walks evs with Stream and returns every Step, copied.
func streamAll(t *testing.T, evs []trace.Event, opts StreamOptions) ([]Step, StreamStats) {
	t.Helper()
	k := 0
	next := func() (trace.Event, error) {
		if k == len(evs) {
			return trace.Event{}, io.EOF
		}
		k++
		return evs[k-1], nil
	}
	var steps []Step
	st, err := Stream(next, opts, func(s *Step) {
		c := *s
		ev := *s.Event
		c.Event = &ev
		steps = append(steps, c)
	})
	if err != nil {
		t.Fatal(err)
	}
	return steps, st
}

func frames(f *Frame) []int {
	var out []int
	for ; f != nil; f = f.Up {
		out = append(out, f.Index)
	}
	slices.Reverse(out)
	return out
}

// TestStream: with a window longer than the trace, every Step says of its
// event what Analyze's Graph says (goroutine, clock, order with every
// other event, lock set, location, instance, stack, spawn), on random
// traces with and without LockOrder; with small windows, the order at
// every settled event holds at least the Graph's, so that no race
// reported there is one the Graph orders.
func TestStream(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for k := range 300 {
		evs := randomTrace(r, 20+r.IntN(300), 2+r.IntN(12))
		opts := Options{LockOrder: k%2 == 1, NoTakes: true, NoHandedLocks: true}
		g := Analyze(evs, opts)
		steps, stats := streamAll(t, evs, StreamOptions{Options: opts, Window: len(evs) + 1})
		if len(steps) != len(evs) || stats.Events != len(evs) || stats.Unsettled != 0 {
			t.Fatalf("trace %d: %d steps of %d events, %+v", k, len(steps), len(evs), stats)
		}
		for i, s := range steps {
			c := s.Ctx
			if s.Index != i || c.G != g.Goroutine(i) || c.ID != evs[i].Goroutine || c.Unsettled {
				t.Fatalf("trace %d event %d: step %d of goroutine %d, graph's %d", k, i, s.Index, c.G, g.Goroutine(i))
			}
			if got, want := c.Clock.VC().String(), g.Clock(i).String(); got != want {
				t.Fatalf("trace %d event %d: clock %s, graph's %s", k, i, got, want)
			}
			if !slices.Equal(c.Locks, g.Locks(i)) || s.Loc != g.Loc(i) || c.Epoch != g.Loc(i).Epoch {
				t.Fatalf("trace %d event %d: locks %v loc %v, graph's %v %v", k, i, c.Locks, s.Loc, g.Locks(i), g.Loc(i))
			}
			if evs[i].Site != 0 && s.Instance != g.Instance(i) {
				t.Fatalf("trace %d event %d: instance %d, graph's %d", k, i, s.Instance, g.Instance(i))
			}
			if got, want := frames(c.Stack), g.Stack(i); !slices.Equal(got, want) && len(got)+len(want) > 0 {
				t.Fatalf("trace %d event %d: stack %v, graph's %v", k, i, got, want)
			}
			// A test's goroutine is adopted so far at its Begin,
			// before its TestStart.
			if c.Spawn != g.Spawn(c.G) || evs[i].Kind != trace.EvBegin && c.Adopted != g.Adopted(c.G) {
				t.Fatalf("trace %d event %d: spawn %d adopted %v, graph's %d %v", k, i, c.Spawn, c.Adopted, g.Spawn(c.G), g.Adopted(c.G))
			}
			if s.Parent != g.Goroutines[c.G].Parent {
				t.Fatalf("trace %d event %d: parent %d, graph's %d", k, i, s.Parent, g.Goroutines[c.G].Parent)
			}
			// Prev is the goroutine's event before it, with its context.
			own := g.Goroutines[c.G].Events
			if at := slices.Index(own, i); at > 0 {
				if p := own[at-1]; s.Prev.Index != p || s.Prev.Ctx != steps[p].Ctx {
					t.Fatalf("trace %d event %d: prev %d, graph's %d", k, i, s.Prev.Index, p)
				}
			} else if s.Prev.Ctx != nil {
				t.Fatalf("trace %d event %d: prev %d, its goroutine's first", k, i, s.Prev.Index)
			}
			for j := range steps {
				if Before(steps[j].Ctx, j, c, i) != g.HappensBefore(j, i) {
					t.Fatalf("trace %d: Before(%d, %d) = %v, graph's %v", k, j, i, !g.HappensBefore(j, i), g.HappensBefore(j, i))
				}
			}
		}
		for _, w := range []int{1, 2, 8, 64} {
			steps, stats := streamAll(t, evs, StreamOptions{Options: opts, Window: w})
			if len(steps) != len(evs) {
				t.Fatalf("trace %d window %d: %d steps of %d events", k, w, len(steps), len(evs))
			}
			unsettled := 0
			for i, s := range steps {
				if s.Ctx.Unsettled {
					unsettled++
					continue
				}
				for j := range i {
					if g.HappensBefore(j, i) && !Before(steps[j].Ctx, j, s.Ctx, i) {
						t.Fatalf("trace %d window %d: event %d, settled, not ordered after %d as the graph orders it", k, w, i, j)
					}
				}
			}
			if unsettled != stats.Unsettled {
				t.Fatalf("trace %d window %d: %d unsettled steps, stats say %d", k, w, unsettled, stats.Unsettled)
			}
		}
	}
}

// TestStreamPassedReceive: a send whose completing receive the walk passed
// before the send came into the window (a pooled channel of capacity 1,
// taken again long after its last receive) acquires the receiver's clock
// once, at the sender's next event, not at every event after: what the
// receiver does after its next release (a send) stays unordered with the
// sender's later events, as the Graph has it.
func TestStreamPassedReceive(t *testing.T) {
	const a, b, ch, done, x, y = 1, 2, 0x5000, 0x5100, 0x9000, 0x9100
	evs := []trace.Event{
		{Goroutine: a, Kind: trace.EvBegin, Peer: trace.NoParent},
		{Goroutine: a, Kind: trace.EvTestStart, Name: "T"},
		{Goroutine: a, Kind: trace.EvChanMake, Addr: ch, Value: 1},
		{Goroutine: a, Kind: trace.EvChanMake, Addr: done, Value: 1},
		{Goroutine: a, Kind: trace.EvFork, Peer: b},
		{Goroutine: b, Kind: trace.EvBegin, Peer: a},
		{Goroutine: a, Kind: trace.EvChanSend, Addr: ch},           // send 0
		{Goroutine: b, Kind: trace.EvChanRecv, Addr: ch, Value: 1}, // receive 0
	}
	// A window that pairs the receive surely (pairHorizon), passed
	// before send 1 comes into it.
	const window = pairHorizon + 8
	for range window + 2 {
		evs = append(evs, trace.Event{Goroutine: b, Kind: trace.EvRead, Addr: y})
	}
	evs = append(evs,
		trace.Event{Goroutine: a, Kind: trace.EvChanSend, Addr: ch}, // send 1: waits for receive 0
		trace.Event{Goroutine: a, Kind: trace.EvRead, Addr: y},
		trace.Event{Goroutine: b, Kind: trace.EvChanSend, Addr: done},
		trace.Event{Goroutine: b, Kind: trace.EvWrite, Addr: x, Value: 1},
		trace.Event{Goroutine: a, Kind: trace.EvWrite, Addr: x, Value: 2},
	)
	for i := range evs {
		evs[i].Seq, evs[i].Site = uint64(i+1), uint32(i+1)
	}
	bw, aw := len(evs)-2, len(evs)-1
	opts := Options{NoTakes: true, NoHandedLocks: true}
	g := Analyze(evs, opts)
	if g.HappensBefore(bw, aw) {
		t.Fatalf("the Graph orders b's write before a's")
	}
	steps, _ := streamAll(t, evs, StreamOptions{Options: opts, Window: window})
	if steps[aw].Ctx.Unsettled || Before(steps[bw].Ctx, bw, steps[aw].Ctx, aw) {
		t.Errorf("b's write ordered before a's (a unsettled: %v): the passed receive was acquired again", steps[aw].Ctx.Unsettled)
	}
	if !Before(steps[7].Ctx, 7, steps[aw].Ctx, aw) {
		t.Errorf("receive 0 not ordered before a's write")
	}
}

// TestStreamTakes: with a window longer than the trace, Stream's order is
// Analyze's with the hand-offs through a container (Options.NoTakes off),
// which Stream matches as the walk comes to them: every event is ordered
// alike before every later one, on random traces of goroutines that store
// to and take from a few slots under a few locks (randomTakes). The
// clocks' own components differ: Stream releases at the end of every
// section a take may name, which orders nothing by itself; but a match
// against the trace's order (an atomic load before the store it read, a
// send's receive recorded before it) orders the events of its goroutine
// up to the match, and there a release between them tells them apart: the
// traces have no atomics or channels.
func TestStreamTakes(t *testing.T) {
	tab := &trace.SiteTable{}
	for id := uint32(1); id <= 40; id++ {
		s := trace.Site{ID: id, Kind: "read"}
		if id <= 20 {
			s.Uses = trace.UsePointer
		}
		tab.Sites = append(tab.Sites, s)
	}
	r := rand.New(rand.NewPCG(7, 8))
	takes := 0
	for k := range 300 {
		evs := randomTakes(r, 20+r.IntN(300), 2+r.IntN(12))
		opts := Options{Sites: tab, NoHandedLocks: true}
		g := Analyze(evs, opts)
		takes += g.Takes()
		steps, _ := streamAll(t, evs, StreamOptions{Options: opts, Window: len(evs) + 1})
		for i := range evs {
			for j := i + 1; j < len(evs); j++ {
				if got, want := Before(steps[i].Ctx, i, steps[j].Ctx, j), g.HappensBefore(i, j); got != want {
					t.Fatalf("trace %d: events %d and %d: streamed order %v, graph's %v", k, i, j, got, want)
				}
			}
		}
	}
	if takes < 50 {
		t.Errorf("%d takes in all the traces: the traces do not exercise the matcher", takes)
	}
}

// randomTakes makes a trace of about n events over at most gs goroutines
// that lock and unlock two mutexes (now and then out of order, or not
// held), read slots at pointer-shaped sites (1 to 20) and at others, store
// zero and non-zero values, and write and read other memory: stores and
// takes of the slots, under one lock or another, or none.
func randomTakes(r *rand.Rand, n, gs int) []trace.Event {
	var evs []trace.Event
	live := []uint64{1}
	next, seq := uint64(2), uint64(0)
	emit := func(g uint64, ev trace.Event) {
		seq++
		ev.Goroutine, ev.Seq = g, seq
		evs = append(evs, ev)
	}
	emit(1, trace.Event{Kind: trace.EvBegin, Peer: trace.NoParent})
	for len(evs) < n {
		g := live[r.IntN(len(live))]
		lock := 0x1000 + uint64(r.IntN(2))*8
		slot := 0x9000 + uint64(r.IntN(3))*8
		switch x := r.IntN(100); {
		case x < 8 && int(next) <= gs:
			emit(g, trace.Event{Kind: trace.EvFork, Peer: next, Site: 30})
			emit(next, trace.Event{Kind: trace.EvBegin, Peer: g})
			live = append(live, next)
			next++
		case x < 30:
			emit(g, trace.Event{Kind: trace.EvLock, Addr: lock, Site: 31})
		case x < 33:
			emit(g, trace.Event{Kind: trace.EvRLock, Addr: lock, Site: 32})
		case x < 50:
			kind := trace.EvUnlock
			if r.IntN(5) == 0 {
				kind = trace.EvRUnlock
			}
			emit(g, trace.Event{Kind: kind, Addr: lock, Site: 33})
		case x < 70:
			emit(g, trace.Event{Kind: trace.EvRead, Addr: slot, Site: uint32(1 + r.IntN(25))})
		case x < 90:
			emit(g, trace.Event{Kind: trace.EvWrite, Addr: slot, Value: uint64(r.IntN(2)), Site: 34})
		default:
			emit(g, trace.Event{Kind: trace.EvWrite, Addr: 0x7000, Value: 1, Site: 35})
		}
	}
	return evs
}
