package hb

import (
	"testing"

	"github.com/precog-dev/precog/shim/trace"
)

// TestNewGen: an access before and after an EvNew whose object covers its
// word are different locations; an access outside the object, or to a
// word no access touched before the EvNew, keeps its generation. Analyze
// and Stream agree.
func TestNewGen(t *testing.T) {
	ev := func(seq uint64, k trace.Kind, addr, value uint64) trace.Event {
		return trace.Event{Kind: k, Goroutine: 1, Seq: seq, Site: 1, Addr: addr, Value: value}
	}
	evs := []trace.Event{
		{Kind: trace.EvBegin, Goroutine: 1, Seq: 1, Peer: trace.NoParent},
		ev(1, trace.EvWrite, 0xc000, 1),      // 1: the first object's field
		ev(1, trace.EvRead, 0xc030, 0),       // 2: a word past the objects
		ev(1, trace.EvWrite, 0xc00c, 1),      // 3: another field, in the second word
		ev(2, trace.EvNew, 0xc000, 32),       // 4: a new object of 32 bytes at the address
		ev(2, trace.EvWrite, 0xc000, 1),      // 5
		ev(2, trace.EvRead, 0xc030, 0),       // 6
		ev(2, trace.EvRead, 0xc00c, 0),       // 7
		ev(2, trace.EvWrite, 0xc018, 0),      // 8: untouched before the EvNew
		ev(3, trace.EvNew, 0xc004, 4),        // 9: a tiny object in the first word
		ev(3, trace.EvAtomicLoad, 0xc004, 0), // 10
		ev(3, trace.EvWrite, 0xc00c, 1),      // 11
		ev(4, trace.EvNew, 0xc000, 0),        // 12: no size, no object
		ev(4, trace.EvRead, 0xc000, 0),       // 13
	}
	for i := range evs {
		if evs[i].Kind.IsSync() {
			evs[i].Sub = 0
		} else {
			evs[i].Sub = uint64(i)
		}
	}
	want := map[int]uint32{1: 0, 2: 0, 3: 0, 5: 1, 6: 0, 7: 1, 8: 0, 10: 2, 11: 1, 13: 2}
	g := Analyze(evs, Options{})
	steps, _ := streamAll(t, evs, StreamOptions{Window: len(evs) + 1})
	for i, w := range want {
		if l := g.Loc(i); l.Gen != w {
			t.Errorf("event %d (%v at %#x): Analyze's gen %d, want %d", i, evs[i].Kind, evs[i].Addr, l.Gen, w)
		}
		if l := steps[i].Loc; l != g.Loc(i) {
			t.Errorf("event %d: Stream's loc %+v, Analyze's %+v", i, l, g.Loc(i))
		}
	}
	if g.Loc(1) == g.Loc(5) {
		t.Errorf("the writes before and after the EvNew are one location %+v", g.Loc(1))
	}
	if g.Loc(2) != g.Loc(6) {
		t.Errorf("the reads outside the object are locations %+v and %+v", g.Loc(2), g.Loc(6))
	}
}

// TestNewWordsCap: an EvNew walks at most MaxNewWords words of its object.
func TestNewWordsCap(t *testing.T) {
	var w words
	w.touch(0x1000)
	w.touch(0x1000 + 8*MaxNewWords)
	w.made(0x1000, 8*MaxNewWords+8)
	if g := w.touch(0x1000); g != 1 {
		t.Errorf("first word's gen %d, want 1", g)
	}
	if g := w.touch(0x1000 + 8*MaxNewWords); g != 0 {
		t.Errorf("gen %d of the word past the cap, want 0", g)
	}
	w.made(^uint64(0)-3, 100) // wraps: no panic, no word below it
	if g := w.touch(0x1000); g != 1 {
		t.Errorf("first word's gen %d after a wrapping object, want 1", g)
	}
}
