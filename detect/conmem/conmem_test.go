package conmem

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/detect/hb"
	"github.com/precog-dev/precog/shim/trace"
)

const header = `precog trace v1 test="T" package="p" start=2025-01-02T15:04:05Z pid=1` + "\n"

// site is a test site: its ID is its line in k.go.
type site struct {
	id       uint32
	kind     string
	uses     string
	expr     string
	switches string // trace.Site.Guards and Switches
}

// check runs Check on a text-form trace and returns its findings as
// "kind k.go:line(role) ...", sites in finding order.
func check(t *testing.T, text string, sites []site, opts Options) []string {
	t.Helper()
	var out []string
	for _, f := range findings(t, text, sites, opts) {
		out = append(out, summary(t, f))
	}
	return out
}

// findings runs Check on a text-form trace. It also runs CheckStream on
// the same events, with a window that holds them all, and checks that its
// findings of the kinds it streams are Check's (without the spin-loop
// inference, which CheckStream does not make): the same sites, messages
// and witnesses but for Check's validation-only events past a check.
func findings(t *testing.T, text string, sites []site, opts Options) []finding.Finding {
	t.Helper()
	g, tab := graph(t, text, sites)
	nospin := opts
	nospin.NoSpinLoops, nospin.Stats = true, nil
	want := streamedKinds(Check(g, tab, nospin))
	got, err := CheckStream(events(g.Events), tab, StreamOptions{Window: len(g.Events) + 1})
	if err != nil {
		t.Fatal(err)
	}
	if g, w := streamedSummary(got), streamedSummary(want); !slices.Equal(g, w) {
		t.Errorf("CheckStream:\n\t%s\nCheck (no spin loops):\n\t%s", strings.Join(g, "\n\t"), strings.Join(w, "\n\t"))
	}
	return Check(g, tab, opts)
}

// events returns a reader of evs for CheckStream.
func events(evs []trace.Event) func() (trace.Event, error) {
	k := 0
	return func() (trace.Event, error) {
		if k == len(evs) {
			return trace.Event{}, io.EOF
		}
		k++
		return evs[k-1], nil
	}
}

// streamedKinds returns the findings of fs of the kinds CheckStream
// reports.
func streamedKinds(fs []finding.Finding) []finding.Finding {
	var out []finding.Finding
	for _, f := range fs {
		switch f.Kind {
		case finding.ConNull, finding.ConClosed, finding.ConIndex, finding.ConMap, finding.ConUninit:
			out = append(out, f)
		}
	}
	return out
}

// streamedSummary sums findings up for TestStream's comparison: kind,
// message, sites, and witness events but those only validation uses past
// a check (Check's withNext and withLast), with their goroutine, instance
// and trace index.
func streamedSummary(fs []finding.Finding) []string {
	var out []string
	for _, f := range fs {
		s := f.Kind + " " + f.Message
		for _, x := range f.Sites {
			s += fmt.Sprintf(" k.go:%d(%s)", x.Line, x.Role)
		}
		for _, w := range f.Witnesses {
			for _, e := range w.Events {
				switch e.Role {
				case "write-at", "write-next", "index-last", "check-last":
					continue
				}
				s += fmt.Sprintf(" [%s g%d site %d #%d @%d]", e.Role, e.G, e.Site, e.N, e.Index)
			}
		}
		out = append(out, s)
	}
	return out
}

// graph analyses a text-form trace with a site table of sites.
func graph(t *testing.T, text string, sites []site) (*hb.Graph, *trace.SiteTable) {
	t.Helper()
	tr, err := trace.ParseText(strings.NewReader(header + text))
	if err != nil {
		t.Fatal(err)
	}
	trace.Sort(tr.Events)
	tab := &trace.SiteTable{}
	for _, s := range sites {
		tab.Sites = append(tab.Sites, trace.Site{ID: s.id, File: "/src/k.go", Line: int(s.id), Col: 1,
			Kind: s.kind, Function: "f", Expr: cmpOr(s.expr, "x.p"), Uses: s.uses, Guards: s.switches, Switches: s.switches})
	}
	slices.SortFunc(tab.Sites, func(a, b trace.Site) int { return int(a.ID) - int(b.ID) })
	return hb.Analyze(tr.Events, hb.Options{Sites: tab}), tab
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func summary(t *testing.T, f finding.Finding) string {
	t.Helper()
	if f.ID == "" || f.Status != finding.Predicted || f.Message == "" || strings.HasSuffix(f.Message, ".") {
		t.Errorf("finding %+v: want an ID, status predicted and a message without a period", f)
	}
	if len(f.Spawns) != len(f.Sites) || len(f.Stacks) != len(f.Sites) || len(f.Evidence.Clocks) != len(f.Sites) || len(f.Evidence.Locks) != len(f.Sites) {
		t.Errorf("finding %s: spawns, stacks, clocks and locks must have one entry per site", f.Message)
	}
	s := f.Kind
	for _, x := range f.Sites {
		s += fmt.Sprintf(" k.go:%d(%s)", x.Line, x.Role)
	}
	return s
}

func expect(t *testing.T, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("findings:\n\t%s\nwant:\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}

var nullSites = []site{
	{id: 1, kind: "go"}, {id: 2, kind: "go"},
	{id: 10, kind: "write"}, {id: 11, kind: "read"}, {id: 12, kind: "read", uses: "deref"},
	{id: 13, kind: "write"}, {id: 20, kind: "lock"}, {id: 21, kind: "unlock"},
	{id: 30, kind: "make-chan"}, {id: 31, kind: "send"}, {id: 32, kind: "recv"},
}

// MySQL-1: a check and a dereference on one goroutine, a nil store on
// another, nothing ordering them.
func TestNullCheckThenUse(t *testing.T) {
	got := check(t, `
1 g=1 Begin parent=none
1.1 g=1 Write site=10 addr=0x100 value=1
2 g=1 Fork site=1 child=2
3 g=1 Fork site=2 child=3
4 g=2 Begin parent=1
4.1 g=2 Read site=11 addr=0x100
4.2 g=2 Read site=12 addr=0x100
5 g=3 Begin parent=1
5.1 g=3 Write site=13 addr=0x100 value=0
`, nullSites, Options{})
	expect(t, got, "con-null k.go:12(deref) k.go:13(nil-store)")
}

// The same, with the nil store ordered after the use by a channel: silent.
func TestNullOrderedAfterUse(t *testing.T) {
	got := check(t, `
1 g=1 Begin parent=none
1.1 g=1 Write site=10 addr=0x100 value=1
2 g=1 ChanMake site=30 addr=0x900 cap=0
3 g=1 Fork site=1 child=2
4 g=1 Fork site=2 child=3
5 g=2 Begin parent=1
5.1 g=2 Read site=12 addr=0x100
6 g=2 ChanSend site=31 addr=0x900
7 g=3 Begin parent=1
8 g=3 ChanRecv site=32 addr=0x900 ok=true
8.1 g=3 Write site=13 addr=0x100 value=0
`, nullSites, Options{})
	expect(t, got)
}

// lockedNilStore is a trace in which goroutine 3 stores nil to 0x100
// under the lock 0x800, after goroutine 2's events, the verb's, with
// nothing ordering the two goroutines.
const lockedNilStore = `
1 g=1 Begin parent=none
1.1 g=1 Write site=10 addr=0x100 value=1
2 g=1 Fork site=1 child=2
3 g=1 Fork site=2 child=3
4 g=2 Begin parent=1
%s
7 g=3 Begin parent=1
8 g=3 Lock site=20 addr=0x800
8.1 g=3 Write site=13 addr=0x100 value=0
9 g=3 Unlock site=21 addr=0x800
`

// Check and use in one critical section, the nil store under the same
// lock: rp-p (the check) and rp are atomic with respect to wp. Silent; the
// same trace with the check outside the lock is reported.
func TestNullLockedCheckAndUse(t *testing.T) {
	locked := `5 g=2 Lock site=20 addr=0x800
5.1 g=2 Read site=11 addr=0x100
5.2 g=2 Read site=12 addr=0x100
6 g=2 Unlock site=21 addr=0x800`
	expect(t, check(t, fmt.Sprintf(lockedNilStore, locked), nullSites, Options{}))
	split := `5 g=2 Lock site=20 addr=0x800
5.1 g=2 Read site=11 addr=0x100
6 g=2 Unlock site=21 addr=0x800
6.1 g=2 Read site=12 addr=0x100`
	expect(t, check(t, fmt.Sprintf(lockedNilStore, split), nullSites, Options{}),
		"con-null k.go:12(deref) k.go:13(nil-store)")
}

// A dereference with no check before it, in a critical section of the
// lock the nil store holds too: the sections do not interleave, but the
// dereference's may run after the store's and find its nil (gofakes3's
// listing after a delete). Reported, saying so rather than asking for a
// check and a use in one atomic step; without the lock, the atomic step
// is the remedy.
func TestNullLockedUseAfterStore(t *testing.T) {
	for _, c := range []struct{ use, want string }{
		{"5 g=2 Lock site=20 addr=0x800\n5.1 g=2 Read site=12 addr=0x100\n6 g=2 Unlock site=21 addr=0x800", "whose critical section of a lock both hold can run after the store's"},
		{"4.1 g=2 Read site=12 addr=0x100", "the check and the use should be one atomic step"},
	} {
		fs := findings(t, fmt.Sprintf(lockedNilStore, c.use), nullSites, Options{})
		if len(fs) != 1 || fs[0].Kind != finding.ConNull || !strings.Contains(fs[0].Message, c.want) {
			t.Errorf("findings %v, want one con-null saying %q", fs, c.want)
		}
	}
}

// The nil store is followed on its goroutine by a non-nil write ordered
// before the use (wp-f, the heuristic's second candidate): silent.
func TestNullOverwrittenBeforeUse(t *testing.T) {
	got := check(t, `
1 g=1 Begin parent=none
2 g=1 ChanMake site=30 addr=0x900 cap=0
3 g=1 Fork site=1 child=2
4 g=1 Fork site=2 child=3
5 g=3 Begin parent=1
5.1 g=3 Write site=13 addr=0x100 value=0
5.2 g=3 Write site=10 addr=0x100 value=1
6 g=3 ChanSend site=31 addr=0x900
7 g=2 Begin parent=1
8 g=2 ChanRecv site=32 addr=0x900 ok=true
8.1 g=2 Read site=12 addr=0x100
`, nullSites, Options{})
	expect(t, got)
}

// The nil store's goroutine is joined, then a third goroutine stores a
// non-nil value and is joined before the use (a test reusing a variable
// across two phases of goroutines): neither of the heuristic's two
// candidates, but a write ordered between the two all the same. Silent;
// with the third goroutine's write unordered with the use, reported.
func TestNullOverwrittenByThirdGoroutine(t *testing.T) {
	const trace = `
1 g=1 Begin parent=none
2 g=1 ChanMake site=30 addr=0x900 cap=0
3 g=1 Fork site=1 child=2
4 g=2 Begin parent=1
4.1 g=2 Write site=13 addr=0x100 value=0
5 g=2 ChanSend site=31 addr=0x900
6 g=1 ChanRecv site=32 addr=0x900 ok=true
7 g=1 Fork site=2 child=3
8 g=3 Begin parent=1
8.1 g=3 Write site=10 addr=0x100 value=1
%s
10.1 g=1 Read site=12 addr=0x100
`
	joined := `9 g=3 ChanSend site=31 addr=0x900
10 g=1 ChanRecv site=32 addr=0x900 ok=true`
	expect(t, check(t, fmt.Sprintf(trace, joined), nullSites, Options{}))
	unjoined := `10 g=1 ChanMake site=30 addr=0x910 cap=0`
	expect(t, check(t, fmt.Sprintf(trace, unjoined), nullSites, Options{}),
		"con-null k.go:12(deref) k.go:13(nil-store)", "con-uninit k.go:12(read) k.go:10(init)")
}

// A dereferenced read that observed nil (the last write before it, which
// happens before it, stored nil) is pruned.
func TestNullReadObservedNil(t *testing.T) {
	got := check(t, `
1 g=1 Begin parent=none
1.1 g=1 Write site=13 addr=0x100 value=0
2 g=1 Fork site=1 child=2
3 g=2 Begin parent=1
3.1 g=2 Read site=12 addr=0x100
`, nullSites, Options{})
	expect(t, got)
}

// MySQL-2 through an atomic.Pointer: a Load checked for nil, a Load
// dereferenced (the deref mark on its site), another goroutine's
// Store(nil). Reported; silent when no load is marked (a counter, or a
// pointer loaded once and checked), and when the dereferenced load read
// nil (it did not crash: its use is guarded).
func TestNullAtomic(t *testing.T) {
	const tr = `
1 g=1 Begin parent=none
2 g=1 AtomicStore site=40 addr=0x100 value=1
3 g=1 Fork site=1 child=2
4 g=1 Fork site=2 child=3
5 g=2 Begin parent=1
6 g=2 AtomicLoad site=41 addr=0x100 value=1
7 g=2 AtomicLoad site=%d addr=0x100 value=%d
8 g=3 Begin parent=1
9 g=3 AtomicStore site=43 addr=0x100 value=0
`
	sites := append(slices.Clone(nullSites), site{id: 40, kind: "atomic-store"}, site{id: 41, kind: "atomic-load"},
		site{id: 42, kind: "atomic-load", uses: "deref"}, site{id: 43, kind: "atomic-store"})
	slices.SortFunc(sites, func(a, b site) int { return int(a.id) - int(b.id) })
	expect(t, check(t, fmt.Sprintf(tr, 42, 1), sites, Options{}), "con-null k.go:42(deref) k.go:43(nil-store)")
	expect(t, check(t, fmt.Sprintf(tr, 41, 1), sites, Options{}))
	expect(t, check(t, fmt.Sprintf(tr, 42, 0), sites, Options{}))
}

// Transmission through an atomic.Pointer: the starter stores the
// pointer after the go statement, the goroutine's first load, which read
// it (hb orders the load after that store), is dereferenced. Reported:
// the load can come before the store. Silent when the store comes before
// the go statement, and when the goroutine's first load is checked for
// nil (no deref mark) before the dereferenced one.
func TestUninitAtomic(t *testing.T) {
	sites := append(slices.Clone(nullSites), site{id: 40, kind: "atomic-store"}, site{id: 41, kind: "atomic-load"},
		site{id: 42, kind: "atomic-load", uses: "deref"})
	slices.SortFunc(sites, func(a, b site) int { return int(a.id) - int(b.id) })
	late := `
1 g=1 Begin parent=none
2 g=1 Fork site=1 child=2
3 g=1 AtomicStore site=40 addr=0x100 value=1
4 g=2 Begin parent=1
%s
`
	expect(t, check(t, fmt.Sprintf(late, "5 g=2 AtomicLoad site=42 addr=0x100 value=1"), sites, Options{}),
		"con-uninit k.go:42(read) k.go:40(init)")
	expect(t, check(t, fmt.Sprintf(late, "5 g=2 AtomicLoad site=41 addr=0x100 value=1\n6 g=2 AtomicLoad site=42 addr=0x100 value=1"), sites, Options{}))
	expect(t, check(t, `
1 g=1 Begin parent=none
2 g=1 AtomicStore site=40 addr=0x100 value=1
3 g=1 Fork site=1 child=2
4 g=2 Begin parent=1
5 g=2 AtomicLoad site=42 addr=0x100 value=1
`, sites, Options{}))
	// A subtest that T.Run started for code precog does not instrument
	// (a Begin naming its parent, no Fork) stores the pointer; its parent
	// loads it after Run returned. hb joins the subtest at the load
	// itself, whose clock without its own acquire still holds it
	// (Graph.Joined): silent. Reported when another goroutine the parent
	// started (and did not wait for) stores it.
	const run = `
1 g=1 Begin parent=none
2 g=2 Begin parent=1
3 g=2 AtomicStore site=40 addr=0x100 value=1
4 g=2 End
%s
`
	expect(t, check(t, fmt.Sprintf(run, "5 g=1 AtomicLoad site=42 addr=0x100 value=1"), sites, Options{}))
	expect(t, check(t, `
1 g=1 Begin parent=none
2 g=1 Fork site=1 child=2
3 g=2 Begin parent=1
4 g=2 AtomicStore site=40 addr=0x100 value=1
5 g=2 End
6 g=1 AtomicLoad site=42 addr=0x100 value=1
`, sites, Options{}), "con-uninit k.go:42(read) k.go:40(init)")
}

var uninitSites = []site{
	{id: 1, kind: "go"}, {id: 10, kind: "write"}, {id: 11, kind: "read"}, {id: 12, kind: "write"},
	{id: 20, kind: "lock", expr: "mu"}, {id: 21, kind: "unlock", expr: "mu"},
	{id: 20, kind: "wg-add", expr: "wg"}, {id: 21, kind: "wg-done", expr: "wg"}, {id: 22, kind: "wg-wait", expr: "wg"},
}

// Transmission: the goroutine reads before its starter initializes,
// also after a zero store at another site (x = nil; go reader(); x =
// dial()).
func TestUninit(t *testing.T) {
	got := check(t, `
1 g=1 Begin parent=none
2 g=1 Fork site=1 child=2
2.1 g=1 Write site=10 addr=0x100 value=1
3 g=2 Begin parent=1
3.1 g=2 Read site=11 addr=0x100
`, uninitSites, Options{})
	expect(t, got, "con-uninit k.go:11(read) k.go:10(init)")
	got = check(t, `
1 g=1 Begin parent=none
1.1 g=1 Write site=12 addr=0x100 value=0
2 g=1 Fork site=1 child=2
2.1 g=1 Write site=10 addr=0x100 value=1
3 g=2 Begin parent=1
3.1 g=2 Read site=11 addr=0x100
`, uninitSites, Options{})
	expect(t, got, "con-uninit k.go:11(read) k.go:10(init)")
}

// Negatives: initialized before the go statement; a zero store is no
// initialization; the reader wrote first; reader and writer were started
// by a third goroutine, which created (and initialized) the object; the
// read and the initialization hold one lock (lazy initialization); the
// reader updates the location itself (a counter); the initializing
// statement wrote zero before the go statement and runs again after it
// (reinit: a test's loop calling Init("") and then Init("a")).
func TestUninitNegatives(t *testing.T) {
	for name, text := range map[string]string{
		"ordered": `
1 g=1 Begin parent=none
1.1 g=1 Write site=10 addr=0x100 value=1
2 g=1 Fork site=1 child=2
3 g=2 Begin parent=1
3.1 g=2 Read site=11 addr=0x100
`,
		"zero": `
1 g=1 Begin parent=none
2 g=1 Fork site=1 child=2
2.1 g=1 Write site=10 addr=0x100 value=0
3 g=2 Begin parent=1
3.1 g=2 Read site=11 addr=0x100
`,
		"own": `
1 g=1 Begin parent=none
2 g=1 Fork site=1 child=2
2.1 g=1 Write site=10 addr=0x100 value=1
3 g=2 Begin parent=1
3.1 g=2 Write site=12 addr=0x100 value=5
3.2 g=2 Read site=11 addr=0x100
`,
		"siblings": `
1 g=1 Begin parent=none
2 g=1 Fork site=1 child=2
3 g=1 Fork site=1 child=3
4 g=3 Begin parent=1
4.1 g=3 Write site=10 addr=0x100 value=1
5 g=2 Begin parent=1
5.1 g=2 Read site=11 addr=0x100
`,
		"lazy": `
1 g=1 Begin parent=none
2 g=1 Fork site=1 child=2
3 g=1 Lock site=20 addr=0x800
3.1 g=1 Write site=10 addr=0x100 value=1
4 g=1 Unlock site=21 addr=0x800
5 g=2 Begin parent=1
6 g=2 Lock site=20 addr=0x800
6.1 g=2 Read site=11 addr=0x100
7 g=2 Unlock site=21 addr=0x800
`,
		"reinit": `
1 g=1 Begin parent=none
1.1 g=1 Write site=10 addr=0x100 value=0
2 g=1 Fork site=1 child=2
2.1 g=1 Write site=10 addr=0x100 value=1
3 g=2 Begin parent=1
3.1 g=2 Read site=11 addr=0x100
`,
		"counter": `
1 g=1 Begin parent=none
2 g=1 Fork site=1 child=2
2.1 g=1 Write site=10 addr=0x100 value=1
3 g=2 Begin parent=1
3.1 g=2 Read site=11 addr=0x100
3.2 g=2 Write site=12 addr=0x100 value=2
`,
	} {
		t.Run(name, func(t *testing.T) { expect(t, check(t, text, uninitSites, Options{})) })
	}
}

// Done before Add: reported when Add follows the go statement, silent
// when it precedes it.
func TestUninitWaitGroup(t *testing.T) {
	late := `
1 g=1 Begin parent=none
2 g=1 Fork site=1 child=2
3 g=1 WGAdd site=20 addr=0x200 delta=1
6 g=1 WGWait site=22 addr=0x200
4 g=2 Begin parent=1
5 g=2 WGDone site=21 addr=0x200
`
	expect(t, check(t, late, uninitSites, Options{}), "con-uninit k.go:21(done) k.go:20(add)")
	early := `
1 g=1 Begin parent=none
2 g=1 WGAdd site=20 addr=0x200 delta=1
3 g=1 Fork site=1 child=2
6 g=1 WGWait site=22 addr=0x200
4 g=2 Begin parent=1
5 g=2 WGDone site=21 addr=0x200
`
	expect(t, check(t, early, uninitSites, Options{}))
}

// pond's submit: Add, then the go statement; the worker does its Done in
// the GC epoch after a collection, and the starter Adds again in that
// epoch, concurrently with the Done. The Done is ordered after the Add
// that counted it, in the epoch before: silent (it was reported against
// the later Add when WaitGroup events were split by epoch). The go
// statement before the first Add stays reported across the epochs.
func TestUninitWaitGroupEpochs(t *testing.T) {
	const text = `
1 g=1 Begin parent=none
%s
4 g=2 Begin parent=1
5 g=2 GCEpoch epoch=1
6 g=2 WGDone site=21 addr=0x200
7 g=1 GCEpoch epoch=1
8 g=1 WGAdd site=20 addr=0x200 delta=1
9 g=1 Fork site=1 child=3
10 g=3 Begin parent=1
11 g=3 WGDone site=21 addr=0x200
12 g=1 WGWait site=22 addr=0x200
`
	const counted = `2 g=1 WGAdd site=20 addr=0x200 delta=1
3 g=1 Fork site=1 child=2`
	expect(t, check(t, fmt.Sprintf(text, counted), uninitSites, Options{}))
	const late = `2 g=1 Fork site=1 child=2
3 g=1 WGAdd site=20 addr=0x200 delta=1`
	expect(t, check(t, fmt.Sprintf(text, late), uninitSites, Options{}), "con-uninit k.go:21(done) k.go:20(add)")
}

// pubsub's batchDispatch: wg is a local of each call, moved to the heap;
// two unrelated goroutines' calls, each Add, go statement, Done, Wait,
// got one address, the second after a collection. The second call's Add
// starts a count at zero in a later epoch: another WaitGroup's life,
// silent. The control, the same events in one epoch (one WaitGroup that
// the two goroutines share): the first's Wait is concurrent with the
// second's Add that finds the counter at zero, reported.
func TestAddWaitRecycled(t *testing.T) {
	const text = `
1 g=1 Begin parent=none
2 g=1 Fork site=1 child=2
3 g=1 Fork site=1 child=3
4 g=2 Begin parent=1
5 g=2 WGAdd site=20 addr=0x200 delta=1
6 g=2 Fork site=1 child=4
7 g=4 Begin parent=2
8 g=4 WGDone site=21 addr=0x200
9 g=2 WGWait site=22 addr=0x200
10 g=3 Begin parent=1
%[1]s
12 g=3 WGAdd site=20 addr=0x200 delta=1
13 g=3 Fork site=1 child=5
%[2]s
15 g=5 Begin parent=3
16 g=5 WGDone site=21 addr=0x200
17 g=3 WGWait site=22 addr=0x200
`
	expect(t, check(t, fmt.Sprintf(text, "11 g=3 GCEpoch epoch=1", "14 g=5 GCEpoch epoch=1"), uninitSites, Options{}))
	expect(t, check(t, fmt.Sprintf(text, "", ""), uninitSites, Options{}), "con-uninit k.go:22(wait) k.go:20(add)")
}

// Add after the go statement, concurrent with the Wait (kernel
// wgaddwait): reported whichever ran first in the recorded run, the Wait
// or the goroutines' Add and Done (a Wait ordered after the Add only by
// its own acquire of the Done). Silent when the Add precedes the go
// statement (on the Wait's goroutine), when the WaitGroup is reused after
// the Wait returned, and when a channel orders the Add before the Wait.
func TestAddWait(t *testing.T) {
	const want = "con-uninit k.go:22(wait) k.go:20(add)"
	for name, c := range map[string]struct {
		text string
		want []string
	}{
		"wait first": {`
1 g=1 Begin parent=none
2 g=1 Fork site=1 child=2
3 g=1 WGWait site=22 addr=0x200
4 g=2 Begin parent=1
5 g=2 WGAdd site=20 addr=0x200 delta=1
6 g=2 WGDone site=21 addr=0x200
`, []string{want}},
		"goroutines first": {`
1 g=1 Begin parent=none
2 g=1 Fork site=1 child=2
3 g=1 Fork site=1 child=3
4 g=2 Begin parent=1
5 g=2 WGAdd site=20 addr=0x200 delta=1
6 g=2 WGDone site=21 addr=0x200
7 g=3 Begin parent=1
8 g=3 WGAdd site=20 addr=0x200 delta=1
9 g=3 WGDone site=21 addr=0x200
10 g=1 WGWait site=22 addr=0x200
`, []string{want}},
		"add before go": {`
1 g=1 Begin parent=none
2 g=1 WGAdd site=20 addr=0x200 delta=1
3 g=1 Fork site=1 child=2
4 g=2 Begin parent=1
5 g=2 WGDone site=21 addr=0x200
6 g=1 WGWait site=22 addr=0x200
`, nil},
		"reused after the wait": {`
1 g=1 Begin parent=none
2 g=1 WGAdd site=20 addr=0x200 delta=1
3 g=1 Fork site=1 child=2
4 g=2 Begin parent=1
5 g=2 WGDone site=21 addr=0x200
6 g=1 WGWait site=22 addr=0x200
7 g=1 Fork site=1 child=3
8 g=3 Begin parent=1
9 g=3 WGAdd site=20 addr=0x200 delta=1
10 g=3 WGDone site=21 addr=0x200
`, nil},
		"add sent before the wait": {`
1 g=1 Begin parent=none
2 g=1 ChanMake site=30 addr=0x900 cap=1
3 g=1 Fork site=1 child=2
4 g=2 Begin parent=1
5 g=2 WGAdd site=20 addr=0x200 delta=1
6 g=2 ChanSend site=31 addr=0x900
7 g=1 ChanRecv site=32 addr=0x900 ok=true
8 g=2 WGDone site=21 addr=0x200
9 g=1 WGWait site=22 addr=0x200
`, nil},
		// t.Run returned after its subtest, which added: hb joins the
		// subtest at the Wait itself, whose clock without its own
		// acquire still holds it (Graph.Joined).
		"add in a subtest, wait after t.Run": {`
1 g=1 Begin parent=none
2 g=1 TestStart name="TestA"
3 g=2 Begin parent=none
4 g=2 TestStart name="TestA/sub"
5 g=2 WGAdd site=20 addr=0x200 delta=1
6 g=2 Fork site=1 child=3
7 g=3 Begin parent=2
8 g=3 WGDone site=21 addr=0x200
9 g=2 TestEnd outcome=pass
10 g=1 WGWait site=22 addr=0x200
`, nil},
		// A goroutine the subtest started and did not wait for adds:
		// t.Run does not wait for it.
		"add in a subtest's goroutine": {`
1 g=1 Begin parent=none
2 g=1 TestStart name="TestA"
3 g=2 Begin parent=none
4 g=2 TestStart name="TestA/sub"
5 g=2 Fork site=1 child=3
6 g=2 TestEnd outcome=pass
7 g=3 Begin parent=2
8 g=3 WGAdd site=20 addr=0x200 delta=1
9 g=3 WGDone site=21 addr=0x200
10 g=1 WGWait site=22 addr=0x200
`, []string{want}},
		// A parallel subtest lets t.Run return before it resumes: the
		// parent's Wait comes before the Add.
		"add in a parallel subtest": {`
1 g=1 Begin parent=none
2 g=1 TestStart name="TestA"
3 g=2 Begin parent=none
4 g=2 TestStart name="TestA/par"
5 g=1 WGWait site=22 addr=0x200
6 g=2 WGAdd site=20 addr=0x200 delta=1
7 g=2 WGDone site=21 addr=0x200
8 g=2 TestEnd outcome=pass
`, []string{want}},
	} {
		t.Run(name, func(t *testing.T) { expect(t, check(t, c.text, uninitSites, Options{}), c.want...) })
	}
}

var chanSites = []site{
	{id: 1, kind: "go"}, {id: 30, kind: "make-chan", expr: "make(chan int)"},
	{id: 31, kind: "send", expr: "q.out"}, {id: 32, kind: "recv", expr: "q.out"}, {id: 33, kind: "close", expr: "q.out"},
	{id: 40, kind: "wg-add", expr: "wg"}, {id: 41, kind: "wg-done", expr: "wg"}, {id: 42, kind: "wg-wait", expr: "wg"},
}

// PBZIP2-2: a close concurrent with another goroutine's send is reported;
// a close after waiting for the sender is not.
func TestClosed(t *testing.T) {
	racing := `
1 g=1 Begin parent=none
2 g=1 ChanMake site=30 addr=0x900 cap=4
3 g=1 Fork site=1 child=2
4 g=2 Begin parent=1
5 g=2 ChanSend site=31 addr=0x900
6 g=1 ChanClose site=33 addr=0x900
7 g=1 ChanRecv site=32 addr=0x900 ok=true
`
	expect(t, check(t, racing, chanSites, Options{}), "con-closed k.go:33(close) k.go:31(send)")
	joined := `
1 g=1 Begin parent=none
2 g=1 ChanMake site=30 addr=0x900 cap=4
3 g=1 WGAdd site=40 addr=0x200 delta=1
4 g=1 Fork site=1 child=2
5 g=2 Begin parent=1
6 g=2 ChanSend site=31 addr=0x900
7 g=2 WGDone site=41 addr=0x200
8 g=1 WGWait site=42 addr=0x200
9 g=1 ChanClose site=33 addr=0x900
`
	expect(t, check(t, joined, chanSites, Options{}))
}

// A close and a send in critical sections of one lock are still reported:
// a lock does not keep the send from following the close.
func TestClosedLocksDoNotHelp(t *testing.T) {
	got := check(t, `
1 g=1 Begin parent=none
2 g=1 ChanMake site=30 addr=0x900 cap=4
3 g=1 Fork site=1 child=2
4 g=2 Begin parent=1
5 g=2 Lock site=50 addr=0x800
6 g=2 ChanSend site=31 addr=0x900
7 g=2 Unlock site=51 addr=0x800
8 g=1 Lock site=50 addr=0x800
9 g=1 ChanClose site=33 addr=0x900
10 g=1 Unlock site=51 addr=0x800
`, append(chanSites, site{id: 50, kind: "lock", expr: "mu"}, site{id: 51, kind: "unlock", expr: "mu"}), Options{})
	expect(t, got, "con-closed k.go:33(close) k.go:31(send)")
}

var indexSites = []site{
	{id: 1, kind: "go"}, {id: 2, kind: "go"}, {id: 10, kind: "read", uses: "index", expr: "b.cnt"},
	{id: 11, kind: "read", expr: "b.cnt"}, {id: 12, kind: "write", expr: "b.cnt"},
	{id: 20, kind: "lock", expr: "mu"}, {id: 21, kind: "unlock", expr: "mu"},
}

// Apache-2: an index read racing with another goroutine's write of the
// index is reported; with a common lock, or when the read feeds no index,
// it is not.
func TestIndex(t *testing.T) {
	const text = `
1 g=1 Begin parent=none
1.1 g=1 Write site=12 addr=0x100 value=1
2 g=1 Fork site=1 child=2
3 g=1 Fork site=2 child=3
4 g=2 Begin parent=1
%s
7 g=3 Begin parent=1
%s
`
	expect(t, check(t, fmt.Sprintf(text, "4.1 g=2 Read site=10 addr=0x100", "7.1 g=3 Write site=12 addr=0x100 value=3"), indexSites, Options{}),
		"con-index k.go:10(index) k.go:12(write)")
	expect(t, check(t, fmt.Sprintf(text, "4.1 g=2 Read site=11 addr=0x100", "7.1 g=3 Write site=12 addr=0x100 value=3"), indexSites, Options{}))
	expect(t, check(t, fmt.Sprintf(text,
		"5 g=2 Lock site=20 addr=0x800\n5.1 g=2 Read site=10 addr=0x100\n6 g=2 Unlock site=21 addr=0x800",
		"8 g=3 Lock site=20 addr=0x800\n8.1 g=3 Write site=12 addr=0x100 value=3\n9 g=3 Unlock site=21 addr=0x800"), indexSites, Options{}))
}

// TestIndexWriteNext: a ring's position bumped and wrapped in one
// critical section (idxpos: pos++ to len(buf), then pos = 0) lives at
// len(buf) only between the two writes. The witness names the instance
// of the bumping write that the same section overwrites (the second
// Put's, not the first that instances folded the finding into) and the
// overwriting write, which validation runs the index between. A write
// whose next one comes after a sync event, or writes the same value,
// gets neither (the controls).
func TestIndexWriteNext(t *testing.T) {
	sites := append(slices.Clip(indexSites), site{id: 13, kind: "write", expr: "b.cnt"})
	const text = `
1 g=1 Begin parent=none
2 g=1 Fork site=1 child=2
3 g=1 Fork site=2 child=3
4 g=2 Begin parent=1
4.1 g=2 Read site=10 addr=0x100
7 g=3 Begin parent=1
8 g=3 Lock site=20 addr=0x800
8.1 g=3 Write site=12 addr=0x100 value=1
9 g=3 Unlock site=21 addr=0x800
10 g=3 Lock site=20 addr=0x800
10.1 g=3 Write site=12 addr=0x100 value=2
%s
`
	roles := func(second string) map[string]finding.Event {
		t.Helper()
		for _, f := range findings(t, fmt.Sprintf(text, second), sites, Options{}) {
			if f.Kind == finding.ConIndex && f.Sites[1].Line == 12 {
				m := make(map[string]finding.Event)
				for _, e := range f.Witnesses[0].Events {
					m[e.Role] = e
				}
				return m
			}
		}
		t.Fatalf("no con-index finding with the write at k.go:12")
		return nil
	}
	m := roles("10.2 g=3 Write site=13 addr=0x100 value=0\n11 g=3 Unlock site=21 addr=0x800")
	if at, next := m["write-at"], m["write-next"]; at.Site != 12 || at.N != 1 || next.Site != 13 || m[finding.RoleWrite].N != 0 {
		t.Errorf("witness %+v: want the write at k.go:12 (instance 0), write-at its instance 1 and write-next the write at k.go:13", m)
	}
	for what, second := range map[string]string{
		"sync between": "11 g=3 Unlock site=21 addr=0x800\n12 g=3 Lock site=20 addr=0x800\n12.1 g=3 Write site=13 addr=0x100 value=0\n13 g=3 Unlock site=21 addr=0x800",
		"same value":   "10.2 g=3 Write site=13 addr=0x100 value=2\n11 g=3 Unlock site=21 addr=0x800",
	} {
		if m := roles(second); len(m["write-at"].Role)+len(m["write-next"].Role) > 0 {
			t.Errorf("%s: witness %+v, want no write-at or write-next", what, m)
		}
	}
}

var mapSites = []site{
	{id: 1, kind: "go"}, {id: 2, kind: "go"}, {id: 10, kind: "map-read", expr: "m[k]"}, {id: 11, kind: "map-write", expr: "m[k]"},
	{id: 20, kind: "rlock", expr: "mu"}, {id: 21, kind: "runlock", expr: "mu"}, {id: 22, kind: "lock", expr: "mu"}, {id: 23, kind: "unlock", expr: "mu"},
}

// Concurrent map writes and a write against a read under RLock are
// reported; a write under the write lock against a read under the read
// lock, and two reads, are not.
func TestMap(t *testing.T) {
	const text = `
1 g=1 Begin parent=none
2 g=1 Fork site=1 child=2
3 g=1 Fork site=2 child=3
4 g=2 Begin parent=1
%s
8 g=3 Begin parent=1
%s
`
	readLocked := "5 g=2 RLock site=20 addr=0x800\n5.1 g=2 MapRead site=10 addr=0x300\n6 g=2 RUnlock site=21 addr=0x800"
	writeLocked := "9 g=3 Lock site=22 addr=0x800\n9.1 g=3 MapWrite site=11 addr=0x300\n10 g=3 Unlock site=23 addr=0x800"
	expect(t, check(t, fmt.Sprintf(text, readLocked, "8.1 g=3 MapWrite site=11 addr=0x300"), mapSites, Options{}),
		"con-map k.go:11(map-write) k.go:10(map-read)")
	expect(t, check(t, fmt.Sprintf(text, "4.1 g=2 MapWrite site=11 addr=0x300", "8.1 g=3 MapWrite site=11 addr=0x300"), mapSites, Options{}),
		"con-map k.go:11(map-write) k.go:11(map-write)")
	expect(t, check(t, fmt.Sprintf(text, readLocked, writeLocked), mapSites, Options{}))
	expect(t, check(t, fmt.Sprintf(text, readLocked, "8.1 g=3 MapRead site=10 addr=0x300"), mapSites, Options{}))
}

// TestMapAddressReuse is golang.org/x/mod's zip.go:936 shape: two
// goroutines (parallel subtests) each make a map and write it, the second
// map at the address of the first, freed by a collection that the GC
// epochs did not see in time. The maps are two locations; without the
// allocation events they would look like one map written concurrently.
func TestMapAddressReuse(t *testing.T) {
	sites := append(slices.Clone(mapSites), site{id: 12, kind: "make-map", expr: "map[string]bool{}"})
	const text = `
1 g=1 Begin parent=none
2 g=1 Fork site=1 child=2
3 g=1 Fork site=2 child=3
4 g=2 Begin parent=1
%s
4.1 g=2 MapWrite site=11 addr=0x300
8 g=3 Begin parent=1
%s
8.1 g=3 MapWrite site=11 addr=0x300
`
	expect(t, check(t, fmt.Sprintf(text, "", ""), sites, Options{}),
		"con-map k.go:11(map-write) k.go:11(map-write)")
	expect(t, check(t, fmt.Sprintf(text, "5 g=2 MapMake site=12 addr=0x300", "9 g=3 MapMake site=12 addr=0x300"), sites, Options{}))
	// One map made before both goroutines is still one location.
	const shared = `
1 g=1 Begin parent=none
2 g=1 MapMake site=12 addr=0x300
3 g=1 Fork site=1 child=2
4 g=1 Fork site=2 child=3
5 g=2 Begin parent=1
5.1 g=2 MapWrite site=11 addr=0x300
6 g=3 Begin parent=1
6.1 g=3 MapWrite site=11 addr=0x300
`
	expect(t, check(t, shared, sites, Options{}), "con-map k.go:11(map-write) k.go:11(map-write)")
}

var spinSites = []site{
	{id: 1, kind: "go"}, {id: 2, kind: "go"},
	{id: 10, kind: "write", expr: "trx.query"}, {id: 11, kind: "write", expr: "trx.query"},
	{id: 12, kind: "read", uses: "deref", expr: "t.query"},
	{id: 20, kind: "lock", expr: "q.mu"}, {id: 21, kind: "unlock", expr: "q.mu"},
	{id: 22, kind: "write", expr: "q.items"}, {id: 23, kind: "read", uses: "loop-exit", expr: "q.items"},
}

// ConMem's Fig. 12(b): a queue polled under a lock. Without the spin-loop
// inference the nil store and the dereference look unordered; with it the
// poll loop's exit is ordered after the push, and so after the overwrite.
func TestSpinLoopQueue(t *testing.T) {
	text := `
1 g=1 Begin parent=none
2 g=1 Fork site=1 child=2
3 g=1 Fork site=2 child=3
4 g=3 Begin parent=1
5 g=3 Lock site=20 addr=0x800
5.1 g=3 Read site=23 addr=0x200
6 g=3 Unlock site=21 addr=0x800
7 g=2 Begin parent=1
7.1 g=2 Write site=10 addr=0x100 value=0
7.2 g=2 Write site=11 addr=0x100 value=1
8 g=2 Lock site=20 addr=0x800
8.1 g=2 Write site=22 addr=0x200 value=1
9 g=2 Unlock site=21 addr=0x800
10 g=3 Lock site=20 addr=0x800
10.1 g=3 Read site=23 addr=0x200
11 g=3 Unlock site=21 addr=0x800
11.1 g=3 Read site=12 addr=0x100
`
	expect(t, check(t, text, spinSites, Options{NoSpinLoops: true}),
		"con-null k.go:12(deref) k.go:10(nil-store)")
	var st Stats
	expect(t, check(t, text, spinSites, Options{Stats: &st, CountSpinPruned: true}))
	if st.SpinEdges != 1 || st.SpinPruned != 1 {
		t.Errorf("stats %+v, want one edge and one finding pruned", st)
	}
	// A loop left on its own goroutine's write is no synchronization loop.
	own := strings.Replace(text, "7.1 g=2 Write site=10", "9.1 g=3 Write site=22 addr=0x200 value=1\n7.1 g=2 Write site=10", 1)
	own = strings.Replace(own, "8.1 g=2 Write site=22 addr=0x200 value=1\n", "", 1)
	if got := check(t, own, spinSites, Options{}); len(got) == 0 {
		t.Error("a loop left on its own write pruned the findings")
	}
}

// TestChanAddressReuse is go-memdb's watch_test.go shape: a goroutine
// sends on a channel of its own, which dies; later the test goroutine
// makes a channel at the same address and closes it, without a GC epoch
// between them on its side (a goroutine's epoch is the last it noticed).
// The channels are two locations; without the allocation events they
// would look like a send racing a close.
func TestChanAddressReuse(t *testing.T) {
	sites := append(slices.Clone(chanSites), site{id: 34, kind: "make-chan", expr: "make(chan struct{})"})
	const text = `
1 g=1 Begin parent=none
2 g=1 Fork site=1 child=2
3 g=2 Begin parent=1
%s
5 g=2 ChanSend site=31 addr=0x900
6 g=2 End
%s
9 g=1 ChanClose site=33 addr=0x900
`
	expect(t, check(t, fmt.Sprintf(text, "", ""), sites, Options{}),
		"con-closed k.go:33(close) k.go:31(send)")
	expect(t, check(t, fmt.Sprintf(text, "4 g=2 ChanMake site=34 addr=0x900 cap=0", "8 g=1 ChanMake site=34 addr=0x900 cap=0"), sites, Options{}))
}

// TestTestLifeFirstCall: of a goroutine's t.Log calls that may come after
// its test's end, only the first is reported, since the later ones follow
// it and never run once it panicked; another goroutine's first call is
// reported too, and a call ordered before the end (the control) is not.
func TestTestLifeFirstCall(t *testing.T) {
	sites := []site{{id: 1, kind: "go"}, {id: 2, kind: "go"}, {id: 10, kind: "read"}, {id: 11, kind: "read"}, {id: 12, kind: "read"}, {id: 13, kind: "read"}}
	text := `
1 g=1 Begin parent=none
2 g=1 TestStart name="TestA"
2.1 g=1 Read site=0 addr=0x100
4 g=1 Fork site=1 child=2
5 g=1 Fork site=2 child=3
6 g=2 Begin parent=1
7 g=3 Begin parent=1
8 g=1 TestEnd outcome=pass
8.1 g=2 Read site=10 addr=0x100
8.2 g=2 Read site=11 addr=0x100
8.3 g=3 Read site=12 addr=0x100
`
	// lifetime runs TestLifetime, and TestLifetimeStream, which must
	// find the same.
	lifetime := func(text string) []string {
		t.Helper()
		g, tab := graph(t, text, sites)
		want := TestLifetime(hb.Analyze(g.Events, hb.Options{Sites: tab, LockOrder: true}), tab)
		got, err := CheckTestLifetimeStream(events(g.Events), tab, len(g.Events)+1, nil)
		if err != nil {
			t.Fatal(err)
		}
		if g, w := streamedSummary(got), streamedSummary(want); !slices.Equal(g, w) {
			t.Errorf("CheckTestLifetimeStream:\n\t%s\nTestLifetime:\n\t%s", strings.Join(g, "\n\t"), strings.Join(w, "\n\t"))
		}
		var out []string
		for _, f := range want {
			out = append(out, summary(t, f))
		}
		return out
	}
	expect(t, lifetime(text), "con-closed k.go:10(log)", "con-closed k.go:12(log)")
	// Calls before the end in the trace: the first of each goroutine not
	// ordered before it (g2's second, after its Done) is reported.
	early := `
1 g=1 Begin parent=none
2 g=1 TestStart name="TestA"
2.1 g=1 Read site=0 addr=0x100
4 g=1 WGAdd site=40 addr=0x200 delta=1
5 g=1 Fork site=1 child=2
6 g=1 Fork site=2 child=3
7 g=2 Begin parent=1
7.1 g=2 Read site=13 addr=0x100
8 g=2 WGDone site=41 addr=0x200
8.1 g=2 Read site=10 addr=0x100
8.2 g=2 Read site=11 addr=0x100
9 g=3 Begin parent=1
9.1 g=3 Read site=12 addr=0x100
10 g=1 WGWait site=42 addr=0x200
11 g=1 TestEnd outcome=pass
`
	expect(t, lifetime(early), "con-closed k.go:10(log)", "con-closed k.go:12(log)")
	ordered := `
1 g=1 Begin parent=none
2 g=1 TestStart name="TestA"
2.1 g=1 Read site=0 addr=0x100
4 g=1 WGAdd site=40 addr=0x200 delta=1
5 g=1 Fork site=1 child=2
6 g=2 Begin parent=1
6.1 g=2 Read site=13 addr=0x100
8 g=2 WGDone site=41 addr=0x200
9 g=1 WGWait site=42 addr=0x200
10 g=1 TestEnd outcome=pass
`
	expect(t, lifetime(ordered))
}

// dataloadgen's batch timer (held-out rehearsal 42's T1): under l.mu it
// returns if its batch's fetchExecuted is set, and otherwise dereferences
// l.batch; the section that stores nil to l.batch sets fetchExecuted
// first. Had that section run first, the timer would have returned:
// silent. Reported: the flag set outside that section, and the timer's
// check and dereference in two sections.
func TestNullSwitchedOff(t *testing.T) {
	const text = `
1 g=1 Begin parent=none
1.1 g=1 Write site=10 addr=0x100 value=1
2 g=1 Fork site=1 child=2
3 g=2 Begin parent=1
4 g=2 Lock site=20 addr=0x800
4.1 g=2 Read site=50 addr=0x300
%s
6 g=2 Unlock site=21 addr=0x800
%s
`
	sites := append(slices.Clone(nullSites), site{id: 12, kind: "read", uses: "deref", switches: "50"},
		site{id: 50, kind: "read", expr: "batch.fetchExecuted"}, site{id: 51, kind: "write", expr: "b.fetchExecuted"})
	sites = slices.DeleteFunc(sites, func(s site) bool { return s.id == 12 && s.switches == "" })
	flagInside := "8 g=1 Lock site=20 addr=0x800\n8.1 g=1 Write site=51 addr=0x300 value=1\n8.2 g=1 Write site=13 addr=0x100 value=0\n9 g=1 Unlock site=21 addr=0x800"
	flagOutside := "8 g=1 Lock site=22 addr=0x900\n8.1 g=1 Write site=51 addr=0x300 value=1\n9 g=1 Unlock site=23 addr=0x900\n10 g=1 Lock site=20 addr=0x800\n10.1 g=1 Write site=13 addr=0x100 value=0\n11 g=1 Unlock site=21 addr=0x800"
	sites = append(sites, site{id: 22, kind: "lock"}, site{id: 23, kind: "unlock"})
	expect(t, check(t, fmt.Sprintf(text, "4.2 g=2 Read site=12 addr=0x100", flagInside), sites, Options{}))
	expect(t, check(t, fmt.Sprintf(text, "4.2 g=2 Read site=12 addr=0x100", flagOutside), sites, Options{}),
		"con-null k.go:12(deref) k.go:13(nil-store)", "con-uninit k.go:50(read) k.go:51(init)")
	split := strings.Replace(fmt.Sprintf(text, "", flagInside), "6 g=2 Unlock site=21 addr=0x800",
		"5 g=2 Unlock site=21 addr=0x800\n6 g=2 Lock site=20 addr=0x800\n6.1 g=2 Read site=12 addr=0x100\n7 g=2 Unlock site=21 addr=0x800", 1)
	expect(t, check(t, split, sites, Options{}), "con-null k.go:12(deref) k.go:13(nil-store)")
}
