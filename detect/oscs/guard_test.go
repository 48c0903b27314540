package oscs

import (
	"slices"
	"strings"
	"testing"

	"github.com/precog-dev/precog/shim/trace"
)

// bothWith runs a case under Base and Opt with opts (cond and spin flags
// off, as in both).
func bothWith(t *testing.T, opts Options, text string, want ...string) {
	t.Helper()
	slices.Sort(want)
	for _, alg := range []Algorithm{Base, Opt} {
		opts.Algorithm, opts.NoCondFlags, opts.NoSpinFlags = alg, true, true
		if got := check(t, text, opts); !slices.Equal(got, want) {
			t.Errorf("%s %+v: findings %q, want %q", alg, opts, got, want)
		}
	}
}

// lazy is singleflight's Do (golang.org/x/sync singleflight.go:92-110) on
// two goroutines: g2 finds g.m nil (site 30), makes it (31), looks the key
// up (32) and stores into it (63, a dereference); g3 finds it made and
// looks the key up. Whichever runs first makes the map.
const lazy = `
10 g=2 Lock site=10 addr=0x900
10.1 g=2 Read site=30 addr=0x100
10.2 g=2 Write site=31 addr=0x100 value=1
10.3 g=2 Read site=32 addr=0x100
10.4 g=2 Read site=63 addr=0x100
11 g=2 Unlock site=12 addr=0x900
14 g=3 Lock site=10 addr=0x900
14.1 g=3 Read site=30 addr=0x100
14.2 g=3 Read site=32 addr=0x100
15 g=3 Unlock site=12 addr=0x900
`

// A lazy initialization against readers that check first is dropped; with
// NoLazyInit it is the paper's pair.
func TestLazyInit(t *testing.T) {
	bothWith(t, Options{}, start+lazy)
	bothWith(t, Options{NoLazyInit: true}, start+lazy, "10 10 30 31", "10 10 31 32")
}

// What lazyInit keeps: a reader whose section dereferences the location
// before any check (it would crash had it run first); a write after a read
// that saw a non-zero value (a replacement, not an initialization; the
// value word 2 is not a pointer's, whose words are 0 and 1, so that the
// redundant-write filter keeps the pair); a
// location nothing dereferences (a counter's first increment, Fig. 5's
// maximum); and a nil store against the initialization (a reset that the
// initialization can undo).
func TestLazyInitKept(t *testing.T) {
	unchecked := start + `
10 g=2 Lock site=10 addr=0x900
10.1 g=2 Read site=30 addr=0x100
10.2 g=2 Write site=31 addr=0x100 value=1
11 g=2 Unlock site=12 addr=0x900
14 g=3 Lock site=20 addr=0x900
14.1 g=3 Read site=64 addr=0x100
15 g=3 Unlock site=22 addr=0x900
`
	bothWith(t, Options{}, unchecked, "10 20 31 64")

	replaced := `
1 g=1 Begin parent=none
1.1 g=1 Write site=5 addr=0x100 value=2
` + start[strings.Index(start, "2 g=1"):] + lazy
	bothWith(t, Options{}, replaced, "10 10 30 31", "10 10 31 32")

	counter := start + `
10 g=2 Lock site=10 addr=0x900
10.1 g=2 Read site=30 addr=0x100
10.2 g=2 Write site=31 addr=0x100 value=1
11 g=2 Unlock site=12 addr=0x900
14 g=3 Lock site=20 addr=0x900
14.1 g=3 Read site=33 addr=0x100
15 g=3 Unlock site=22 addr=0x900
`
	bothWith(t, Options{}, counter, "10 20 31 33")

	reset := start + `
10 g=2 Lock site=10 addr=0x900
10.1 g=2 Read site=30 addr=0x100
10.2 g=2 Write site=31 addr=0x100 value=1
10.3 g=2 Read site=63 addr=0x100
11 g=2 Unlock site=12 addr=0x900
14 g=3 Lock site=20 addr=0x900
14.1 g=3 Write site=21 addr=0x100 value=0
15 g=3 Unlock site=22 addr=0x900
`
	bothWith(t, Options{}, reset, "10 20 21 31")
}

// set is the test goroutine storing a pointer into 0x100 before it starts
// g2 and g3.
const set = `
1 g=1 Begin parent=none
1.1 g=1 Write site=5 addr=0x100 value=1
2 g=1 Fork site=90 child=2
3 g=1 Fork site=91 child=3
4 g=2 Begin parent=1
5 g=3 Begin parent=1
`

// guarded is controls' MutexTHD (testdata/kernels/controls/mutex.go):
// Dispatch stores nil under thd.mu (site 21); ShowProcessList, under the
// same lock, checks thd.procInfo for nil (33) and dereferences it (64).
const guarded = `
14 g=3 Lock site=20 addr=0x900
14.1 g=3 Read site=33 addr=0x100
14.2 g=3 Read site=64 addr=0x100
15 g=3 Unlock site=22 addr=0x900
16 g=2 Lock site=13 addr=0x900
16.1 g=2 Write site=21 addr=0x100 value=0
17 g=2 Unlock site=15 addr=0x900
`

// A nil store against a section that checks and then dereferences is
// dropped; with NoNilGuard it is the paper's pair.
func TestNilGuard(t *testing.T) {
	bothWith(t, Options{}, set+guarded)
	bothWith(t, Options{NoNilGuard: true}, set+guarded, "13 20 21 64")
}

// What nilGuarded keeps: Mozilla-1's compile, which dereferences first
// (with the set and the nil store, two writes); MySQL-2's Awake, whose
// section only checks, and dereferences after the unlock (not shown: Base
// would forget the check for that later read, doc.go); and a store of a
// non-nil value against the guarded reader.
func TestNilGuardKept(t *testing.T) {
	mozilla1 := start + `
10 g=2 Lock site=10 addr=0x900
10.1 g=2 Write site=11 addr=0x100 value=1
11 g=2 Unlock site=12 addr=0x900
12 g=2 Lock site=13 addr=0x900
12.1 g=2 Read site=64 addr=0x100
13 g=2 Unlock site=15 addr=0x900
14 g=3 Lock site=20 addr=0x900
14.1 g=3 Write site=21 addr=0x100 value=0
15 g=3 Unlock site=22 addr=0x900
`
	bothWith(t, Options{}, mozilla1, "10 11 20 21", "13 20 21 64")

	mysql2 := set + `
14 g=3 Lock site=20 addr=0x900
14.1 g=3 Read site=33 addr=0x100
15 g=3 Unlock site=22 addr=0x900
16 g=2 Lock site=13 addr=0x900
16.1 g=2 Write site=21 addr=0x100 value=0
17 g=2 Unlock site=15 addr=0x900
`
	bothWith(t, Options{}, mysql2, "13 20 21 33")

	setAgain := start + `
10 g=2 Lock site=10 addr=0x900
10.1 g=2 Write site=11 addr=0x100 value=0
11 g=2 Unlock site=12 addr=0x900
14 g=3 Lock site=20 addr=0x900
14.1 g=3 Read site=33 addr=0x100
14.2 g=3 Read site=64 addr=0x100
15 g=3 Unlock site=22 addr=0x900
16 g=2 Lock site=13 addr=0x900
16.1 g=2 Write site=21 addr=0x100 value=1
17 g=2 Unlock site=15 addr=0x900
`
	bothWith(t, Options{}, setAgain, "13 20 21 64")
}

// The filters count the pairs they drop.
func TestGuardStats(t *testing.T) {
	for _, c := range []struct {
		text                 string
		lazyInit, nilGuarded int
	}{
		{start + lazy, 2, 0},
		{set + guarded, 0, 1}, // Opt keeps g3's last read only
	} {
		_, st := CheckStats(graph(t, c.text), sites, Options{NoCondFlags: true, NoSpinFlags: true})
		if st.LazyInit != c.lazyInit || st.NilGuarded != c.nilGuarded || st.Reported != 0 {
			t.Errorf("stats %+v, want LazyInit %d, NilGuarded %d, nothing reported", st, c.lazyInit, c.nilGuarded)
		}
	}
}

// sourceSites is a site table with real functions and expressions, for
// derefAfter: MutexTHD's Dispatch and ShowProcessList (with its deferred
// Unlock), and MySQL-2's Awake (which unlocks before the dereference).
var sourceSites = func() *trace.SiteTable {
	t := new(trace.SiteTable)
	add := func(line int, kind, fn, expr, uses string) {
		t.Sites = append(t.Sites, trace.Site{ID: uint32(line), File: "/k/k.go", Line: line, Col: 2, Kind: kind, Function: fn, Expr: expr, Uses: uses})
	}
	add(24, "lock", "Dispatch", "thd.mu", "")
	add(25, "write", "Dispatch", "thd.procInfo", "")
	add(26, "unlock", "Dispatch", "thd.mu", "")
	add(31, "lock", "ShowProcessList", "thd.mu", "")
	add(32, "unlock", "ShowProcessList", "thd.mu", "")
	add(34, "read", "ShowProcessList", "thd.procInfo", "")
	add(36, "read", "ShowProcessList", "thd.procInfo", trace.UseDeref)
	add(58, "lock", "Awake", "thd.mu", "")
	add(59, "read", "Awake", "thd.procInfo", "")
	add(60, "unlock", "Awake", "thd.mu", "")
	add(63, "read", "Awake", "thd.procInfo", trace.UseDeref)
	add(90, "go", "Test", "", "")
	add(91, "go", "Test", "", "")
	return t
}()

// A reader that found nil and skipped its use: the dereference of the
// same expression before the (deferred) Unlock stands for the one the run
// did not execute. MySQL-2's Awake, whose dereference comes after its
// Unlock, stays reported.
func TestNilGuardStatic(t *testing.T) {
	show := set + `
10 g=2 Lock site=24 addr=0x900
10.1 g=2 Write site=25 addr=0x100 value=0
11 g=2 Unlock site=26 addr=0x900
14 g=3 Lock site=31 addr=0x900
14.1 g=3 Read site=34 addr=0x100
15 g=3 Unlock site=32 addr=0x900
`
	awake := strings.NewReplacer("site=31", "site=58", "site=34", "site=59", "site=32", "site=60").Replace(show)
	for _, c := range []struct {
		name, text string
		opts       Options
		want       []string
	}{
		{"show", show, Options{}, nil},
		// Dispatch's store is a lone setter against a whole
		// operation: the whole-operation filter drops the pair too.
		{"show NoNilGuard", show, Options{NoNilGuard: true, NoWholeOp: true}, []string{"24 25 31 34"}},
		{"awake", awake, Options{}, []string{"24 25 58 59"}},
	} {
		for _, alg := range []Algorithm{Base, Opt} {
			c.opts.Algorithm, c.opts.NoCondFlags, c.opts.NoSpinFlags = alg, true, true
			var got []string
			for _, f := range Check(graph(t, c.text), sourceSites, c.opts) {
				got = append(got, lines(f))
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("%s %s: findings %q, want %q", c.name, alg, got, c.want)
			}
		}
	}
}
