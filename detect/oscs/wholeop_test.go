package oscs

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/precog-dev/precog/shim/trace"
)

// opSites is a site table whose sites belong to the functions of a
// lock-per-operation structure: site n is line n of the function its
// range names. x, y and z are the structure's fields. The Lock sites
// are lockAt's: one per function, two in Insert. Site 39, in Insert,
// reads a value that only decides branches (trace.UseBranch). Close and
// Stop test a flag and set it (sites 101 and 111, 104 and 114), each with
// an Unlock in its early exit (102, 112) before the set; Close's returns
// next (trace.Site.ExitLine: line 103), Stop's does not. Withdraw and
// Create lock at two sites each (120 and 123, 130 and 133) and read a
// field in their first sections to decide whether to go on (121 bal, 131
// closed); Withdraw's second section updates bal (124, 125), Create's
// checks closed again (134) before it writes (135). Poll (a queue's
// blocking take) locks at 140, reads items to decide (141), makes a
// waiter's channel (142) and registers it (143), unlocks (144), waits and
// reads items again past its Unlock (146), and relocks at 147 in its
// timeout branch. Put writes items (151), reads the waiters (152) and
// sends on the channel it finds (153); Push2 writes items and looks at
// nothing (161).
var opSites = func() *trace.SiteTable {
	lockAt := map[int]bool{10: true, 20: true, 30: true, 33: true, 40: true, 50: true, 55: true, 60: true, 70: true, 75: true, 80: true, 85: true, 90: true, 95: true, 100: true, 110: true, 120: true, 123: true, 130: true, 133: true, 140: true, 147: true, 150: true, 160: true,
		170: true, 180: true, 183: true, 186: true, 190: true, 195: true, 200: true, 205: true, 210: true, 215: true, 220: true, 225: true}
	t := new(trace.SiteTable)
	fn := map[int]string{10: "Add", 20: "Len", 30: "Insert", 40: "Flush", 50: "setA", 55: "setB", 60: "Get", 70: "Size", 75: "CopyInto", 80: "RemoveLast", 85: "Set", 90: "Reset", 95: "Push", 100: "Close", 110: "Stop", 120: "Withdraw", 130: "Create", 140: "Poll", 150: "Put", 160: "Push2",
		170: "Clear", 180: "Status", 190: "setN", 195: "setD", 200: "getN", 205: "getD", 210: "Load", 215: "Notify",
		220: "Finished", 225: "Send"}
	// The two-steps (trace.Site.After): Insert's second Lock after its
	// first (and again in a loop: mozilla3x's Run polls at it), Vector's
	// AddAll calling Size, then CopyInto, jsstring's Concat calling setA,
	// then setB, and kb4's Grow and Last made of helpers: setN then setD,
	// getN then getD, and serf's handleQueryResponse calling Finished,
	// then Send (and, for the control, the other way round).
	after := map[int]string{33: "30 33", 55: "50", 75: "70", 195: "190", 205: "200", 220: "225", 225: "220"}
	name := ""
	for id := 10; id < 230; id++ {
		if f, ok := fn[id]; ok {
			name = f
		}
		kind, expr, uses := "", "", ""
		switch {
		case lockAt[id]:
			kind, expr = "lock", "mu"
		case id == 31 || id == 34:
			// Insert's accesses of one field, one per section.
			kind, expr = "read", "x"
		case id == 39:
			kind, expr, uses = "read", "c", trace.UseBranch
		case id == 96:
			// Push's `q.margin = q.tail`: a copy (trace.UseCopy).
			kind, expr, uses = "write", "q.margin", trace.UseCopy
		case id == 101 || id == 111:
			kind, expr, uses = "read", "closed", trace.UseBranch
		case id == 104 || id == 114:
			kind, expr = "write", "closed"
		case id == 102 || id == 105 || id == 112 || id == 115 || id == 122 || id == 126 || id == 132 || id == 136:
			kind, expr = "unlock", "mu"
		case id == 121:
			kind, expr, uses = "read", "bal", trace.UseBranch
		case id == 124:
			kind, expr = "read", "bal"
		case id == 125:
			kind, expr = "write", "bal"
		case id == 131 || id == 134:
			kind, expr, uses = "read", "closed", trace.UseBranch
		case id == 135:
			kind, expr = "write", "res"
		case id == 141:
			kind, expr, uses = "read", "q.items", trace.UseBranch
		case id == 146:
			kind, expr = "read", "q.items"
		case id == 143 || id == 161 || id == 151:
			kind, expr = "write", map[int]string{143: "q.waiters", 151: "q.items", 161: "q.items"}[id]
		case id == 152:
			kind, expr = "read", "q.waiters"
		case id == 155 || id == 163:
			kind, expr, uses = "read", "q.disposed", trace.UseBranch
		case id == 144 || id == 148 || id == 154 || id == 162:
			kind, expr = "unlock", "mu"
		case id == 211:
			kind, expr, uses = "read", "p", trace.UseDeref
		case id == 216:
			kind, expr, uses = "read", "waiting", trace.UseBranch
		case id == 221 || id == 227:
			kind, expr = "read", "closed"
		case id == 226:
			kind, expr, uses = "read", "closed", trace.UseBranch
		case id == 222 || id == 228:
			kind, expr = "unlock", "mu"
		}
		s := trace.Site{ID: uint32(id), File: "/k/k.go", Line: id, Col: 2, Function: name, Kind: kind, Expr: expr, Uses: uses, After: after[id]}
		if id == 102 {
			s.ExitLine, s.ExitCol = 103, 9
		}
		t.Sites = append(t.Sites, s)
	}
	// Lookup searches by ID: the test's own sites go first.
	t.Sites = append([]trace.Site{{ID: 1, File: "/k/k.go", Function: "Test"}, {ID: 2, File: "/k/k.go", Function: "Test"}}, t.Sites...)
	return t
}()

// wholeCase checks a trace with the whole-operation filter on and off
// (want, and wantOff: the paper's OSCS), under Base and Opt.
func wholeCase(t *testing.T, name, text string, want, wantOff []string) {
	t.Helper()
	wholeCaseOf(t, opSites, name, text, want, wantOff)
}

// wholeCaseOf is wholeCase with another site table.
func wholeCaseOf(t *testing.T, st *trace.SiteTable, name, text string, want, wantOff []string) {
	t.Helper()
	for _, off := range []bool{false, true} {
		for _, alg := range []Algorithm{Base, Opt} {
			opts := Options{Algorithm: alg, NoCondFlags: true, NoSpinFlags: true, NoWholeOp: off}
			var got []string
			for _, f := range Check(graph(t, text), st, opts) {
				got = append(got, lines(f))
			}
			slices.Sort(got)
			w := want
			if off {
				w = wantOff
			}
			if !slices.Equal(got, w) {
				t.Errorf("%s %s NoWholeOp=%v: findings %q, want %q", name, alg, off, got, w)
			}
		}
	}
}

// wholeStart is g1 starting g2 and g3, which nothing orders.
const wholeStart = `
1 g=1 Begin parent=none
2 g=1 Fork site=1 child=2
3 g=1 Fork site=2 child=3
4 g=2 Begin parent=1
5 g=3 Begin parent=1
`

// The negative control, an LRU's shape: g2 calls Add twice, each one
// critical section that reads the state and writes it (x = x+1, y =
// new); g3 calls Len once, one section that reads it. Either order leaves
// a consistent structure; the paper's OSCS reports the read-only Len
// against the writes, the filter drops both pairs.
func TestWholeOpLockPerOperation(t *testing.T) {
	wholeCase(t, "lru", wholeStart+`
10 g=2 Lock site=10 addr=0x900
10.1 g=2 Read site=11 addr=0x100
10.2 g=2 Write site=12 addr=0x100 value=1
10.3 g=2 Write site=13 addr=0x200 value=7
11 g=2 Unlock site=14 addr=0x900
12 g=3 Lock site=20 addr=0x900
12.1 g=3 Read site=21 addr=0x100
12.2 g=3 Read site=22 addr=0x200
13 g=3 Unlock site=23 addr=0x900
14 g=2 Lock site=10 addr=0x900
14.1 g=2 Read site=11 addr=0x100
14.2 g=2 Write site=12 addr=0x100 value=2
14.3 g=2 Write site=13 addr=0x200 value=8
15 g=2 Unlock site=14 addr=0x900
`, nil, []string{"10 12 20 21", "10 13 20 22"})
}

// KB1's atomicity shape: Insert sets x in one critical section and reads
// it in a second one, taken at another Lock site of Insert; Flush's reset
// (a read-write section, a whole operation itself) can run between.
func TestWholeOpAtomicity(t *testing.T) {
	wholeCase(t, "kb1", wholeStart+`
10 g=2 Lock site=30 addr=0x900
10.1 g=2 Write site=31 addr=0x100 value=5
11 g=2 Unlock site=32 addr=0x900
12 g=2 Lock site=33 addr=0x900
12.1 g=2 Read site=34 addr=0x100
13 g=2 Unlock site=35 addr=0x900
14 g=3 Lock site=40 addr=0x900
14.1 g=3 Read site=41 addr=0x100
14.2 g=3 Write site=42 addr=0x100 value=0
15 g=3 Unlock site=43 addr=0x900
`, []string{"30 31 40 41", "30 31 40 42", "33 34 40 42"}, []string{"30 31 40 41", "30 31 40 42", "33 34 40 42"})
}

// pion/transport's retry loop: Insert reads x in its first section and
// carries it on, unlocks, waits on a channel, and locks again at its
// second site to read x anew; Flush, which rewrites x, closes that
// channel inside its section. Insert waited for Flush: Flush runs between
// the two sections whenever it does not run before both, so the order in
// which it breaks the premise is the one that always runs, and the order
// OSCS would report (Flush after both) cannot. The control is the same
// wait on a channel that the test's goroutine closes, which nothing
// orders after Flush: Flush may then come after both, and the KB1 shape
// stays reported.
func TestWholeOpWaitedFor(t *testing.T) {
	insert := func(closer int) string {
		return fmt.Sprintf(`
6 g=1 ChanMake site=2 addr=0x500 cap=0
10 g=2 Lock site=30 addr=0x900
10.1 g=2 Read site=31 addr=0x100
11 g=2 Unlock site=32 addr=0x900
14 g=3 Lock site=40 addr=0x900
14.1 g=3 Read site=41 addr=0x100
14.2 g=3 Write site=42 addr=0x100 value=0
15 g=%d ChanClose site=44 addr=0x500
16 g=3 Unlock site=43 addr=0x900
17 g=2 ChanRecv site=36 addr=0x500 ok=false
18 g=2 Lock site=33 addr=0x900
18.1 g=2 Read site=34 addr=0x100
19 g=2 Unlock site=35 addr=0x900
`, closer)
	}
	wholeCase(t, "waited for", wholeStart+insert(3), nil, []string{"30 31 40 42"})
	both := []string{"30 31 40 42", "33 34 40 42"}
	wholeCase(t, "waited for another", wholeStart+insert(1), both, both)
}

// An idempotent Close: `mu.Lock(); if c.closed { mu.Unlock(); return };
// c.closed = true; mu.Unlock()`, called by two goroutines. Whichever runs
// first closes, the other finds it closed and returns: both sections are
// whole operations, and the write below the early exit's Unlock in the
// source is not a use of what the exit read, since the exit returns
// first. Stop has the same shape, but its early exit's Unlock does not
// return next (no trace.Site.ExitLine): the write may run after it, and
// the pair stays reported.
func TestWholeOpEarlyExit(t *testing.T) {
	for _, c := range []struct {
		fn   int
		want []string
	}{{100, nil}, {110, []string{"110 110 111 114"}}} {
		wholeCase(t, fmt.Sprint(c.fn), wholeStart+fmt.Sprintf(`
10 g=2 Lock site=%[1]d addr=0x900
10.1 g=2 Read site=%[2]d addr=0x300
10.2 g=2 Write site=%[3]d addr=0x300 value=1
11 g=2 Unlock site=%[4]d addr=0x900
12 g=3 Lock site=%[1]d addr=0x900
12.1 g=3 Read site=%[2]d addr=0x300
13 g=3 Unlock site=%[5]d addr=0x900
`, c.fn, c.fn+1, c.fn+4, c.fn+5, c.fn+2), c.want, []string{fmt.Sprintf("%d %d %d %d", c.fn, c.fn, c.fn+1, c.fn+4)})
	}
}

// Withdraw's check and take, two sections at two Lock sites: g2 checks
// the balance and takes, g3 checks later, finds it short and returns
// after its first section. Had g3 checked between g2's check and take, it
// would have taken too: the pair of g3's check with g2's take stays
// reported, though each of g3's and g2's sections alone is a whole
// operation. Create's first section is abandoned the same way against
// Stop's set of closed, but Create checks closed again after it relocks:
// its stop decided nothing the other order could break. Neither is an
// Insert whose one section runs from its first Lock to its last Unlock,
// below its second Lock site (golang-lru's deleteExpired, when it need not
// wait): the call stopped nothing.
func TestWholeOpAbandonedCall(t *testing.T) {
	wholeCase(t, "withdraw", wholeStart+`
10 g=2 Lock site=120 addr=0x900
10.1 g=2 Read site=121 addr=0x400
11 g=2 Unlock site=122 addr=0x900
12 g=2 Lock site=123 addr=0x900
12.1 g=2 Read site=124 addr=0x400
12.2 g=2 Write site=125 addr=0x400 value=40
13 g=2 Unlock site=126 addr=0x900
14 g=3 Lock site=120 addr=0x900
14.1 g=3 Read site=121 addr=0x400
15 g=3 Unlock site=122 addr=0x900
`, []string{"120 121 123 125"}, []string{"120 121 123 125"})
	wholeCase(t, "create", wholeStart+`
10 g=2 Lock site=110 addr=0x900
10.1 g=2 Read site=111 addr=0x300
10.2 g=2 Write site=114 addr=0x300 value=1
11 g=2 Unlock site=115 addr=0x900
12 g=3 Lock site=130 addr=0x900
12.1 g=3 Read site=131 addr=0x300
13 g=3 Unlock site=132 addr=0x900
`, nil, []string{"110 114 130 131"})
	wholeCase(t, "one section", wholeStart+`
10 g=2 Lock site=30 addr=0x900
10.1 g=2 Read site=31 addr=0x100
11 g=2 Unlock site=35 addr=0x900
12 g=3 Lock site=40 addr=0x900
12.1 g=3 Read site=41 addr=0x100
12.2 g=3 Write site=42 addr=0x100 value=0
13 g=3 Unlock site=43 addr=0x900
`, nil, []string{"30 31 40 42"})
}

// puddle's acquire: Insert counts a call at either of its two Lock sites
// (x += 1 in each section, the second one only after work done unlocked),
// and Len reads the count. The two sections touch x only by a
// read-modify-write each, and the access after the first Unlock is under
// the second Lock: the second section only updates what it reads, so it
// takes no premise from the first, and each section is a whole
// operation, unlike KB1's, whose second section reads what the first
// wrote.
func TestWholeOpTwoSiteCounter(t *testing.T) {
	wholeCase(t, "counter", wholeStart+`
10 g=2 Lock site=30 addr=0x900
10.1 g=2 Read site=31 addr=0x100
10.2 g=2 Write site=31 addr=0x100 value=1
11 g=2 Unlock site=32 addr=0x900
12 g=2 Lock site=33 addr=0x900
12.1 g=2 Read site=34 addr=0x100
12.2 g=2 Write site=34 addr=0x100 value=2
13 g=2 Unlock site=35 addr=0x900
14 g=3 Lock site=20 addr=0x900
14.1 g=3 Read site=21 addr=0x100
15 g=3 Unlock site=23 addr=0x900
`, nil, []string{"20 21 33 34"})
}

// jsstring's setters: setA and setB each write one field in a section of
// their own (one update split over two calls: Concat calls setA, then
// setB), Get reads both in one. A section that only writes, next to its
// caller's other step, is not a whole operation.
func TestWholeOpSetters(t *testing.T) {
	wholeCase(t, "setters", wholeStart+`
10 g=2 Lock site=50 addr=0x900
10.1 g=2 Write site=51 addr=0x100 value=5
11 g=2 Unlock site=52 addr=0x900
12 g=2 Lock site=55 addr=0x900
12.1 g=2 Write site=56 addr=0x200 value=5
13 g=2 Unlock site=57 addr=0x900
14 g=3 Lock site=60 addr=0x900
14.1 g=3 Read site=61 addr=0x100
14.2 g=3 Read site=62 addr=0x200
15 g=3 Unlock site=63 addr=0x900
`, []string{"50 51 60 61", "55 56 60 62"}, []string{"50 51 60 61", "55 56 60 62"})
	// Concat calling setB in a loop after setA (Len, then At(i) for
	// every i, as setters): the last setB's neighbor is another setB,
	// and past those calls setA is its caller's first step.
	wholeCase(t, "setter loop", wholeStart+`
10 g=2 Lock site=50 addr=0x900
10.1 g=2 Write site=51 addr=0x100 value=5
11 g=2 Unlock site=52 addr=0x900
12 g=2 Lock site=55 addr=0x900
12.1 g=2 Write site=56 addr=0x300 value=5
13 g=2 Unlock site=57 addr=0x900
14 g=2 Lock site=55 addr=0x900
14.1 g=2 Write site=56 addr=0x200 value=5
15 g=2 Unlock site=57 addr=0x900
16 g=3 Lock site=60 addr=0x900
16.1 g=3 Read site=61 addr=0x100
16.2 g=3 Read site=62 addr=0x200
17 g=3 Unlock site=63 addr=0x900
`, []string{"50 51 60 61", "55 56 60 62"}, []string{"50 51 60 61", "55 56 60 62"})
	// A getter polled in a loop (g3's Gets) against an update whose
	// setter follows a step that only reads what it sets (open-feature's
	// multi-provider: `if s != p.Status() { p.setStatus(s) }`, here setA
	// reading x, then setB writing it): the poll commutes with the read,
	// so the setter is alone against it: dropped. Reported: a first step
	// that also writes what the poll reads (the poll can see the update
	// half done), and a second updater (its comparison reads what the
	// first one's setter writes: a check-then-act).
	update := func(g int, first string) string {
		return fmt.Sprintf(`
%[1]d0 g=%[1]d Lock site=50 addr=0x900
%[1]d0.1 g=%[1]d Read site=51 addr=0x100
%[2]s
%[1]d1 g=%[1]d Unlock site=52 addr=0x900
%[1]d2 g=%[1]d Lock site=55 addr=0x900
%[1]d2.1 g=%[1]d Write site=56 addr=0x100 value=%[1]d
%[1]d3 g=%[1]d Unlock site=57 addr=0x900
`, g, first)
	}
	poll := `
40 g=3 Lock site=60 addr=0x900
40.1 g=3 Read site=61 addr=0x100
40.2 g=3 Read site=62 addr=0x200
41 g=3 Unlock site=63 addr=0x900
42 g=3 Lock site=60 addr=0x900
42.1 g=3 Read site=61 addr=0x100
42.2 g=3 Read site=62 addr=0x200
43 g=3 Unlock site=63 addr=0x900
`
	wholeCase(t, "polled getter", wholeStart+update(2, "")+poll, nil, []string{"55 56 60 61"})
	wholeCase(t, "polled getter, half done", wholeStart+update(2, "20.2 g=2 Write site=53 addr=0x200 value=9")+poll,
		[]string{"55 56 60 61"}, []string{"50 53 60 62", "55 56 60 61"})
	wholeCase(t, "two updaters", `
1 g=1 Begin parent=none
2 g=1 Fork site=1 child=2
3 g=1 Fork site=2 child=4
4 g=2 Begin parent=1
5 g=4 Begin parent=1
`+update(2, "")+update(4, ""), []string{"50 51 55 56", "55 55 56 56"}, []string{"50 51 55 56", "55 55 56 56"})
	// Two updates that each take another lock first (Add's, reading the
	// members) and then compare with setA's read: the second (g4) finds
	// the status unchanged and stops, the first sets it after (the
	// review's board: a stale set). g4's comparison commutes with g2's,
	// but it is the counterpart of g2's step in another call of the same
	// update (the section before each is Add's): the pair stays. So it
	// does when g4's section before its comparison is Len's and both
	// write the members (another function's update of the same state);
	// not when they only read them.
	members := func(g, seq, site int, kind string) string {
		return fmt.Sprintf(`
%[2]d g=%[1]d Lock site=%[4]d addr=0x800
%[2]d.1 g=%[1]d %[5]s site=%[6]d addr=0x300
%[3]d g=%[1]d Unlock site=%[7]d addr=0x800
`, g, seq, seq+1, site, kind, site+1, site+3)
	}
	stops := func(other, kind string) string {
		return `
1 g=1 Begin parent=none
2 g=1 Fork site=1 child=2
3 g=1 Fork site=2 child=4
4 g=2 Begin parent=1
5 g=4 Begin parent=1
` + members(2, 6, 10, kind) + other + `
10 g=4 Lock site=50 addr=0x900
10.1 g=4 Read site=51 addr=0x100
11 g=4 Unlock site=52 addr=0x900
` + update(2, "")
	}
	wholeCase(t, "a second update that stops", stops(members(4, 8, 10, "Read"), "Read"), []string{"50 51 55 56"}, []string{"50 51 55 56"})
	wholeCase(t, "another update that stops", stops(members(4, 8, 20, "Write value=2"), "Write value=1"), []string{"10 11 20 21", "50 51 55 56"}, []string{"10 11 20 21", "50 51 55 56"})
	wholeCase(t, "a reader, then a poll", stops(members(4, 8, 20, "Read"), "Read"), nil, []string{"50 51 55 56"})
	// e9c1870 (review C's osc module): a poll whose section before its
	// comparison only reads what the update's section before its own
	// writes (a field, or the members' map read by key while the update
	// writes it) is no other update: dropped, as the poll of Status alone
	// is. Before the mend, a pair of sections that did not commute (or
	// shared a map one of them wrote) was taken for another update.
	wholeCase(t, "a reader of the update's writes, then a poll", stops(members(4, 8, 20, "Read"), "Write value=1"), nil, []string{"10 11 20 21", "50 51 55 56"})
	wholeCase(t, "a reader of the update's map, then a poll", stops(members(4, 8, 20, "MapRead"), "MapWrite"), nil, []string{"50 51 55 56"})
	wholeCase(t, "a writer of the update's map, then an update", stops(members(4, 8, 20, "MapWrite"), "MapRead"), []string{"50 51 55 56"}, []string{"50 51 55 56"})
	// The same with g4 comparing through Get, a second getter of x at
	// another site (60): the same check, so another update's (the
	// review's osc board: Reset compares with IsReady). A poll of the two
	// getters in turn, the update reading x through Get first, is a poll:
	// its section before the comparison is a check of x itself.
	getter := func(g, seq int) string {
		return fmt.Sprintf(`
%[2]d g=%[1]d Lock site=60 addr=0x900
%[2]d.1 g=%[1]d Read site=61 addr=0x100
%[3]d g=%[1]d Unlock site=63 addr=0x900
`, g, seq, seq+1)
	}
	second := strings.Replace(stops(members(4, 8, 20, "Write value=2"), "Write value=1"), `
10 g=4 Lock site=50 addr=0x900
10.1 g=4 Read site=51 addr=0x100
11 g=4 Unlock site=52 addr=0x900
`, getter(4, 10), 1)
	wholeCase(t, "another update that stops, through a second getter", second, []string{"10 11 20 21", "55 56 60 61"}, []string{"10 11 20 21", "55 56 60 61"})
	wholeCase(t, "a poll of two getters in turn", wholeStart+getter(2, 6)+getter(3, 8)+`
10 g=3 Lock site=50 addr=0x900
10.1 g=3 Read site=51 addr=0x100
11 g=3 Unlock site=52 addr=0x900
`+update(2, ""), nil, []string{"50 51 55 56"})
	// Two updates whose step before the comparison is an atomic (Flag's
	// member, stored and loaded back): g4 finds the status unchanged and
	// stops; it stored the atomic g2 loaded, another update's step. A
	// goroutine that bumps a counter of its own (an atomic Add, a store)
	// and loads the member before its comparison polls.
	flag := func(store uint64) string {
		return fmt.Sprintf(`
1 g=1 Begin parent=none
2 g=1 Fork site=1 child=2
3 g=1 Fork site=2 child=4
4 g=2 Begin parent=1
5 g=4 Begin parent=1
6 g=2 AtomicStore site=11 addr=0x400 value=2
6.1 g=2 AtomicLoad site=12 addr=0x400 value=2
8 g=4 AtomicStore site=11 addr=%#x value=4
8.1 g=4 AtomicLoad site=12 addr=0x400 value=4
10 g=4 Lock site=50 addr=0x900
10.1 g=4 Read site=51 addr=0x100
11 g=4 Unlock site=52 addr=0x900
`, store) + update(2, "")
	}
	wholeCase(t, "another update that stops, its step an atomic", flag(0x400), []string{"50 51 55 56"}, []string{"50 51 55 56"})
	wholeCase(t, "a counter bumped and an atomic loaded, then a poll", flag(0x500), nil, []string{"50 51 55 56"})
}

// Vector's getters: g3 reads the count in Size and then the data in
// CopyInto, two read-only sections; RemoveLast writes both between. A
// read-only section whose neighbor section touches what the other side
// writes is the multi-variable atomicity shape through two calls, when a
// function of the program makes those two calls (AddAll: CopyInto's Lock
// site lists Size's in After).
func TestWholeOpGetters(t *testing.T) {
	wholeCase(t, "getters", wholeStart+`
10 g=3 Lock site=70 addr=0x900
10.1 g=3 Read site=71 addr=0x100
11 g=3 Unlock site=72 addr=0x900
12 g=2 Lock site=80 addr=0x900
12.1 g=2 Read site=81 addr=0x100
12.2 g=2 Write site=82 addr=0x100 value=4
12.3 g=2 Write site=83 addr=0x200 value=0
13 g=2 Unlock site=84 addr=0x900
14 g=3 Lock site=75 addr=0x900
14.1 g=3 Read site=76 addr=0x200
15 g=3 Unlock site=77 addr=0x900
`, []string{"70 71 80 82", "75 76 80 83"}, []string{"70 71 80 82", "75 76 80 83"})
}

// serf's QueryResponse: handleQueryResponse asks Finished (one section
// that returns the closed flag) and then calls Send, whose one section
// checks the flag again (`if r.closed { return nil }`, a read that only
// decides branches) before it sends; Close tests and sets the flag in one
// section. Send, read-only, has for its previous neighbor its caller's
// first step, which touches what Close writes: the getter shape
// (TestWholeOpGetters). But Send takes nothing from what that step saw:
// its first access of the flag checks it afresh, so with Close between
// the two steps Send finds it closed, as when Close runs before both.
// The controls stay reported: a Send that uses the flag's value (site
// 227: it goes on past the section), and a Send called first, whose next
// neighbor Finished returns the value (the later step's check is what
// counts, not the earlier's: Len, then a Pop that checks the length and
// panics on an empty queue).
func TestWholeOpGetterChecksAgain(t *testing.T) {
	step := func(seq, lock, read int) string {
		return fmt.Sprintf(`
%[1]d g=3 Lock site=%[2]d addr=0x900
%[1]d.1 g=3 Read site=%[3]d addr=0x300
%[4]d g=3 Unlock site=%[5]d addr=0x900
`, seq, lock, read, seq+1, map[int]int{220: 222, 225: 228}[lock])
	}
	closer := `
20 g=2 Lock site=100 addr=0x900
20.1 g=2 Read site=101 addr=0x300
20.2 g=2 Write site=104 addr=0x300 value=1
21 g=2 Unlock site=105 addr=0x900
`
	wholeCase(t, "checks again", wholeStart+step(10, 220, 221)+step(12, 225, 226)+closer,
		nil, []string{"100 104 225 226"})
	wholeCase(t, "uses the value", wholeStart+step(10, 220, 221)+step(12, 225, 227)+closer,
		[]string{"100 104 225 227"}, []string{"100 104 225 227"})
	wholeCase(t, "close between", wholeStart+step(10, 220, 221)+closer+step(30, 225, 226),
		[]string{"100 104 220 221"}, []string{"100 104 220 221", "100 104 225 226"})
}

// oscsloop's lost update: Set and Reset are whole operations (each reads
// z and writes it) but both store x without reading it: whichever runs
// last decides x, unseen by the other.
func TestWholeOpLostUpdate(t *testing.T) {
	wholeCase(t, "lost update", wholeStart+`
10 g=2 Lock site=85 addr=0x900
10.1 g=2 Write site=86 addr=0x100 value=5
10.2 g=2 Read site=87 addr=0x300
10.3 g=2 Write site=88 addr=0x300 value=1
11 g=2 Unlock site=89 addr=0x900
14 g=3 Lock site=90 addr=0x900
14.1 g=3 Write site=91 addr=0x100 value=0
14.2 g=3 Read site=92 addr=0x300
14.3 g=3 Write site=93 addr=0x300 value=2
15 g=3 Unlock site=94 addr=0x900
`, []string{"85 86 90 91"}, []string{"85 86 90 91"})
	// pubsub's Percentile: each section fills x (0x100) and reads back
	// what it wrote: scratch space, whose leftover no one reads. A Get
	// that reads x afterwards finds the leftover: the lost update is
	// back.
	scratch := wholeStart + `
10 g=2 Lock site=85 addr=0x900
10.1 g=2 Write site=86 addr=0x100 value=5
10.2 g=2 Read site=87 addr=0x100
11 g=2 Unlock site=89 addr=0x900
14 g=3 Lock site=90 addr=0x900
14.1 g=3 Write site=91 addr=0x100 value=0
14.2 g=3 Read site=92 addr=0x100
15 g=3 Unlock site=94 addr=0x900
`
	wholeCase(t, "scratch", scratch, nil, []string{"85 86 90 91"})
	wholeCase(t, "scratch read later", scratch+`
16 g=1 Lock site=60 addr=0x900
16.1 g=1 Read site=61 addr=0x100
17 g=1 Unlock site=62 addr=0x900
`, []string{"85 86 90 91"}, []string{"60 61 85 86", "60 61 90 91", "85 86 90 91"})
	// The reader wrote x itself before the sections and takes no lock
	// since: its read finds their leftover all the same (review of the
	// rule: it took the reader's own old write for the one it reads).
	wholeCase(t, "scratch read by an earlier writer", `
1 g=1 Begin parent=none
1.1 g=1 Write site=50 addr=0x100 value=9
2 g=1 Fork site=1 child=2
3 g=1 Fork site=2 child=3
4 g=2 Begin parent=1
5 g=3 Begin parent=1
`+scratch[len(wholeStart):]+`
16 g=1 Sleep site=3 addr=0x0 value=0
16.1 g=1 Read site=61 addr=0x100
`, []string{"85 86 90 91"}, []string{"85 86 90 91"})
}

// bigcache's push: each call adds to the tail (read, then write: 0x300)
// and then copies the tail into the margin (0x100, a blind write whose
// site stores a loaded value as it is, trace.UseCopy). Whichever push
// runs last leaves the margin equal to the tail after both, which the
// commuting updates make the same: not a lost update. The true shape
// beside it: the margin written from the call's argument (site 98, no
// copy), or copied from a location the sections only read (0x200): the
// later push decides the margin unseen by the earlier, reported.
func TestWholeOpCopiedUpdate(t *testing.T) {
	// push is g's Push at seq: the tail (0x300) read and set to tail, then
	// src read and its value stored to the margin at site.
	push := func(g, seq, tail int, src string, site int) string {
		return fmt.Sprintf(`
%[2]d g=%[1]d Lock site=95 addr=0x900
%[2]d.1 g=%[1]d Read site=97 addr=0x300
%[2]d.2 g=%[1]d Write site=97 addr=0x300 value=%[3]d
%[2]d.3 g=%[1]d Read site=97 addr=%[4]s
%[2]d.4 g=%[1]d Write site=%[5]d addr=0x100 value=%[3]d
%[6]d g=%[1]d Unlock site=99 addr=0x900
`, g, seq, tail, src, site, seq+1)
	}
	wholeCase(t, "copy", wholeStart+push(2, 10, 5, "0x300", 96)+push(3, 12, 9, "0x300", 96), nil, []string{"95 95 96 96"})
	wholeCase(t, "argument", wholeStart+push(2, 10, 5, "0x300", 98)+push(3, 12, 9, "0x300", 98), []string{"95 95 98 98"}, []string{"95 95 98 98"})
	wholeCase(t, "copy of a read", wholeStart+push(2, 10, 5, "0x200", 96)+push(3, 12, 9, "0x200", 96), []string{"95 95 96 96"}, []string{"95 95 96 96"})
}

// golang-lru's deleteExpired: a call that found nothing expired yet
// unlocks, sleeps and locks again at a second site (30 then 33); the next
// call does its work in one section at the first site. That section is a
// whole operation: its previous neighbor, at a later site, is the earlier
// call's. The split call's second section (33, after 30 at an earlier
// site) is not when the other side writes what the first section read
// and carried on (0x200, read at 31: a site that does not say its value
// only decides branches): Len writes 0x200 here, and the second section
// reads it again and writes 0x100. When Len only reads, it can change
// nothing the call carries from its first section into its second, and
// both are whole operations (TestWholeOpSecondCallReader).
func TestWholeOpSecondCall(t *testing.T) {
	wholeCase(t, "second call", wholeStart+`
10 g=2 Lock site=30 addr=0x900
10.1 g=2 Read site=31 addr=0x200
11 g=2 Unlock site=32 addr=0x900
12 g=2 Lock site=33 addr=0x900
12.1 g=2 Read site=38 addr=0x200
12.2 g=2 Read site=34 addr=0x100
12.3 g=2 Write site=36 addr=0x100 value=1
13 g=2 Unlock site=35 addr=0x900
14 g=3 Lock site=20 addr=0x900
14.1 g=3 Read site=21 addr=0x100
14.2 g=3 Write site=22 addr=0x200 value=3
15 g=3 Unlock site=23 addr=0x900
16 g=2 Lock site=30 addr=0x900
16.1 g=2 Read site=31 addr=0x100
16.2 g=2 Write site=37 addr=0x100 value=2
17 g=2 Unlock site=32 addr=0x900
`, []string{"20 21 33 36", "20 22 33 38"}, []string{"20 21 30 37", "20 21 33 36", "20 22 33 38"})
}

// TestWholeOpSecondCallReader is TestWholeOpSecondCall with a Len that
// only reads: the split call's first section wrote nothing, so Len finds
// between the two sections the state it finds before them, and what the
// first section read Len does not change. Both of the call's sections are
// whole operations against it.
func TestWholeOpSecondCallReader(t *testing.T) {
	wholeCase(t, "second call, reader", wholeStart+`
10 g=2 Lock site=30 addr=0x900
10.1 g=2 Read site=31 addr=0x200
11 g=2 Unlock site=32 addr=0x900
12 g=2 Lock site=33 addr=0x900
12.1 g=2 Read site=38 addr=0x200
12.2 g=2 Read site=34 addr=0x100
12.3 g=2 Write site=36 addr=0x100 value=1
13 g=2 Unlock site=35 addr=0x900
14 g=3 Lock site=20 addr=0x900
14.1 g=3 Read site=21 addr=0x100
15 g=3 Unlock site=23 addr=0x900
16 g=2 Lock site=30 addr=0x900
16.1 g=2 Read site=31 addr=0x100
16.2 g=2 Write site=37 addr=0x100 value=2
17 g=2 Unlock site=32 addr=0x900
`, nil, []string{"20 21 30 37", "20 21 33 36"})
}

// A function that checks a flag under the lock, works unlocked and
// relocks (puddle's CreateResource: `if p.closed { return }`, construct,
// then push the resource), with Flush setting the flag (Close) on another
// goroutine. The first section's read only decides branches (site 39,
// trace.UseBranch): it carries a premise, not a value, into the second.
//   - recheck: the second section reads the flag again before it pushes
//     (puddle re-checks p.closed and destroys the resource): the premise is
//     checked anew, the call is two whole operations, and Flush's write
//     against either read is the order of two whole operations: silent
//     (the paper's OSCS reports both reads);
//   - no recheck: the second section pushes on the first's premise, which
//     Flush can break in between (a resource added to a closed pool, kernel
//     poolleak): reported;
//   - carried: the first section's read goes on past its Unlock (site 31
//     says nothing of branches: a size a later copy relies on), so the
//     second's re-read does not undo it: reported.
func TestWholeOpSplitPremise(t *testing.T) {
	const flush = `
12 g=3 Lock site=40 addr=0x900
12.1 g=3 Read site=41 addr=0x300
12.2 g=3 Write site=42 addr=0x300 value=1
13 g=3 Unlock site=43 addr=0x900
`
	wholeCase(t, "recheck", wholeStart+`
10 g=2 Lock site=30 addr=0x900
10.1 g=2 Read site=39 addr=0x300
11 g=2 Unlock site=32 addr=0x900
`+flush+`
14 g=2 Lock site=33 addr=0x900
14.1 g=2 Read site=39 addr=0x300
14.2 g=2 Read site=38 addr=0x200
14.3 g=2 Write site=36 addr=0x100 value=1
15 g=2 Unlock site=35 addr=0x900
`, nil, []string{"30 39 40 42", "33 39 40 42"})
	wholeCase(t, "no recheck", wholeStart+`
10 g=2 Lock site=30 addr=0x900
10.1 g=2 Read site=39 addr=0x300
11 g=2 Unlock site=32 addr=0x900
`+flush+`
14 g=2 Lock site=33 addr=0x900
14.1 g=2 Read site=38 addr=0x200
14.2 g=2 Write site=36 addr=0x100 value=1
15 g=2 Unlock site=35 addr=0x900
`, []string{"30 39 40 42"}, []string{"30 39 40 42"})
	wholeCase(t, "carried", wholeStart+`
10 g=2 Lock site=30 addr=0x900
10.1 g=2 Read site=31 addr=0x300
11 g=2 Unlock site=32 addr=0x900
`+flush+`
14 g=2 Lock site=33 addr=0x900
14.1 g=2 Read site=34 addr=0x300
14.2 g=2 Read site=38 addr=0x200
14.3 g=2 Write site=36 addr=0x100 value=1
15 g=2 Unlock site=35 addr=0x900
`, []string{"30 31 40 42", "33 34 40 42"}, []string{"30 31 40 42", "33 34 40 42"})
}

// TestWholeOpSealed is "carried" of TestWholeOpSplitPremise with Insert's
// first Unlock (site 32) sealed (trace.UseSealed): nothing the first
// section read reaches past it (ttlcache's expiration loop, which reads
// the earliest deadline, sleeps that long and looks at the queue afresh),
// so Flush between the two sections breaks no premise and both pairs go.
// The control stores in the first section (site 36, 0x500) what the
// second reads (site 38): the value read may go on through it, and the
// pairs stay.
func TestWholeOpSealed(t *testing.T) {
	st := &trace.SiteTable{Sites: slices.Clone(opSites.Sites)}
	for i := range st.Sites {
		if st.Sites[i].ID == 32 {
			st.Sites[i].Uses = trace.UseSealed
		}
	}
	const flush = `
12 g=3 Lock site=40 addr=0x900
12.1 g=3 Read site=41 addr=0x300
12.2 g=3 Write site=42 addr=0x300 value=1
13 g=3 Unlock site=43 addr=0x900
`
	insert := func(store, load string) string {
		return wholeStart + `
10 g=2 Lock site=30 addr=0x900
10.1 g=2 Read site=31 addr=0x300
` + store + `
11 g=2 Unlock site=32 addr=0x900
` + flush + `
14 g=2 Lock site=33 addr=0x900
14.1 g=2 Read site=34 addr=0x300
` + load + `
14.3 g=2 Write site=36 addr=0x100 value=1
15 g=2 Unlock site=35 addr=0x900
`
	}
	both := []string{"30 31 40 42", "33 34 40 42"}
	wholeCaseOf(t, st, "sealed", insert("", "14.2 g=2 Read site=38 addr=0x200"), nil, both)
	wholeCaseOf(t, opSites, "not sealed", insert("", "14.2 g=2 Read site=38 addr=0x200"), both, both)
	wholeCaseOf(t, st, "sealed, stored", insert("10.2 g=2 Write site=36 addr=0x500 value=3", "14.2 g=2 Read site=38 addr=0x500"), both, both)
}

// TestShape checks the note that names a finding's shape: KB1's pairs
// with Insert's second section are atomicity violations (Insert touches
// x in two sections), a reader whose goroutine touches x once against a
// writer is an order violation, and two blind writes a lost update.
func TestShape(t *testing.T) {
	shapes := func(text string) map[string]string {
		out := make(map[string]string)
		for _, f := range Check(graph(t, text), opSites, Options{NoCondFlags: true, NoSpinFlags: true, NoWholeOp: true}) {
			for _, n := range f.Evidence.Notes {
				if k, _, ok := strings.Cut(n, ":"); ok && strings.HasSuffix(k, "violation") || k == "lost update" {
					out[lines(f)] = k
				}
			}
		}
		return out
	}
	got := shapes(wholeStart + `
10 g=2 Lock site=30 addr=0x900
10.1 g=2 Write site=31 addr=0x100 value=5
11 g=2 Unlock site=32 addr=0x900
12 g=2 Lock site=33 addr=0x900
12.1 g=2 Read site=34 addr=0x100
13 g=2 Unlock site=35 addr=0x900
14 g=3 Lock site=40 addr=0x900
14.1 g=3 Read site=41 addr=0x100
14.2 g=3 Write site=42 addr=0x100 value=0
15 g=3 Unlock site=43 addr=0x900
`)
	want := map[string]string{"30 31 40 41": "atomicity violation", "30 31 40 42": "atomicity violation", "33 34 40 42": "atomicity violation"}
	if !maps.Equal(got, want) {
		t.Errorf("kb1: shapes %v, want %v", got, want)
	}
	got = shapes(wholeStart + `
10 g=2 Lock site=60 addr=0x900
10.1 g=2 Read site=61 addr=0x100
11 g=2 Unlock site=62 addr=0x900
12 g=3 Lock site=85 addr=0x900
12.1 g=3 Write site=86 addr=0x100 value=1
13 g=3 Unlock site=87 addr=0x900
14 g=2 Lock site=50 addr=0x900
14.1 g=2 Write site=51 addr=0x200 value=1
15 g=2 Unlock site=52 addr=0x900
16 g=3 Lock site=55 addr=0x900
16.1 g=3 Write site=56 addr=0x200 value=2
17 g=3 Unlock site=57 addr=0x900
`)
	want = map[string]string{"60 61 85 86": "order violation", "50 51 55 56": "lost update"}
	if !maps.Equal(got, want) {
		t.Errorf("order: shapes %v, want %v", got, want)
	}
	// Concat's two setters (setA, then setB: a two-step) against Set,
	// which writes both fields: each pair is a lost update, though the
	// setter's other step touches the other field Set writes (that
	// multi-variable shape is a reader's: TestWholeOpRepeatedCalls).
	got = shapes(wholeStart + `
10 g=2 Lock site=50 addr=0x900
10.1 g=2 Write site=51 addr=0x200 value=1
11 g=2 Unlock site=52 addr=0x900
12 g=2 Lock site=55 addr=0x900
12.1 g=2 Write site=56 addr=0x300 value=1
13 g=2 Unlock site=57 addr=0x900
14 g=3 Lock site=85 addr=0x900
14.1 g=3 Write site=86 addr=0x200 value=2
14.2 g=3 Write site=87 addr=0x300 value=2
15 g=3 Unlock site=88 addr=0x900
`)
	want = map[string]string{"50 51 85 86": "lost update", "55 56 85 87": "lost update"}
	if !maps.Equal(got, want) {
		t.Errorf("setters: shapes %v, want %v", got, want)
	}
}

// TestLockedTwice: when one helper locks both sections of the atomicity
// shape, the note names the functions that called it, so the two sections
// do not read as one place ("locked at k.go:30, then at k.go:30").
func TestLockedTwice(t *testing.T) {
	notes := func(text string) []string {
		var out []string
		for _, f := range Check(graph(t, text), opSites, Options{NoCondFlags: true, NoSpinFlags: true, NoWholeOp: true}) {
			for _, n := range f.Evidence.Notes {
				if strings.HasPrefix(n, "atomicity violation") {
					_, where, _ := strings.Cut(n, "(")
					where, _, _ = strings.Cut(where, ")")
					out = append(out, where)
				}
			}
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	// g2 calls the helper (entry site 20, lock site 30) from Add (its
	// entry site 11) and then from Get (61); g3 writes between.
	got := notes(wholeStart + `
9.1 g=2 FuncEnter site=11
9.2 g=2 FuncEnter site=20
10 g=2 Lock site=30 addr=0x900
10.1 g=2 Write site=31 addr=0x100 value=5
11 g=2 Unlock site=32 addr=0x900
11.1 g=2 FuncExit site=20
11.2 g=2 FuncExit site=11
11.3 g=2 FuncEnter site=61
11.4 g=2 FuncEnter site=20
12 g=2 Lock site=30 addr=0x900
12.1 g=2 Read site=31 addr=0x100
13 g=2 Unlock site=32 addr=0x900
13.1 g=2 FuncExit site=20
13.2 g=2 FuncExit site=61
14 g=3 Lock site=40 addr=0x900
14.1 g=3 Write site=42 addr=0x100 value=0
15 g=3 Unlock site=43 addr=0x900
`)
	if want := []string{"locked twice at k.go:30, from Add, then from Get"}; !slices.Equal(got, want) {
		t.Errorf("notes %q, want %q", got, want)
	}
	// Without function events (precog test's default, -funcs off) the
	// note does not say whether one call or two took the sections: a
	// test's setup and its body calling one helper read as two calls.
	got = notes(wholeStart + `
10 g=2 Lock site=30 addr=0x900
10.1 g=2 Write site=31 addr=0x100 value=5
11 g=2 Unlock site=32 addr=0x900
12 g=2 Lock site=30 addr=0x900
12.1 g=2 Read site=31 addr=0x100
13 g=2 Unlock site=32 addr=0x900
14 g=3 Lock site=40 addr=0x900
14.1 g=3 Write site=42 addr=0x100 value=0
15 g=3 Unlock site=43 addr=0x900
`)
	if want := []string{"locked twice at k.go:30, in one call or two"}; !slices.Equal(got, want) {
		t.Errorf("without function events: notes %q, want %q", got, want)
	}
}

// bigcache's cleanUp: a goroutine calls Len on every tick, each call one
// read-only section at one Lock site; Add's section falls between two of
// them. The neighbor sections are other calls of the same operation, not
// a caller's second step (as Vector's Size then CopyInto are), so Len's
// sections stay whole operations.
func TestWholeOpPeriodicGetter(t *testing.T) {
	wholeCase(t, "periodic", wholeStart+`
10 g=3 Lock site=20 addr=0x900
10.1 g=3 Read site=21 addr=0x100
11 g=3 Unlock site=23 addr=0x900
12 g=2 Lock site=10 addr=0x900
12.1 g=2 Read site=11 addr=0x100
12.2 g=2 Write site=12 addr=0x100 value=1
13 g=2 Unlock site=14 addr=0x900
14 g=3 Lock site=20 addr=0x900
14.1 g=3 Read site=21 addr=0x100
15 g=3 Unlock site=23 addr=0x900
`, nil, []string{"10 12 20 21"})
}

// Vector's Size, then CopyInto called in a loop (a generic vector's
// Len, then At(i) for each i): RemoveLast falls before the last call of
// CopyInto, whose neighbor is the CopyInto before it, another call of
// the same operation. Past those, Size is the step the loop relies on
// (CopyInto's Lock site lists Size's), so the pair stays.
func TestWholeOpGetterLoop(t *testing.T) {
	wholeCase(t, "getter loop", wholeStart+`
10 g=3 Lock site=70 addr=0x900
10.1 g=3 Read site=71 addr=0x100
11 g=3 Unlock site=72 addr=0x900
12 g=3 Lock site=75 addr=0x900
12.1 g=3 Read site=76 addr=0x200
13 g=3 Unlock site=77 addr=0x900
14 g=3 Lock site=75 addr=0x900
14.1 g=3 Read site=76 addr=0x200
15 g=3 Unlock site=77 addr=0x900
16 g=2 Lock site=80 addr=0x900
16.1 g=2 Read site=81 addr=0x100
16.2 g=2 Write site=82 addr=0x100 value=2
16.3 g=2 Write site=83 addr=0x200 value=0
17 g=2 Unlock site=84 addr=0x900
18 g=3 Lock site=75 addr=0x900
18.1 g=3 Read site=76 addr=0x200
19 g=3 Unlock site=77 addr=0x900
`, []string{"70 71 80 82", "75 76 80 83"}, []string{"70 71 80 82", "75 76 80 83"})
}

// mozilla3x's Run: a call that registers under the lock at one site
// (30), then polls in a loop that holds the lock across its back edge
// (`for t.wakeup == nil { t.mu.Unlock(); sleep; t.mu.Lock() }`): each
// poll a read-only section taken at a second Lock site (33) and ended at
// the Unlock above it (32); Flush's write falls between the second and
// third poll. Those polls' neighbors are polls at the same site, of one
// call's loop, not other calls (the function takes the lock at another
// site too), so the pair stays. The same loop taking each section whole
// in its body (`for { mu.Lock(); v := x; mu.Unlock(); ... }`, Unlock 35
// below Lock 33: paho's DefaultPinger.Run on every tick) reads afresh in
// each iteration, which Flush's one section falls before or after:
// dropped.
func TestWholeOpPolling(t *testing.T) {
	const run = wholeStart + `
10 g=3 Lock site=30 addr=0x900
10.1 g=3 Write site=31 addr=0x200 value=1
11 g=3 Unlock site=32 addr=0x900
12 g=3 Lock site=33 addr=0x900
12.1 g=3 Read site=34 addr=0x100
13 g=3 Unlock site=%[1]d addr=0x900
14 g=3 Lock site=33 addr=0x900
14.1 g=3 Read site=34 addr=0x100
15 g=3 Unlock site=%[1]d addr=0x900
16 g=2 Lock site=40 addr=0x900
16.1 g=2 Read site=41 addr=0x100
16.2 g=2 Write site=42 addr=0x100 value=1
17 g=2 Unlock site=43 addr=0x900
18 g=3 Lock site=33 addr=0x900
18.1 g=3 Read site=34 addr=0x100
19 g=3 Unlock site=%[1]d addr=0x900
`
	wholeCase(t, "polling", fmt.Sprintf(run, 32), []string{"33 34 40 42"}, []string{"33 34 40 42"})
	wholeCase(t, "ticks", fmt.Sprintf(run, 35), nil, []string{"33 34 40 42"})
}

// A test's loop against a library's two-step: g3 calls Add, Len, Add on
// one structure, g2 an Add that falls after Len. Without a function of
// the program that calls Add and then Len (a test's worker: Len's Lock
// site lists nothing in After), Len's neighbors are separate operations
// and the pair is dropped (fastcache's Set then Get); with one (After
// lists Add's Lock site: a library's check-then-act), Len is a caller's
// step whose premise g2's Add changes, and the pair stays.
func TestWholeOpTestLoop(t *testing.T) {
	text := wholeStart + `
10 g=3 Lock site=10 addr=0x900
10.1 g=3 Read site=11 addr=0x100
10.2 g=3 Write site=12 addr=0x100 value=1
11 g=3 Unlock site=14 addr=0x900
12 g=3 Lock site=20 addr=0x900
12.1 g=3 Read site=21 addr=0x100
13 g=3 Unlock site=23 addr=0x900
14 g=2 Lock site=10 addr=0x900
14.1 g=2 Read site=11 addr=0x100
14.2 g=2 Write site=12 addr=0x100 value=2
15 g=2 Unlock site=14 addr=0x900
16 g=3 Lock site=10 addr=0x900
16.1 g=3 Read site=11 addr=0x100
16.2 g=3 Write site=12 addr=0x100 value=3
17 g=3 Unlock site=14 addr=0x900
`
	wholeCase(t, "test loop", text, nil, []string{"10 12 20 21"})
	lib := &trace.SiteTable{Sites: slices.Clone(opSites.Sites)}
	for i := range lib.Sites {
		if lib.Sites[i].ID == 20 {
			lib.Sites[i].After = "10"
		}
	}
	for _, alg := range []Algorithm{Base, Opt} {
		var got []string
		for _, f := range Check(graph(t, text), lib, Options{Algorithm: alg, NoCondFlags: true, NoSpinFlags: true}) {
			got = append(got, lines(f))
		}
		if want := []string{"10 12 20 21"}; !slices.Equal(got, want) {
			t.Errorf("library two-step %s: findings %q, want %q", alg, got, want)
		}
	}
}

// A queue's blocking take against a put (go-datastructures' Queue): Poll
// finds no item, makes a waiter's channel and registers it in one section
// (140-144), then waits unlocked and reads the items again once woken,
// past its Unlock (146); in its timeout branch it relocks (147), so its
// section looks like a call that stopped on a premise (an empty queue)
// that Put's write then breaks.
//   - answered by a channel: Put's section sends on the channel Poll's
//     section made: each order is handled by the later section, silent;
//   - answered by a location: Put's section reads the waiters Poll's
//     section wrote: silent;
//   - unanswered: Push2 writes the items and looks at nothing Poll left:
//     the premise breaks unseen (the shape of a check-then-wait that
//     misses its wake-up), reported.
func TestWholeOpAnswered(t *testing.T) {
	poll := `
10 g=2 Lock site=140 addr=0x900
10.1 g=2 Read site=141 addr=0x100
11 g=2 ChanMake site=142 addr=0xc00 cap=1
11.1 g=2 Write site=143 addr=0x300 value=1
12 g=2 Unlock site=144 addr=0x900
`
	wholeCase(t, "answered by a channel", wholeStart+poll+`
14 g=3 Lock site=150 addr=0x900
14.1 g=3 Read site=155 addr=0x400
14.2 g=3 Write site=151 addr=0x100 value=1
15 g=3 ChanSend site=153 addr=0xc00 elem=1
16 g=3 Unlock site=154 addr=0x900
`, nil, []string{"140 141 150 151"})
	wholeCase(t, "answered by a location", wholeStart+poll+`
14 g=3 Lock site=150 addr=0x900
14.1 g=3 Read site=155 addr=0x400
14.2 g=3 Write site=151 addr=0x100 value=1
14.3 g=3 Read site=152 addr=0x300
15 g=3 Unlock site=154 addr=0x900
`, nil, []string{"140 141 150 151", "140 143 150 152"})
	wholeCase(t, "unanswered", wholeStart+poll+`
14 g=3 Lock site=160 addr=0x900
14.1 g=3 Read site=163 addr=0x400
14.2 g=3 Write site=161 addr=0x100 value=1
15 g=3 Unlock site=162 addr=0x900
`, []string{"140 141 160 161"}, []string{"140 141 160 161"})
}

// A reset against a getter (hystrix-go's collectors' Reset, which makes
// every counter anew in one section, against the event stream's reads):
// Clear only writes, in the one section of its call, and Get reads in
// one; either order leaves Get the old state or the new one. Beside it,
// the shapes that stay: a reader over three sections of one call
// (mysqlslave's Status: the first field, then a flag, then the second
// field, with Clear between the first and the third), an update made of
// two helpers that one function calls in turn, each with a lock of its
// own, against a reader made the same way (kb4's Grow and Last through
// setN, setD and getN, getD), and a store over nil against a later
// section that dereferences the location unchecked (in the other order
// it reads nil).
func TestWholeOpLoneSetter(t *testing.T) {
	// g1 gives both fields a value before it starts g2 and g3.
	start := `
1 g=1 Begin parent=none
1.1 g=1 Write site=1 addr=0x100 value=1
1.2 g=1 Write site=1 addr=0x200 value=2
2 g=1 Fork site=1 child=2
3 g=1 Fork site=2 child=3
4 g=2 Begin parent=1
5 g=3 Begin parent=1
`
	clear := `
10 g=2 Lock site=170 addr=0x900
10.1 g=2 Write site=171 addr=0x100 value=3
10.2 g=2 Write site=172 addr=0x200 value=4
11 g=2 Unlock site=173 addr=0x900
`
	wholeCase(t, "reset", start+clear+`
14 g=3 Lock site=60 addr=0x900
14.1 g=3 Read site=61 addr=0x100
14.2 g=3 Read site=62 addr=0x200
15 g=3 Unlock site=63 addr=0x900
`, nil, []string{"60 61 170 171", "60 62 170 172"})
	wholeCase(t, "status", start+`
6 g=3 Lock site=180 addr=0x900
6.1 g=3 Read site=181 addr=0x100
7 g=3 Unlock site=182 addr=0x900
8 g=3 Lock site=183 addr=0x900
8.1 g=3 Read site=184 addr=0x300
9 g=3 Unlock site=185 addr=0x900
`+clear+`
14 g=3 Lock site=186 addr=0x900
14.1 g=3 Read site=187 addr=0x200
15 g=3 Unlock site=188 addr=0x900
`, []string{"170 171 180 181", "170 172 186 187"}, []string{"170 171 180 181", "170 172 186 187"})
	wholeCase(t, "helpers", start+`
10 g=2 Lock site=190 addr=0x900
10.1 g=2 Write site=191 addr=0x100 value=3
11 g=2 Unlock site=192 addr=0x900
12 g=2 Lock site=195 addr=0x910
12.1 g=2 Write site=196 addr=0x200 value=4
13 g=2 Unlock site=197 addr=0x910
14 g=3 Lock site=200 addr=0x900
14.1 g=3 Read site=201 addr=0x100
15 g=3 Unlock site=202 addr=0x900
16 g=3 Lock site=205 addr=0x910
16.1 g=3 Read site=206 addr=0x200
17 g=3 Unlock site=207 addr=0x910
`, []string{"190 191 200 201", "195 196 205 206"}, []string{"190 191 200 201", "195 196 205 206"})
	// A lone setter of one field against a getter that is one step of
	// a caller's two (getN, then getD: kb4's Last) whose other step
	// reads only what the setter leaves alone (pterm's DisableColor
	// against rawOutput, then printColorEnabled): the set falls before
	// both steps, between them or after both, and between is before
	// both as far as getD can tell: dropped. Reported: the setter also
	// writes what the other step reads (Clear: a snapshot torn between
	// the two getters, the multi-variable atomicity shape).
	getters := `
14 g=3 Lock site=200 addr=0x900
14.1 g=3 Read site=201 addr=0x100
15 g=3 Unlock site=202 addr=0x900
16 g=3 Lock site=205 addr=0x900
16.1 g=3 Read site=206 addr=0x200
17 g=3 Unlock site=207 addr=0x900
`
	wholeCase(t, "getter's other step commutes", start+`
10 g=2 Lock site=190 addr=0x900
10.1 g=2 Write site=191 addr=0x100 value=3
11 g=2 Unlock site=192 addr=0x900
`+getters, nil, []string{"190 191 200 201"})
	wholeCase(t, "getter's other step reads the set", start+clear+getters,
		[]string{"170 171 200 201", "170 172 205 206"}, []string{"170 171 200 201", "170 172 205 206"})
	// A setter whose function takes another lock too (Withdraw: 120,
	// then 123; pubsub's recvMessages reads a setting under eoMu, sets
	// the response time under pingMu) against a getter alone (Get):
	// dropped when all else its goroutine does commutes with the
	// getter's section (extentCommutes), reported when a step of it
	// writes what the getter reads (review A's three updates).
	multi := func(steps string) string {
		return start + `
10 g=2 Lock site=120 addr=0x910
10.1 g=2 Read site=124 addr=0x300
11 g=2 Unlock site=122 addr=0x910
` + steps + `
30 g=2 Lock site=123 addr=0x900
30.1 g=2 Write site=125 addr=0x100 value=3
31 g=2 Unlock site=126 addr=0x900
40 g=3 Lock site=60 addr=0x900
40.1 g=3 Read site=61 addr=0x100
40.2 g=3 Read site=62 addr=0x300
40.3 g=3 AtomicLoad site=64 addr=0x200 value=0
40.4 g=3 MapIter site=65 addr=0x500
41 g=3 Unlock site=63 addr=0x900
`
	}
	wholeCase(t, "setter after another lock", multi(""), nil, []string{"60 61 123 125"})
	wholeCase(t, "setter after another lock, twice", multi(`
21 g=2 Lock site=123 addr=0x900
21.1 g=2 Write site=125 addr=0x100 value=2
22 g=2 Unlock site=126 addr=0x900
23 g=2 Lock site=120 addr=0x910
23.1 g=2 Read site=124 addr=0x300
24 g=2 Unlock site=122 addr=0x910
25 g=2 AtomicStore site=127 addr=0x210 value=1
25.1 g=2 MapRead site=127 addr=0x500
`), nil, []string{"60 61 123 125"})
	// The count taken in a callee's section (Add's, at 10), by an
	// atomic outside any section, or by a map write in a section of
	// the function's own: the getter between the count and the set
	// sees the update half done.
	wholeCase(t, "a callee's step", multi(`
21 g=2 Lock site=10 addr=0x900
21.1 g=2 Write site=12 addr=0x300 value=1
22 g=2 Unlock site=14 addr=0x900
`), []string{"60 61 123 125"}, []string{"10 12 60 62", "60 61 123 125"})
	wholeCase(t, "an atomic step", multi(`
21 g=2 AtomicStore site=127 addr=0x200 value=1
`), []string{"60 61 123 125"}, []string{"60 61 123 125"})
	wholeCase(t, "a map step", multi(`
21 g=2 Lock site=120 addr=0x900
21.1 g=2 MapWrite site=127 addr=0x500
22 g=2 Unlock site=122 addr=0x900
`), []string{"60 61 123 125"}, []string{"60 61 123 125"})
	// A step at the set's own Lock site (a loop that counts, then sets:
	// its sections at that site are taken for other calls only in what
	// the set writes too), and one taken by a goroutine the update
	// starts and waits for (its events fall between the updater's first
	// and last: sandwiched).
	wholeCase(t, "a step at the set's site", multi(`
21 g=2 Lock site=123 addr=0x900
21.1 g=2 Read site=124 addr=0x300
21.2 g=2 Write site=125 addr=0x300 value=1
22 g=2 Unlock site=126 addr=0x900
`), []string{"60 61 123 125"}, []string{"60 61 123 125", "60 62 123 125"})
	wholeCase(t, "a started goroutine's step", multi(`
21 g=2 WGAdd site=127 addr=0x700 delta=1
22 g=2 Fork site=127 child=4
23 g=4 Begin parent=2
24 g=4 Lock site=10 addr=0x900
24.1 g=4 Write site=12 addr=0x300 value=1
25 g=4 Unlock site=14 addr=0x900
26 g=4 WGDone site=127 addr=0x700
27 g=4 End
28 g=2 WGWait site=127 addr=0x700
`), []string{"60 61 123 125"}, []string{"10 12 60 62", "60 61 123 125"})
	// The step writes the setting the getter reads, in a section of the
	// same lock as the set's (seatclaim's KeepAlive before the revert).
	wholeCase(t, "setter after a step", multi(`
21 g=2 Lock site=120 addr=0x900
21.1 g=2 Write site=124 addr=0x300 value=7
22 g=2 Unlock site=122 addr=0x900
`), []string{"60 61 123 125", "60 62 120 124"}, []string{"60 61 123 125", "60 62 120 124"})
	// The update compares the value through Get (60) before it sets it,
	// after writing the members (120); another update writes the members
	// and compares through Get too (the board's Reset, which may find the
	// value unchanged and stop): the set is not alone against that
	// comparison (anotherCall), though each section commutes with it.
	wholeCase(t, "another update's comparison", start+`
10 g=2 Lock site=120 addr=0x910
10.1 g=2 Write site=124 addr=0x400 value=1
11 g=2 Unlock site=122 addr=0x910
20 g=2 Lock site=60 addr=0x900
20.1 g=2 Read site=61 addr=0x100
21 g=2 Unlock site=63 addr=0x900
30 g=2 Lock site=123 addr=0x900
30.1 g=2 Write site=125 addr=0x100 value=3
31 g=2 Unlock site=126 addr=0x900
40 g=3 Lock site=120 addr=0x910
40.1 g=3 Write site=124 addr=0x400 value=0
41 g=3 Unlock site=122 addr=0x910
42 g=3 Lock site=60 addr=0x900
42.1 g=3 Read site=61 addr=0x100
43 g=3 Unlock site=63 addr=0x900
`, []string{"120 120 124 124", "60 61 123 125"}, []string{"120 120 124 124", "60 61 123 125"})
	wholeCase(t, "over nil", wholeStart+clear+`
14 g=3 Lock site=210 addr=0x900
14.1 g=3 Read site=211 addr=0x100
15 g=3 Unlock site=212 addr=0x900
`, []string{"170 171 210 211"}, []string{"170 171 210 211"})
	// A check that decides on the value (Mozilla-3's notifier reads
	// whether the waiter is waiting, and notifies it or not): which
	// section runs first decides what Notify does.
	wholeCase(t, "check", start+clear+`
14 g=3 Lock site=215 addr=0x900
14.1 g=3 Read site=216 addr=0x100
15 g=3 Unlock site=217 addr=0x900
`, []string{"170 171 215 216"}, []string{"170 171 215 216"})
	// A lone setter against a reader whose function takes the lock at
	// two sites (Insert's 30 and 33): a first section that marks it
	// running, then a loop whose every iteration takes the lock whole
	// and reads both fields (paho's DefaultPinger.Run against
	// PacketSent): no other section of the call touches what Reset
	// writes, so each iteration reads it afresh and Reset falls before
	// or after it: dropped. Reported: the loop holds the lock across
	// its back edge (each poll ends at the Unlock above its Lock,
	// mozilla3x's), whether it only reads or also counts its polls
	// (0x400), or its iterations read different fields (a snapshot
	// taken over two sections, mysqlslave's Status in a loop).
	ticks := func(unlock int, first, second string) string {
		return fmt.Sprintf(start+`
6 g=3 Lock site=30 addr=0x900
6.1 g=3 Write site=31 addr=0x300 value=1
7 g=3 Unlock site=32 addr=0x900
8 g=3 Lock site=33 addr=0x900
%[2]s
9 g=3 Unlock site=%[1]d addr=0x900
`+clear+`
14 g=3 Lock site=33 addr=0x900
%[3]s
15 g=3 Unlock site=%[1]d addr=0x900
`, unlock, first, second)
	}
	const (
		both    = "8.1 g=3 Read site=34 addr=0x100\n8.2 g=3 Read site=36 addr=0x200"
		again   = "14.1 g=3 Read site=34 addr=0x100\n14.2 g=3 Read site=36 addr=0x200"
		counted = "\n%s.3 g=3 Read site=37 addr=0x400\n%s.4 g=3 Write site=38 addr=0x400 value=%s"
	)
	tickPairs := []string{"33 34 170 171", "33 36 170 172"}
	wholeCase(t, "ticks", ticks(35, both, again), nil, tickPairs)
	wholeCase(t, "relocked ticks", ticks(32, both, again), tickPairs, tickPairs)
	wholeCase(t, "counted relocked ticks", ticks(32, both+fmt.Sprintf(counted, "8", "8", "1"), again+fmt.Sprintf(counted, "14", "14", "2")), tickPairs, tickPairs)
	wholeCase(t, "split ticks", ticks(35, both, "14.2 g=3 Read site=36 addr=0x200"), tickPairs, tickPairs)
	// The read came first, dereferenced what it found and went on: the
	// location did not hold nil, whatever the trace knows of it (a
	// write in an earlier GC epoch).
	wholeCase(t, "read first", wholeStart+`
8 g=3 Lock site=210 addr=0x900
8.1 g=3 Read site=211 addr=0x100
9 g=3 Unlock site=212 addr=0x900
`+clear, nil, []string{"170 171 210 211"})
}

// listSites is a connection pool's idle list (redigo's Pool): Get
// (sites 10-29) pops idle connections in a loop, `for l.front != nil {
// pc := l.front; l.count--; l.front = pc.next; pc.next = nil;
// mu.Unlock(); (test it, fail) mu.Lock(); p.active-- }; if p.closed
// {...}`, at two Lock sites (10, and 20 at the loop's end); Put (30-39)
// pushes one: `pc.next = l.front; pc.prev = nil; l.front.prev = pc;
// l.front = pc; l.count++`. Site 11 is the loop's check
// (trace.UseBranch); 23 reads l.front after the relock for its value (the
// controls); each update in place is a read and a write at one line and
// column (13 and 14, 21 and 22, 37 and 38).
var listSites = func() *trace.SiteTable {
	t := &trace.SiteTable{Sites: []trace.Site{{ID: 1, File: "/k/k.go", Function: "Test"}, {ID: 2, File: "/k/k.go", Function: "Test"}}}
	for _, s := range []trace.Site{
		{ID: 10, Kind: "lock", Expr: "mu"}, {ID: 11, Kind: "read", Expr: "l.front", Uses: "loop-exit branch ptr"},
		{ID: 12, Kind: "read", Expr: "l.front", Uses: trace.UsePointer},
		{ID: 13, Kind: "read", Expr: "l.count"}, {ID: 14, Line: 13, Kind: "write", Expr: "l.count"},
		{ID: 15, Kind: "read", Expr: "pc.next", Uses: trace.UsePointer}, {ID: 16, Kind: "write", Expr: "l.front"},
		{ID: 17, Kind: "write", Expr: "pc.next"}, {ID: 18, Kind: "unlock", Expr: "mu"},
		{ID: 20, Kind: "lock", Expr: "mu"}, {ID: 21, Kind: "read", Expr: "p.active"}, {ID: 22, Line: 21, Kind: "write", Expr: "p.active"},
		{ID: 23, Kind: "read", Expr: "l.front", Uses: trace.UsePointer}, {ID: 24, Kind: "read", Expr: "p.closed", Uses: trace.UseBranch},
		{ID: 25, Line: 15, Col: 3, Kind: "write", Expr: "pc.next.prev"},
		{ID: 30, Kind: "lock", Expr: "mu"}, {ID: 31, Kind: "read", Expr: "l.front", Uses: trace.UsePointer}, {ID: 32, Kind: "write", Expr: "pc.next"},
		{ID: 33, Kind: "write", Expr: "pc.prev"}, {ID: 34, Kind: "read", Expr: "l.front", Uses: trace.UsePointer},
		{ID: 35, Kind: "write", Expr: "l.front.prev"}, {ID: 36, Kind: "write", Expr: "l.front"},
		{ID: 37, Kind: "read", Expr: "l.count"}, {ID: 38, Line: 37, Kind: "write", Expr: "l.count"}, {ID: 39, Kind: "unlock", Expr: "mu"},
	} {
		if s.Line == 0 {
			s.Line = int(s.ID)
		}
		if s.Col == 0 {
			s.Col = 2
		}
		s.File, s.Function = "/k/k.go", "Get"
		if s.ID >= 30 {
			s.Function = "Put"
		}
		t.Sites = append(t.Sites, s)
	}
	return t
}()

// A Get that pops in a loop and relocks at the loop's end, against a
// Put between two iterations: the second section checks the list's
// front anew before it pops (its first access of l.front only decides
// the loop's branch) and updates the count in place, and what the first
// carries past its Unlock is the connection it took out of the list
// (read, then overwritten: l.front and the node's link), so the Put
// breaks nothing the call carries: its connection is the next one
// popped. The controls stay reported: the second section reads the
// front for its value first (site 23: it takes the front its first one
// left, KB1's shape); the first carries the count it read (a scalar, an
// index it reserved: site 13 without its update in place); the first
// decides on a count that the Put overwrites unread (a reset) and the
// second does not read.
func TestWholeOpLoopRecheck(t *testing.T) {
	put := `
12 g=3 Lock site=30 addr=0x900
12.1 g=3 Read site=31 addr=0x100
12.2 g=3 Write site=32 addr=0x600 value=1
12.3 g=3 Write site=33 addr=0x608 value=0
12.4 g=3 Read site=34 addr=0x100
12.5 g=3 Write site=35 addr=0x708 value=1
12.6 g=3 Write site=36 addr=0x100 value=2
%s
13 g=3 Unlock site=39 addr=0x900
`
	pop := `
10 g=2 Lock site=10 addr=0x900
10.1 g=2 Read site=11 addr=0x100
10.2 g=2 Read site=12 addr=0x100
%s
10.5 g=2 Read site=15 addr=0x500
10.55 g=2 Write site=25 addr=0x708 value=0
10.6 g=2 Write site=16 addr=0x100 value=1
10.7 g=2 Write site=17 addr=0x500 value=0
11 g=2 Unlock site=18 addr=0x900
%s
14 g=2 Lock site=20 addr=0x900
14.1 g=2 Read site=21 addr=0x200
14.2 g=2 Write site=22 addr=0x200 value=1
%s
14.95 g=2 Read site=24 addr=0x300
15 g=2 Unlock site=18 addr=0x900
`
	const (
		count = "10.3 g=2 Read site=13 addr=0x180\n10.4 g=2 Write site=14 addr=0x180 value=1"
		kept  = count + "\n10.45 g=2 Read site=21 addr=0x180"
		inc   = "12.7 g=3 Read site=37 addr=0x180\n12.8 g=3 Write site=38 addr=0x180 value=2"
		again = `
14.4 g=2 Read site=12 addr=0x100
14.5 g=2 Read site=13 addr=0x180
14.6 g=2 Write site=14 addr=0x180 value=1
14.7 g=2 Read site=15 addr=0x600
14.75 g=2 Write site=25 addr=0x708 value=0
14.8 g=2 Write site=16 addr=0x100 value=1
14.9 g=2 Write site=17 addr=0x600 value=0`
		recheck = "14.3 g=2 Read site=11 addr=0x100" + again
		value   = "14.3 g=2 Read site=23 addr=0x100" + again
	)
	all := []string{"10 15 30 35", "15 20 30 32", "15 20 30 35", "17 20 30 32"}
	for _, c := range []struct {
		name             string
		first, r, second string
		want, wantOff    []string
	}{
		{"recheck", count, inc, recheck, nil, all},
		{"value", count, inc, value, all, all},
		{"kept", kept, inc, recheck, all, all},
	} {
		wholeCaseOf(t, listSites, c.name, wholeStart+fmt.Sprintf(pop, c.first, fmt.Sprintf(put, c.r), c.second), c.want, c.wantOff)
	}
}

// Two Puts of the idle list: the first pushes X (its link X.prev set to
// nil, 0x508) and stores it in the front; the second reads the front and
// sets the old front's link, X.prev, to its own node: a write reached
// through the pointer the first Put stored, which in the other order
// would have gone to another node, so it is no lost update of X.prev.
// The control: the front the second Put follows (0x100) is not the one
// the first Put stored (it pushed onto another list, 0x110): two blind
// writes of one field, reported; and so they are when the front it
// follows is one it stored itself (own).
func TestWholeOpReached(t *testing.T) {
	const puts = `
10 g=2 Lock site=30 addr=0x900
10.1 g=2 Read site=31 addr=%[1]s
10.2 g=2 Write site=32 addr=0x500 value=1
10.3 g=2 Write site=33 addr=0x508 value=0
10.4 g=2 Write site=36 addr=%[1]s value=1
11 g=2 Unlock site=39 addr=0x900
12 g=3 Lock site=30 addr=0x900
12.10 g=3 Read site=31 addr=0x100
12.20 g=3 Write site=32 addr=0x600 value=1
12.30 g=3 Write site=33 addr=0x608 value=0%[2]s
12.40 g=3 Read site=34 addr=0x100
12.50 g=3 Write site=35 addr=0x508 value=1
12.60 g=3 Write site=36 addr=0x100 value=2
13 g=3 Unlock site=39 addr=0x900
`
	const own = "\n12.35 g=3 Write site=36 addr=0x100 value=3"
	wholeCaseOf(t, listSites, "linked", wholeStart+fmt.Sprintf(puts, "0x100", ""), nil, []string{"30 30 33 35"})
	wholeCaseOf(t, listSites, "unlinked", wholeStart+fmt.Sprintf(puts, "0x110", ""), []string{"30 30 33 35"}, []string{"30 30 33 35"})
	wholeCaseOf(t, listSites, "own", wholeStart+fmt.Sprintf(puts, "0x100", own), []string{"30 30 33 35"}, []string{"30 30 33 35"})
}

// decidedSites are redigo's idle list: Push (lock 50) writes the back
// when it finds the count zero and counts up; Pop (lock 60) counts down
// and clears the back when it finds the count zero. Each back write
// lists the count read that guards it (trace.Site.Guards); site 65 is
// the same clear with no guard (its branch decides something else), 66 a
// blind store of the count.
var decidedSites = func() *trace.SiteTable {
	t := &trace.SiteTable{Sites: []trace.Site{{ID: 1, File: "/k/k.go", Function: "Test"}, {ID: 2, File: "/k/k.go", Function: "Test"}}}
	for _, s := range []trace.Site{
		{ID: 50, Kind: "lock", Expr: "mu"}, {ID: 51, Kind: "read", Expr: "l.count", Uses: trace.UseBranch},
		{ID: 52, Kind: "write", Expr: "l.back", Guards: "51"},
		{ID: 53, Kind: "read", Expr: "l.count"}, {ID: 54, Line: 53, Kind: "write", Expr: "l.count"},
		{ID: 59, Kind: "unlock", Expr: "mu"},
		{ID: 60, Kind: "lock", Expr: "mu"}, {ID: 61, Kind: "read", Expr: "l.count"}, {ID: 62, Line: 61, Kind: "write", Expr: "l.count"},
		{ID: 63, Kind: "read", Expr: "l.count", Uses: trace.UseBranch}, {ID: 64, Kind: "write", Expr: "l.back", Guards: "63"},
		{ID: 65, Kind: "write", Expr: "l.back"}, {ID: 66, Kind: "write", Expr: "l.count"},
		{ID: 69, Kind: "unlock", Expr: "mu"},
	} {
		if s.Line == 0 {
			s.Line = int(s.ID)
		}
		s.Col, s.File, s.Function = 2, "/k/k.go", "Push"
		if s.ID >= 60 {
			s.Function = "Pop"
		}
		t.Sites = append(t.Sites, s)
	}
	return t
}()

// A Push onto the empty list (it sets the back) and then a Pop that
// empties it again (it clears the back): two blind writes of the back,
// but the Pop's is guarded by its check of the count, which it found
// through its own update in place (`l.count--`) as the Push left it, and
// the Push changed it (0 to 1): in the other order the check would have
// read another count, so the clear is a decision on the Push's result,
// not an update made unseen (dropped). "chained" has a second Push and a
// Pop between (the count 1, 2, 1, 0, each an update in place): the
// last Pop's count still carries the first Push's change. The controls
// stay reported: the clear unguarded (oscsloop with an unrelated check in
// front); the Push not changing the count (it held 1 already); the Pop's
// count stored blind before its check (what it checks is its own).
func TestWholeOpDecided(t *testing.T) {
	const (
		push = `
%[1]s g=2 Lock site=50 addr=0x900
%[1]s.1 g=2 Read site=51 addr=0x100%[2]s
%[1]s.3 g=2 Read site=53 addr=0x100
%[1]s.4 g=2 Write site=54 addr=0x100 value=%[3]s
%[4]s g=2 Unlock site=59 addr=0x900`
		pop = `
%[1]s g=3 Lock site=60 addr=0x900%[2]s
%[1]s.2 g=3 Read site=61 addr=0x100
%[1]s.3 g=3 Write site=62 addr=0x100 value=%[3]s
%[1]s.4 g=3 Read site=63 addr=0x100%[4]s
%[5]s g=3 Unlock site=69 addr=0x900`
		setBack = "\n10.2 g=2 Write site=52 addr=0x200 value=1"
		held    = "\n3.5 g=1 Write site=2 addr=0x100 value=1"
	)
	start := func(pre string) string {
		return strings.Replace(wholeStart, "\n2 g=1", pre+"\n2 g=1", 1)
	}
	p := func(at, back, count string) string { return fmt.Sprintf(push, at, back, count, at+"1") }
	q := func(at, pre, count, back string) string { return fmt.Sprintf(pop, at, pre, count, back, at+"1") }
	clear := func(site string) string { return fmt.Sprintf("\n30.5 g=3 Write site=%s addr=0x200 value=0", site) }
	one := start("") + p("10", setBack, "1") + q("30", "", "0", clear("64"))
	chained := start("") + p("10", setBack, "1") + p("12", "", "2") + q("20", "", "1", "") + q("30", "", "0", clear("64"))
	unguarded := start("") + p("10", setBack, "1") + q("30", "", "0", clear("65"))
	unchanged := start(held) + p("10", setBack, "1") + q("30", "", "1", clear("64"))
	own := start("") + p("10", setBack, "1") + q("30", "\n30.1 g=3 Write site=66 addr=0x100 value=0", "0", clear("64"))
	wholeCaseOf(t, decidedSites, "decided", one, nil, []string{"50 52 60 64"})
	wholeCaseOf(t, decidedSites, "chained", chained, nil, []string{"50 52 60 64"})
	wholeCaseOf(t, decidedSites, "unguarded", unguarded, []string{"50 52 60 65"}, []string{"50 52 60 65"})
	wholeCaseOf(t, decidedSites, "unchanged", unchanged, []string{"50 52 60 64"}, []string{"50 52 60 64"})
	wholeCaseOf(t, decidedSites, "own", own, []string{"50 52 60 64"}, []string{"50 52 60 64"})
}

// windowSites: Handle takes the lock (10), checks the queue's count (11,
// a read that only decides branches) or reads it for use (15), pops (12)
// and calls ack, which lets its caller's lock go (20) around a callback
// and takes it again (22), the sctp association's processAcknowledgement
// around each stream's onBufferReleased; back in Handle, the call checks
// the count again (14) or reads the head (16) before its deferred Unlock
// (13). Push (30-33) updates the count.
var windowSites = func() *trace.SiteTable {
	t := &trace.SiteTable{Sites: []trace.Site{{ID: 1, File: "/k/k.go", Function: "Test"}, {ID: 2, File: "/k/k.go", Function: "Test"}}}
	for _, s := range []trace.Site{
		{ID: 10, Kind: "lock", Expr: "a.mu", Function: "Handle"},
		{ID: 11, Kind: "read", Expr: "q.count", Uses: trace.UseBranch, Function: "Handle"},
		{ID: 12, Kind: "write", Expr: "q.head", Function: "Handle"},
		{ID: 13, Kind: "unlock", Expr: "a.mu", Function: "Handle"},
		{ID: 14, Kind: "read", Expr: "q.count", Uses: trace.UseBranch, Function: "Handle"},
		{ID: 15, Kind: "read", Expr: "q.count", Function: "Handle"},
		{ID: 16, Kind: "read", Expr: "q.head", Function: "Handle"},
		{ID: 20, Kind: "unlock", Expr: "a.mu", Function: "ack"},
		{ID: 22, Kind: "lock", Expr: "a.mu", Function: "ack"},
		{ID: 30, Kind: "lock", Expr: "a.mu", Function: "Push"},
		{ID: 31, Kind: "read", Expr: "q.count", Function: "Push"},
		{ID: 32, Line: 31, Kind: "write", Expr: "q.count", Function: "Push"},
		{ID: 33, Kind: "unlock", Expr: "a.mu", Function: "Push"},
	} {
		if s.Line == 0 {
			s.Line = int(s.ID)
		}
		s.Col, s.File = 2, "/k/k.go"
		t.Sites = append(t.Sites, s)
	}
	return t
}()

// A callee that lets its caller's lock go around a callback and takes it
// again splits the caller's one section in two (sctp's handleChunk, whose
// section ends at processAcknowledgement's Unlock and whose second begins
// at its Lock): the two are one call's sections, each a whole operation
// at the window where the callee let the lock go, and split judges what
// the first carries into the second. Push between them: Handle checked
// the count before the window and checks it again after (dropped, as two
// whole operations are). The control, reported as on main: Handle reads
// the count for use before the window and does not look at it again
// after, a premise carried across the window that Push changes (the
// atomicity shape, through a callee).
func TestWholeOpCalleeWindow(t *testing.T) {
	const handle = wholeStart + `
10 g=2 Lock site=10 addr=0x900
10.1 g=2 Read site=%d addr=0x100
10.2 g=2 Write site=12 addr=0x108 value=1
11 g=2 Unlock site=20 addr=0x900
12 g=3 Lock site=30 addr=0x900
12.1 g=3 Read site=31 addr=0x100
12.2 g=3 Write site=32 addr=0x100 value=1
13 g=3 Unlock site=33 addr=0x900
14 g=2 Lock site=22 addr=0x900
14.1 g=2 Read site=%d addr=%s
15 g=2 Unlock site=13 addr=0x900
`
	wholeCaseOf(t, windowSites, "checked again", fmt.Sprintf(handle, 11, 14, "0x100"), nil, []string{"10 11 30 31", "14 22 30 31"})
	wholeCaseOf(t, windowSites, "carried", fmt.Sprintf(handle, 15, 16, "0x108"), []string{"10 15 30 31"}, []string{"10 15 30 31"})
}

// wakeSites: an event loop (loop) takes the lock at 10, checks the
// deadline (11, a read that only decides branches), lets the lock go (12)
// and waits on its update channel (13); start sets the deadline (21)
// under the lock (20-22) and then pokes the channel (23).
var wakeSites = func() *trace.SiteTable {
	t := &trace.SiteTable{Sites: []trace.Site{{ID: 1, File: "/k/k.go", Function: "Test"}, {ID: 2, File: "/k/k.go", Function: "Test"}}}
	for _, s := range []trace.Site{
		{ID: 10, Kind: "lock", Expr: "a.timerMu", Function: "loop"},
		{ID: 11, Kind: "read", Expr: "a.deadline", Uses: trace.UseBranch, Function: "loop"},
		{ID: 12, Kind: "unlock", Expr: "a.timerMu", Function: "loop"},
		{ID: 13, Kind: "recv", Expr: "a.updateCh", Function: "loop"},
		{ID: 14, Kind: "write", Expr: "a.deadline", Function: "loop"},
		{ID: 20, Kind: "lock", Expr: "a.timerMu", Function: "start"},
		{ID: 21, Kind: "write", Expr: "a.deadline", Function: "start"},
		{ID: 22, Kind: "unlock", Expr: "a.timerMu", Function: "start"},
		{ID: 23, Kind: "send", Expr: "a.updateCh", Function: "start"},
	} {
		s.Line, s.Col, s.File = int(s.ID), 2, "/k/k.go"
		t.Sites = append(t.Sites, s)
	}
	return t
}()

// A lone setter against a check that decides on its value stays reported
// (Fig. 4's flag, checked before it is set), unless the setter wakes the
// checker after its write and the checker, woken, checks again: sctp's
// timerLoop reads the deadlines at the top of each pass and waits on
// timerUpdateCh, which startPTOTimer pokes after it set one. The loop's
// pass before the write and the pass the write's wake-up starts read the
// deadline both: the order decides when it sees the new one, not whether
// (dropped). Controls, reported: the setter sends nothing, and the loop's
// next pass, started by something else, is not ordered after the write;
// and the pass the wake-up starts overwrites the deadline before it reads
// it (it does not look at what the setter left).
func TestWholeOpAnnounced(t *testing.T) {
	const loop = wholeStart + `
6 g=1 ChanMake site=2 addr=0x500 cap=1
10 g=2 Lock site=10 addr=0x900
10.1 g=2 Read site=11 addr=0x100
11 g=2 Unlock site=12 addr=0x900
12 g=3 Lock site=20 addr=0x900
12.1 g=3 Write site=21 addr=0x100 value=5
13 g=3 Unlock site=22 addr=0x900
14 g=%d ChanSend site=23 addr=0x500
15 g=2 ChanRecv site=13 addr=0x500 ok=true
16 g=2 Lock site=10 addr=0x900
16.1 g=2 %s addr=0x100%s
17 g=2 Unlock site=12 addr=0x900
`
	wholeCaseOf(t, wakeSites, "woken", fmt.Sprintf(loop, 3, "Read site=11", ""), nil, []string{"10 11 20 21"})
	wholeCaseOf(t, wakeSites, "not woken", fmt.Sprintf(loop, 1, "Read site=11", ""), []string{"10 11 20 21"}, []string{"10 11 20 21"})
	wholeCaseOf(t, wakeSites, "overwritten", fmt.Sprintf(loop, 3, "Write site=14", " value=0"), []string{"10 11 20 21"}, []string{"10 11 20 21"})
}

// TestShapeNamesBothFunctions: where a goroutine's two sections are two
// functions' (otel's limitedSyncMap: Clear's section, then Len's, both
// touching m.len, and Add's section can fall between), the atomicity
// note names both, in order, not the reported access's alone; KB1's
// Insert, whose two sections are its own, stays "Insert touches".
func TestShapeNamesBothFunctions(t *testing.T) {
	notes := func(text string) []string {
		var out []string
		for _, f := range Check(graph(t, text), opSites, Options{NoCondFlags: true, NoSpinFlags: true, NoWholeOp: true}) {
			for _, n := range f.Evidence.Notes {
				if strings.HasPrefix(n, "atomicity violation") {
					who, _, _ := strings.Cut(n, " in two critical sections")
					out = append(out, who)
				}
			}
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	got := notes(wholeStart + `
10 g=2 Lock site=170 addr=0x900
10.1 g=2 Write site=171 addr=0x100 value=0
11 g=2 Unlock site=172 addr=0x900
12 g=2 Lock site=20 addr=0x900
12.1 g=2 Read site=21 addr=0x100
13 g=2 Unlock site=22 addr=0x900
14 g=3 Lock site=10 addr=0x900
14.1 g=3 Read site=11 addr=0x100
14.2 g=3 Write site=12 addr=0x100 value=1
15 g=3 Unlock site=13 addr=0x900
`)
	if want := []string{"atomicity violation: Clear, then Len, on one goroutine, touch "}; !slices.Equal(got, want) {
		t.Errorf("clear then len: notes %q, want %q", got, want)
	}
	got = notes(wholeStart + `
10 g=2 Lock site=30 addr=0x900
10.1 g=2 Write site=31 addr=0x100 value=5
11 g=2 Unlock site=32 addr=0x900
12 g=2 Lock site=33 addr=0x900
12.1 g=2 Read site=34 addr=0x100
13 g=2 Unlock site=35 addr=0x900
14 g=3 Lock site=40 addr=0x900
14.1 g=3 Write site=42 addr=0x100 value=0
15 g=3 Unlock site=43 addr=0x900
`)
	if want := []string{"atomicity violation: Insert touches x"}; !slices.Equal(got, want) {
		t.Errorf("kb1: notes %q, want %q", got, want)
	}
}

// heapSites are a priority queue's under a cache's lock: Add (lock 40,
// unlock 43) pushes an entry, whose index Push sets (41, trace.UseHeap);
// PopMin (lock 50, unlock 53) pops one, whose index Pop clears (51).
// Site 52 writes the entry's index in the cache's own Reset, site 42 in
// the Pop of another heap type.
var heapSites = func() *trace.SiteTable {
	t := &trace.SiteTable{Sites: []trace.Site{{ID: 1, File: "/k/k.go", Function: "Test"}, {ID: 2, File: "/k/k.go", Function: "Test"}}}
	for _, s := range []trace.Site{
		{ID: 40, Kind: "lock", Expr: "c.mu", Decl: "(*Cache).Add"},
		{ID: 41, Kind: "write", Expr: "e.index", Decl: "(*queue).Push", Uses: trace.UseHeap},
		{ID: 42, Kind: "write", Expr: "e.index", Decl: "(*timers).Pop", Uses: trace.UseHeap},
		{ID: 43, Kind: "unlock", Expr: "c.mu", Decl: "(*Cache).Add"},
		{ID: 50, Kind: "lock", Expr: "c.mu", Decl: "(*Cache).PopMin"},
		{ID: 51, Kind: "write", Expr: "e.index", Decl: "(*queue).Pop", Uses: trace.UseHeap},
		{ID: 52, Kind: "write", Expr: "e.index", Decl: "(*Cache).Reset"},
		{ID: 53, Kind: "unlock", Expr: "c.mu", Decl: "(*Cache).PopMin"},
	} {
		s.File, s.Line, s.Col, s.Function = "/k/k.go", int(s.ID), 2, s.Decl
		t.Sites = append(t.Sites, s)
	}
	return t
}()

// A push and a pop of one entry, each one heap operation under the
// cache's lock: the entry's index, set by Push and cleared by Pop, is
// bookkeeping that each operation leaves in step with the heap, so the
// pair is no lost update. The controls stay reported: the cache's own
// store of the index (a user's write, not the heap's), and the Pop of
// another heap type.
func TestWholeOpHeap(t *testing.T) {
	const ops = `
10 g=2 Lock site=40 addr=0x900
10.1 g=2 Write site=41 addr=0x500 value=3
11 g=2 Unlock site=43 addr=0x900
12 g=3 Lock site=50 addr=0x900
12.1 g=3 Write site=%d addr=0x500 value=18446744073709551615
13 g=3 Unlock site=53 addr=0x900
`
	wholeCaseOf(t, heapSites, "heap", wholeStart+fmt.Sprintf(ops, 51), nil, []string{"40 41 50 51"})
	wholeCaseOf(t, heapSites, "user", wholeStart+fmt.Sprintf(ops, 52), []string{"40 41 50 52"}, []string{"40 41 50 52"})
	wholeCaseOf(t, heapSites, "other", wholeStart+fmt.Sprintf(ops, 42), []string{"40 41 42 50"}, []string{"40 41 42 50"})
}

// A tracker's accessors (go-pretty's progress.Tracker): g2 calls Add three
// times from a loop, one section per call that reads x and writes x and
// y; g3 reads x in Size and then y in CopyInto. Add's repeated calls are
// separate operations whatever the note used to say of them: with no
// function of the program that calls Size and then CopyInto (the getters
// called from a test: CopyInto's Lock site lists nothing in After), both
// pairs are dropped. With one (a renderer printing both: After lists
// Size's Lock site), g3's two reads can see x before an Add and y after
// it, a state no serial order of whole calls gives: both pairs stay
// reported, and their notes name that two-step, not Add's calls.
func TestWholeOpRepeatedCalls(t *testing.T) {
	text := wholeStart + `
10 g=3 Lock site=70 addr=0x900
10.1 g=3 Read site=71 addr=0x100
11 g=3 Unlock site=72 addr=0x900
12 g=2 Lock site=10 addr=0x900
12.1 g=2 Read site=11 addr=0x100
12.2 g=2 Write site=12 addr=0x100 value=1
12.3 g=2 Write site=13 addr=0x200 value=1
13 g=2 Unlock site=14 addr=0x900
14 g=2 Lock site=10 addr=0x900
14.1 g=2 Read site=11 addr=0x100
14.2 g=2 Write site=12 addr=0x100 value=2
14.3 g=2 Write site=13 addr=0x200 value=2
15 g=2 Unlock site=14 addr=0x900
16 g=3 Lock site=75 addr=0x900
16.1 g=3 Read site=76 addr=0x200
17 g=3 Unlock site=77 addr=0x900
18 g=2 Lock site=10 addr=0x900
18.1 g=2 Read site=11 addr=0x100
18.2 g=2 Write site=12 addr=0x100 value=3
18.3 g=2 Write site=13 addr=0x200 value=3
19 g=2 Unlock site=14 addr=0x900
`
	// The sites with their fields' names, for the notes; test has the
	// getters called from a test.
	lib := &trace.SiteTable{Sites: slices.Clone(opSites.Sites)}
	test := &trace.SiteTable{Sites: slices.Clone(opSites.Sites)}
	expr := map[uint32]string{11: "x", 12: "x", 13: "y", 71: "x", 76: "y"}
	for i := range lib.Sites {
		lib.Sites[i].Expr = cmp.Or(expr[lib.Sites[i].ID], lib.Sites[i].Expr)
		test.Sites[i] = lib.Sites[i]
		if test.Sites[i].ID == 75 {
			test.Sites[i].After = ""
		}
	}
	both := []string{"10 12 70 71", "10 13 75 76"}
	wholeCaseOf(t, lib, "renderer's two-step", text, both, both)
	wholeCaseOf(t, test, "test's calls", text, nil, both)
	want := map[string]string{
		"10 12 70 71": "atomicity violation: Size, then CopyInto, on one goroutine, touch x, then y, in two critical sections (locked at k.go:70, then at k.go:75) that a function of the program takes in that order on one object, and Add's section, which writes y, can run between them",
		"10 13 75 76": "atomicity violation: Size, then CopyInto, on one goroutine, touch x, then y, in two critical sections (locked at k.go:70, then at k.go:75) that a function of the program takes in that order on one object, and Add's section, which writes x, can run between them",
	}
	for _, f := range Check(graph(t, text), lib, Options{NoCondFlags: true, NoSpinFlags: true}) {
		var shape string
		for _, n := range f.Evidence.Notes {
			if strings.HasPrefix(n, "atomicity violation") || strings.HasPrefix(n, "order violation") {
				shape = n
			}
		}
		if shape != want[lines(f)] {
			t.Errorf("%s: shape %q, want %q", lines(f), shape, want[lines(f)])
		}
	}
}
