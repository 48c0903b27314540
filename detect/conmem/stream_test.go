package conmem

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/precog-dev/precog/detect/hb"
)

// The tests of Check compare CheckStream's findings with Check's on each
// of their traces (see findings). These add the shapes they do not reach,
// and the stream's own limits.

// A nil store after the dereference is judged when its goroutine next
// writes the location: a lock held across the two, which the reader holds
// too, keeps the reader out of the nil's window (silent); without the
// reader's lock it is reported.
func TestStreamNilBeforeNextWrite(t *testing.T) {
	const text = `
1 g=1 Begin parent=none
1.1 g=1 Write site=10 addr=0x100 value=1
2 g=1 Fork site=1 child=2
3 g=1 Fork site=2 child=3
4 g=2 Begin parent=1
%s
7 g=3 Begin parent=1
8 g=3 Lock site=20 addr=0x800
8.1 g=3 Write site=13 addr=0x100 value=0
8.2 g=3 Write site=10 addr=0x100 value=1
9 g=3 Unlock site=21 addr=0x800
`
	locked := "5 g=2 Lock site=20 addr=0x800\n5.1 g=2 Read site=12 addr=0x100\n6 g=2 Unlock site=21 addr=0x800"
	expect(t, check(t, strings.Replace(text, "%s", locked, 1), nullSites, Options{}))
	expect(t, check(t, strings.Replace(text, "%s", "5.1 g=2 Read site=12 addr=0x100", 1), nullSites, Options{}),
		"con-null k.go:12(deref) k.go:13(nil-store)")
}

// Two writes of a map ordered by the go statement between them are no
// concurrent map writes; two closes of a channel on two goroutines are.
func TestStreamOrderedMapAndTwoCloses(t *testing.T) {
	expect(t, check(t, `
1 g=1 Begin parent=none
1.1 g=1 MapWrite site=11 addr=0x300
2 g=1 Fork site=1 child=2
3 g=2 Begin parent=1
3.1 g=2 MapWrite site=11 addr=0x300
3.2 g=2 MapRead site=10 addr=0x300
`, mapSites, Options{}))
	expect(t, check(t, `
1 g=1 Begin parent=none
2 g=1 ChanMake site=30 addr=0x900 cap=4
3 g=1 Fork site=1 child=2
4 g=2 Begin parent=1
5 g=2 ChanClose site=33 addr=0x900
6 g=1 ChanClose site=34 addr=0x900
`, append(chanSites, site{id: 34, kind: "close"}), Options{}), "con-closed k.go:33(close) k.go:34(close)")
}

// stream runs CheckStream on a text-form trace with opts.
func stream(t *testing.T, text string, sites []site, opts StreamOptions) []string {
	t.Helper()
	g, tab := graph(t, text, sites)
	fs, err := CheckStream(events(g.Events), tab, opts)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range fs {
		out = append(out, summary(t, f))
	}
	return out
}

// A nil store ordered before the dereference by an atomic store that the
// dereferencing goroutine's load read, recorded after the load (the shim
// takes an atomic operation's seq after it) and past the window: the
// loader's goroutine is unsettled, and the finding the store's order
// would have pruned is withheld. With the whole trace in the window,
// nothing is reported.
func TestStreamWithheld(t *testing.T) {
	var fill strings.Builder
	for i := 6; i < 16; i += 2 {
		fmt.Fprintf(&fill, "%d g=1 Lock site=20 addr=0x800\n%d g=1 Unlock site=21 addr=0x800\n", i, i+1)
	}
	text := `
1 g=1 Begin parent=none
1.1 g=1 Write site=10 addr=0x100 value=1
2 g=1 Fork site=1 child=2
3 g=2 Begin parent=1
4 g=1 Lock site=20 addr=0x800
4.1 g=1 Write site=13 addr=0x100 value=0
5 g=1 Unlock site=21 addr=0x800
5.5 g=2 AtomicLoad site=41 addr=0xa00 value=1
` + fill.String() + `16 g=1 AtomicStore site=40 addr=0xa00 value=1
17 g=2 Lock site=20 addr=0x700
17.1 g=2 Read site=12 addr=0x100
18 g=2 Unlock site=21 addr=0x700
`
	sites := append(slices.Clone(nullSites), site{id: 40, kind: "atomic-store"}, site{id: 41, kind: "atomic-load"})
	var st StreamStats
	expect(t, stream(t, text, sites, StreamOptions{Stats: &st}))
	if st.Withheld != 0 {
		t.Errorf("whole window: %d withheld, want 0", st.Withheld)
	}
	expect(t, stream(t, text, sites, StreamOptions{Window: 2, Stats: &st}))
	if st.Withheld != 1 {
		t.Errorf("window of 2 events: %d withheld, want 1 (the con-null the store orders)", st.Withheld)
	}
}

// Past MaxLocations the oldest location's state is dropped, and counted:
// the pairs of its later accesses are missed, and a nil store's pending
// dereferences are reported as it goes.
func TestStreamMaxLocations(t *testing.T) {
	text := `
1 g=1 Begin parent=none
2 g=1 Fork site=1 child=2
3 g=2 Begin parent=1
3.1 g=2 Read site=12 addr=0x100
4 g=1 Lock site=20 addr=0x800
4.1 g=1 Write site=13 addr=0x100 value=0
4.2 g=1 Write site=10 addr=0x200 value=1
5 g=1 Unlock site=21 addr=0x800
6 g=2 Lock site=20 addr=0x700
6.1 g=2 Read site=12 addr=0x100
7 g=2 Unlock site=21 addr=0x700
8 g=1 Lock site=20 addr=0x800
8.1 g=1 Write site=13 addr=0x100 value=0
9 g=1 Unlock site=21 addr=0x800
`
	var st StreamStats
	expect(t, stream(t, text, nullSites, StreamOptions{MaxLocations: 1, Stats: &st}), "con-null k.go:12(deref) k.go:13(nil-store)")
	if st.LocationsDropped != 2 {
		t.Errorf("%d locations dropped, want 2 (0x100 at 0x200's write, 0x200 at 0x100's return)", st.LocationsDropped)
	}
}

// A kept read's prev and prevWrite are its goroutine's last access and
// write of the location before it, with no links of their own: a read
// that is not kept has none, and a kept read's is a copy without them.
// Without it each read held the one before it, and the walk held every
// read a goroutine made of a location (links). Three dereferences after
// a plain read each, then one right after another.
func TestStreamReadLinks(t *testing.T) {
	g, tab := graph(t, `
1 g=1 Begin parent=none
2 g=1 Fork site=1 child=2
3 g=2 Begin parent=1
3.1 g=2 Write site=10 addr=0x100 value=1
3.2 g=2 Read site=11 addr=0x100
3.3 g=2 Read site=12 addr=0x100
4 g=2 Lock site=20 addr=0x800
4.1 g=2 Read site=11 addr=0x100
4.2 g=2 Read site=12 addr=0x100
5 g=2 Unlock site=21 addr=0x800
5.1 g=2 Read site=11 addr=0x100
5.2 g=2 Read site=12 addr=0x100
6 g=2 Lock site=20 addr=0x800
6.1 g=2 Read site=12 addr=0x100
7 g=2 Unlock site=21 addr=0x800
`, nullSites)
	s := newStreamChecker(tab, StreamOptions{})
	if _, err := hb.Stream(events(g.Events), hb.StreamOptions{Options: hb.Options{Sites: tab}}, s.visit); err != nil {
		t.Fatal(err)
	}
	var kept []*sacc
	for _, l := range s.states {
		kept = append(kept, l.derefs...)
	}
	if len(kept) != 4 {
		t.Fatalf("%d dereferences kept, want 4", len(kept))
	}
	for i, r := range kept {
		want := uint32(11)
		if i == 3 {
			want = 12
		}
		switch p := r.prev; {
		case p == nil || r.prevWrite == nil:
			t.Errorf("dereference %d: prev %v, prevWrite %v; want both", i, p, r.prevWrite)
		case p.Site != want || r.prevWrite.Site != 10:
			t.Errorf("dereference %d: prev at site %d, prevWrite at %d; want %d and 10", i, p.Site, r.prevWrite.Site, want)
		case p.prev != nil || p.prevWrite != nil || p.saw != nil || p.switches != nil:
			t.Errorf("dereference %d: its prev links to other accesses (prev %v, prevWrite %v, saw %v, switches %v)", i, p.prev, p.prevWrite, p.saw, p.switches)
		}
	}
	if kept[3].prev.Index != kept[2].Index {
		t.Errorf("the last dereference's prev is event %d, want the dereference before it, %d", kept[3].prev.Index, kept[2].Index)
	}
}
