package unicorn

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/precog-dev/precog/shim/trace"
)

// reversals describes Reversible's result as "site>site" pairs, with a "?"
// after the pairs whose order the trace does not know.
func reversals(t *testing.T, r *runner) []string {
	t.Helper()
	g := r.graph(t)
	var out []string
	for _, rv := range Reversible(g, Options{}) {
		s := fmt.Sprintf("%d>%d", g.Events[rv.First].Site, g.Events[rv.Second].Site)
		if !rv.Known {
			s += "?"
		}
		out = append(out, s)
	}
	return out
}

// The reload kernel's passing run (testdata/kernels/reload): goroutine 2
// writes x and y, each in a critical section, before goroutine 3 reads
// both. Both pairs can be reversed; the pair farther apart in the trace
// (more sync events between) ranks first, whatever its sites.
func TestReversibleRanksFarPairsFirst(t *testing.T) {
	for _, c := range []struct {
		order string // goroutine 2's writes, then goroutine 3's reads
		want  []string
	}{
		{"W1x W4y R3y R2x", []string{"1>2", "4>3"}},
		{"W4y W1x R2x R3y", []string{"4>3", "1>2"}},
	} {
		r := newRunner()
		for _, tok := range strings.Fields(c.order) {
			kind := map[byte]string{'R': "Read", 'W': "Write"}[tok[0]]
			g := map[byte]int{'W': 2, 'R': 3}[tok[0]]
			addr := uint64(x)
			if tok[2] == 'y' {
				addr = y
			}
			r.locked(g, kind, int(tok[1]-'0'), addr)
		}
		if got := reversals(t, r); !slices.Equal(got, c.want) {
			t.Errorf("%s: reversals %q, want %q", c.order, got, c.want)
		}
	}
}

// One pair per pair of sites: the rounds of a test repeat the same
// accesses.
func TestReversibleDedupesSitePairs(t *testing.T) {
	r := newRunner()
	for range 4 {
		r.locked(2, "Write", 1, x)
		r.locked(3, "Read", 2, x)
	}
	got := reversals(t, r)
	if want := []string{"1>2", "2>1"}; !slices.Equal(got, want) {
		t.Errorf("reversals %q, want %q", got, want)
	}
}

// Plain accesses with no sync event between them: the trace's order is a
// guess, ranked after the known pairs, and the other guess after it. A
// pair ordered by a channel is no candidate at all.
func TestReversibleGuessesAndSynchronization(t *testing.T) {
	g := build(t, `
1 g=1 Begin parent=none
2 g=1 ChanMake site=99 addr=0x800 cap=0
3 g=1 Fork site=100 child=2
4 g=1 Fork site=101 child=3
5 g=2 Begin parent=1
6 g=3 Begin parent=1
6.1 g=2 Write site=1 addr=0x10 value=1
6.2 g=3 Read site=2 addr=0x20
6.3 g=2 Write site=3 addr=0x20 value=1
7 g=2 ChanSend site=98 addr=0x800
8 g=3 ChanRecv site=97 addr=0x800 ok=true
8.1 g=3 Read site=4 addr=0x10
`)
	var got []string
	for _, rv := range Reversible(g, Options{}) {
		got = append(got, fmt.Sprintf("%d>%d known=%v flipped=%v", g.Events[rv.First].Site, g.Events[rv.Second].Site, rv.Known, rv.Flipped))
	}
	if want := []string{"2>3 known=false flipped=false", "3>2 known=false flipped=true"}; !slices.Equal(got, want) {
		t.Errorf("reversals %q, want %q", got, want)
	}
}

// A run forced into an order (targeted perturbation) knows it: the trace
// puts goroutine 2's plain writes before goroutine 3's reads (they carry
// the seq of goroutine 2's earlier Begin), but the forced orders say the
// read of y came before the write of y, and the write of x before the
// read of x. With them the run is W1(x) R2(x) R2(y) W1(y), P12; without
// them no pair has an order at all.
func TestPatternsForcedOrder(t *testing.T) {
	g := build(t, `
1 g=1 Begin parent=none
2 g=1 Fork site=100 child=2
3 g=1 Fork site=101 child=3
4 g=2 Begin parent=1
4.1 g=2 Write site=1 addr=0x10 value=1
4.2 g=2 Write site=4 addr=0x20 value=1
5 g=3 Begin parent=1
5.1 g=3 Read site=2 addr=0x10
5.2 g=3 Read site=3 addr=0x20
`)
	if rp := Patterns(g, Options{}); len(rp.Patterns) != 0 {
		t.Errorf("plain accesses, no forced order: patterns %q, want none", keys(rp))
	}
	index := func(site uint32) int {
		return slices.IndexFunc(g.Events, func(ev trace.Event) bool { return ev.Site == site })
	}
	forced := [][2]int{{index(3), index(4)}, {index(1), index(2)}}
	rp := Patterns(g, Options{Forced: forced})
	if !slices.Contains(keys(rp), "p12 W1(x)@1 R2(x)@2 R2(y)@3 W1(y)@4") {
		t.Errorf("forced orders: patterns %q, want P12", keys(rp))
	}
}
