package oscs

import (
	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/detect/hb"
	"github.com/precog-dev/precog/shim/trace"
)

// Algorithm selects the access history of Fig. 8.
type Algorithm int

const (
	// Opt is OSCS-Opt (§3.4): per location, the two most recent reads
	// and the two most recent writes from different goroutines, kept only
	// for accesses inside critical sections to shared locations. The
	// default: it reports the same findings as Base on every kernel and
	// keeps several times less history (see doc.go).
	Opt Algorithm = iota
	// Base is OSCS-Base (Fig. 8): per location and goroutine, the most
	// recent read and the most recent write, of every access.
	Base
)

// paperName is the algorithm's name in the paper, after "OSCS-".
func (o Options) paperName() string {
	if o.Hardware != nil {
		return "HW"
	}
	if o.Algorithm == Base {
		return "Base"
	}
	return "Opt"
}

func (a Algorithm) String() string {
	if a == Base {
		return "base"
	}
	return "opt"
}

// Options configures Check. The zero value is OSCS-Opt with every filter of
// §2.4, with awaited flags taken for synchronization, and with the
// lazy-initialization and nil-guard filters (doc.go).
type Options struct {
	Algorithm Algorithm
	// NoCondFlags keeps flags awaited under a sync.Cond as data, as the
	// paper's measurements do (the false positives of Fig. 12). By
	// default such a flag is ordering synchronization, the fix §5.3
	// proposes: its accesses are no longer data accesses, and the write
	// that announced it orders the reads that saw it (CondFlagEdges);
	// Check then analyzes the events again with those edges.
	NoCondFlags bool
	// NoSpinFlags keeps flags awaited in a loop (a read in a critical
	// section that decides a loop exit, such as a locked polling loop) as
	// data; by default they are synchronization too (SpinFlagEdges).
	NoSpinFlags bool
	// NoLazyInit keeps the pairs of a lazy initialization (`if x.m ==
	// nil { x.m = make(...) }` in a critical section) with the reads of
	// other critical sections, which are dropped by default when the
	// reading section does not begin with an unchecked dereference.
	NoLazyInit bool
	// NoNilGuard keeps the pairs of a nil store with a critical section
	// that checks the location for nil and then dereferences it, which
	// are dropped by default.
	NoNilGuard bool
	// NoWholeOp keeps the pairs of two critical sections that are each a
	// whole operation of a lock-per-operation structure (doc.go), which
	// are dropped by default unless they are a lost update or a nil store
	// against an unchecked dereference.
	NoWholeOp bool
	// NoSwitched keeps the pairs whose later access ran only because a
	// check in its critical section found what the earlier access's
	// section changed (switched), which are dropped by default.
	NoSwitched bool
	// Hardware, if not nil, makes Check OSCS-HW (§4): OSCS-Opt whose
	// access history is what the hardware would hold, the Access History
	// Buffer's entries for the accesses it recorded (Algorithm is then
	// Opt whatever it is set to). hwmodel implements it by replaying the
	// trace through a model of the caches and the AHBs. The filters above
	// apply as they do in software, so that the two differ only by the
	// hardware's limited bookkeeping.
	Hardware Hardware
}

// Hardware is the bookkeeping of OSCS-HW, queried in trace order.
type Hardware interface {
	// Seen reports whether the hardware looks up and records access i,
	// a read or write inside a critical section: only when the cache
	// line is tagged shared (§4.1). gen names the AHB entry the access
	// found or, on a miss, allocated (§4.3); a history recorded under
	// another generation is gone, evicted with its entry.
	Seen(i int) (gen uint64, ok bool)
	// Alive reports whether the AHB entry of generation gen still holds
	// its history at event i.
	Alive(gen uint64, i int) bool
}

// Stats are counts from one Check, for the bench.
type Stats struct {
	Accesses int // memory accesses walked (reads and writes)
	// Pairs counts conflicting access pairs of different goroutines in
	// critical sections of a common lock that the filters examined.
	Pairs int
	// Ordered, Redundant, Switched, LazyInit, NilGuarded, WholeOp and
	// Commutative count the pairs each filter dropped; Reported the pairs
	// that were left (before deduplication).
	Ordered, Redundant, Switched, LazyInit, NilGuarded, WholeOp, Commutative, Reported int
	// PeakEntries is the largest number of access-history entries held
	// at once: one per location and goroutine for Base, one per shared
	// location for Opt. History is never dropped during a trace, so the
	// peak is the count at the end.
	PeakEntries int
	// PeakBytes is the size of those entries with their keys, by the
	// layout of the records (Go's map overhead not counted).
	PeakBytes int64
	// SharedBytes is the size of the table Opt uses to find the shared
	// locations before its walk (a location and its first goroutine per
	// location accessed in a critical section); zero for Base.
	SharedBytes int64
	// FlagLocations and Edges count the locations taken for cond and
	// spin flags and the order edges inferred from them.
	FlagLocations, Edges int
	// Unseen counts the accesses in critical sections to shared
	// locations that Options.Hardware did not record; Forgotten the
	// pairs it dropped for lack of history: a DetectionList entry whose
	// AHB entry was evicted before the check at release, or a pair that
	// only a missed access made look non-commutative (OSCS-HW only).
	Unseen, Forgotten int
}

// analyze is hb.Analyze; tests count its calls.
var analyze = hb.Analyze

// Check runs OSCS over the trace analyzed in g and returns one finding per
// distinct set of sites (the two accesses and the Lock sites of their
// critical sections) whose critical sections are order-sensitive.
func Check(g *hb.Graph, sites *trace.SiteTable, opts Options) []finding.Finding {
	fs, _ := CheckStats(g, sites, opts)
	return fs
}

// CheckStats is Check, also returning its counts.
func CheckStats(g *hb.Graph, sites *trace.SiteTable, opts Options) ([]finding.Finding, Stats) {
	var st Stats
	base := g
	var flags map[hb.Loc]bool
	if !opts.NoCondFlags || !opts.NoSpinFlags {
		var edges []hb.Edge
		edges, flags = flagEdges(g, sites, !opts.NoCondFlags, !opts.NoSpinFlags)
		st.Edges, st.FlagLocations = len(edges), len(flags)
		if len(edges) > 0 {
			o := g.Options()
			o.Sites, o.Edges = sites, append(o.Edges[:len(o.Edges):len(o.Edges)], edges...)
			g = analyze(g.Events, o)
		}
	}
	if opts.Hardware != nil {
		opts.Algorithm = Opt
	}
	c := newChecker(g, sites, opts, flags, &st)
	if plain(base.Options()) && base.Takes() == 0 {
		// The caller's graph is the trace's order without inferred
		// edges (sectionsOrdered's): no second analysis of the whole
		// trace for it, which beside the caller's and the one with the
		// flags' edges would be a third graph held at once.
		c.plain = base
	}
	c.run()
	c.waitUses(base)
	return c.findings(), st
}
