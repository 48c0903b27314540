package hb

import (
	"cmp"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/precog-dev/precog/shim/trace"
)

// A VC is a vector clock, indexed by dense goroutine index (see
// Graph.Goroutines). Components past its length are zero.
type VC []uint32

// Get returns component g.
func (v VC) Get(g int) uint32 {
	if g < len(v) {
		return v[g]
	}
	return 0
}

// String lists the non-zero components as "g0:4 g2:7", g followed by the
// dense goroutine index.
func (v VC) String() string {
	var b strings.Builder
	for g, t := range v {
		if t == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteByte('g')
		b.WriteString(strconv.Itoa(g))
		b.WriteByte(':')
		b.WriteString(strconv.FormatUint(uint64(t), 10))
	}
	return b.String()
}

// Mode is how a lock is held.
type Mode uint8

const (
	Write Mode = iota // Mutex.Lock, RWMutex.Lock
	Read              // RWMutex.RLock
)

func (m Mode) String() string {
	if m == Read {
		return "read"
	}
	return "write"
}

// A Lock is a mutex held in a mode.
type Lock struct {
	Addr uint64
	Mode Mode
}

// A Loc is a memory location: an address within a GC epoch, and, for
// reads and writes, the name of the variable or field the site names (see
// Graph.Loc).
type Loc struct {
	Addr  uint64
	Epoch uint64
	Var   uint32 // index of the name in Graph.Vars; 0 for no name
	// Gen counts, for a map or channel operation, the maps and channels
	// made at the address before it (EvMapMake, EvChanMake): two maps or
	// channels that had one address in turn are two locations, whatever
	// the GC epochs missed (a goroutine's epoch is the last it noticed,
	// so a send before a collection and a close of the channel made at
	// the same address after it could share one). For a read, write,
	// atomic, WaitGroup or Once event it counts the objects made over
	// the address's 8-byte word (EvNew) since the word's first access:
	// two structs that had one address in turn are two locations (see
	// "Locations" in the package doc).
	Gen uint32
}

// An Edge is an extra order edge: event From happens before event To.
type Edge struct {
	From, To int
}

// Options configures Analyze.
type Options struct {
	// Sites is the trace's site table. Analyze needs it to tell a select's
	// send cases from its receive cases (Site.Cases) and a TryRLock from a
	// TryLock; without it every select case counts as a receive and every
	// TryLock as a write lock.
	Sites *trace.SiteTable
	// LockOrder also orders each Unlock of a mutex before every later
	// Lock of it (an RUnlock before later Locks, an Unlock before later
	// RLocks too): the happens-before of the Go memory model and of the
	// race detector, which a data race checker needs. Without it (the
	// default, for ConMem and OSCS) mutexes give lock sets only.
	LockOrder bool
	// NoTakes leaves out the order of hand-offs through a container under
	// a mutex (see "Hand-offs" in the package doc), which is on by
	// default.
	NoTakes bool
	// NoHandedLocks leaves out locks handed from one goroutine to another
	// (see "Locks handed between goroutines" in the package doc), which
	// are on by default. LockOrder leaves them out too: its mutex order
	// already orders the receiver's accesses.
	NoHandedLocks bool
	// Edges are extra order edges, for synchronization a checker inferred.
	// An edge whose From is not before its To in the event order is
	// ignored.
	Edges []Edge
}

// A Goroutine is one goroutine of the trace. A logical id that the trace
// reuses after the goroutine ended (control's tests do) gets a second
// Goroutine.
type Goroutine struct {
	ID     uint64 // logical id
	Parent int    // dense index of the goroutine that started it, -1 if none was recorded
	Fork   int    // event index of the EvFork or EvTaskGo that started it, -1 if none
	Events []int  // its event indices, in program order
	// Tested is set when it ran a test or subtest function: it has an
	// EvTestStart.
	Tested bool
	// Creators are, for a goroutine that code precog does not
	// instrument started, its EvCreator events' functions: one per
	// package up the chain of its creation, innermost first (what
	// started it, then what called into that); nil if the shim named
	// none.
	Creators []string
}

// A Section is a critical section: a lock held by a goroutine from a Lock
// event to the matching Unlock.
type Section struct {
	G      int  // dense goroutine index
	Lock   Lock // the lock and the mode it is held in
	Begin  int  // event index of the Lock, RLock or successful TryLock
	End    int  // event index of the Unlock or RUnlock; -1 if never released
	Parent int  // index in Sections of the innermost enclosing section of the same goroutine; -1 if none
	// Handed: the lock passed between goroutines (see "Locks handed
	// between goroutines" in the package doc). Handed to the goroutine
	// at its start, Begin is its first event, not a Lock, and the
	// parent's section of the lock ends at the fork. Adopted from the
	// goroutine that took it, Begin is the adopter's first event ordered
	// after the Lock, and the locker's section, Handed too, ends there
	// (its End is that event, of another goroutine).
	Handed bool
}

// A Graph is the result of Analyze: a trace's events with their order and
// lock sets.
type Graph struct {
	Events     []trace.Event
	Goroutines []Goroutine

	opts  Options // what Analyze was called with
	takes int     // hand-off edges it found (Takes)

	seg      []uint32  // per event: index in segs
	segs     []segment // what the accessors say of events, shared by the runs of events of a goroutine that agree
	gen      []uint32  // per event: Loc.Gen (a map or channel operation's, an object access's); nil if every one is 0
	clocks   []snapshot
	diffs    []comp // the components of clocks kept apart from their trees
	locksets [][]Lock
	sections []Section

	// WordsUntracked counts the accesses whose word got no field
	// generation: MaxTouchedWords other words had one.
	WordsUntracked int

	// Vars are the variable and field names of the sites of reads and
	// writes, Vars[0] being "" (no name); varOf maps a site to its index.
	Vars  []string
	varOf map[uint32]uint32

	// joins holds, for an event before which its goroutine joined
	// subtests that ended while it waited in t.Run (or a synctest
	// bubble's goroutines), their last events (Joined).
	joins map[int][]int32

	writesOnce sync.Once
	writes     map[Loc][]uint32 // the writes of each location (writesTo); built on first use
}

// A segment is what the accessors say of an event but its own fields:
// its goroutine, clock, lock set and GC epoch. Only a goroutine's sync
// events change them (a release its own component, an acquire its clock,
// a Lock or Unlock its lock set, an EvGCEpoch its epoch), so the memory
// accesses between two sync events share one segment: an event costs the
// Graph 4 bytes, and a segment 24, where the five fields took 24 bytes per
// event (bench/RESULTS.md, "Analysis memory and time at scale").
type segment struct {
	g       int32  // dense goroutine index
	own     uint32 // the goroutine's own clock component
	snap    int32  // index in clocks of the goroutine's clock (own component stale)
	lockset int32  // index in locksets
	epoch   uint64 // the goroutine's GC epoch
}

// Options returns the options Analyze computed g with. A checker that
// analyzes the events again with edges it inferred starts from them, so
// that the order rules stay the same (Options.NoTakes).
func (g *Graph) Options() Options { return g.opts }

// Takes returns how many order edges of hand-offs through a container
// under a mutex (see "Hand-offs" in the package doc) g holds: with none,
// g's order is the one Analyze gives with Options.NoTakes.
func (g *Graph) Takes() int { return g.takes }

// Goroutine returns the dense index of the goroutine of event i.
func (g *Graph) Goroutine(i int) int { return int(g.segs[g.seg[i]].g) }

// HappensBefore reports whether event a happens before event b: a comes
// first in the same goroutine, or a chain of order edges leads from a to b.
func (g *Graph) HappensBefore(a, b int) bool {
	sa, sb := &g.segs[g.seg[a]], &g.segs[g.seg[b]]
	if sa.g == sb.g {
		return a < b
	}
	return sa.own <= g.clocks[sb.snap].get(int(sa.g), g.diffs)
}

// Joined returns the last events of the subtests that event i's goroutine
// joined just before i (a subtest that ended while its parent waited in
// t.Run, a fuzz target's seed input, the goroutines of a synctest bubble
// whose Test returned; see "Subtests" and "Bubbles" in the package doc):
// i's clock holds them, as it holds its goroutine's event before i, and
// neither comes from i's own acquire. A checker that judges an event on
// its clock without its own acquire (a WaitGroup Wait, an atomic load)
// takes an event ordered before one of these as before i too. Nil for
// most events. Stream gives them in Step.Joined.
func (g *Graph) Joined(i int) []int32 { return g.joins[i] }

// Concurrent reports whether neither of events a and b happens before the
// other.
func (g *Graph) Concurrent(a, b int) bool {
	return a != b && !g.HappensBefore(a, b) && !g.HappensBefore(b, a)
}

// Clock returns the vector clock of event i, a copy.
func (g *Graph) Clock(i int) VC {
	sg := &g.segs[g.seg[i]]
	s := g.clocks[sg.snap]
	c := vclock{root: s.root, depth: s.depth, g: sg.g, own: sg.own, hasG: true}
	v := c.vc(int(c.g) + 1)
	for _, d := range g.diffs[s.off : s.off+uint32(s.n)] {
		if int(d.g) >= len(v) {
			v = append(v, make(VC, int(d.g)+1-len(v))...)
		}
		v[d.g] = d.v
	}
	return v
}

// Own returns event i's own component: its goroutine's entry in its clock.
// Every copy of a goroutine's clock taken when its own component was v
// holds the goroutine's clock at each of its events whose own component is
// below v, so an event whose clock has v or more for the goroutine is
// ordered after all of them and after what they are ordered after.
func (g *Graph) Own(i int) uint32 { return g.segs[g.seg[i]].own }

// ClockKey returns a key of event i's vector clock within its goroutine:
// two events of one goroutine with the same key have the same clock (the
// converse need not hold). CFP groups function instances by it.
func (g *Graph) ClockKey(i int) uint64 {
	sg := &g.segs[g.seg[i]]
	return uint64(uint32(sg.snap))<<32 | uint64(sg.own)
}

// LocksKey returns a key of the lock set held at event i: events with the
// same key hold the same locks.
func (g *Graph) LocksKey(i int) int32 { return g.segs[g.seg[i]].lockset }

// Locks returns the locks held at event i, sorted by address then mode. The
// slice is shared: do not modify it. A Lock event holds the lock it took;
// an Unlock event still holds the lock it releases.
func (g *Graph) Locks(i int) []Lock { return g.locksets[g.segs[g.seg[i]].lockset] }

// LockNames names the locks held at event i for a report
// (finding.Evidence.Locks), each by the Lock call that took it (LockName).
func (g *Graph) LockNames(i int, sites *trace.SiteTable) []string {
	var out []string
	for _, l := range g.Locks(i) {
		out = append(out, LockName(sites, g.Acquired(i, l.Addr), l.Addr, l.Mode == Read))
	}
	return out
}

// LockName is how a report names a lock: by the expression and position of
// the Lock call that took it, "c.mu@cache.go:120", from the site table's
// site with ID site; by its address, "lock@0xc000012345", when that site
// is unknown (a lock taken in code that was not instrumented). read marks
// a read lock.
func LockName(sites *trace.SiteTable, site uint32, addr uint64, read bool) string {
	name := "lock@0x" + strconv.FormatUint(addr, 16)
	if s, ok := sites.Lookup(site); ok {
		name = s.Expr + "@" + filepath.Base(s.File) + ":" + strconv.Itoa(s.Line)
	}
	if read {
		name += " (read)"
	}
	return name
}

// Acquired returns the site of the Lock, RLock or TryLock event by which
// the goroutine of event i took lock addr, held at i (the newest such
// event up to i), or 0 if its trace has none.
func (g *Graph) Acquired(i int, addr uint64) uint32 {
	evs := g.Goroutines[g.Goroutine(i)].Events
	k, _ := slices.BinarySearch(evs, i+1)
	for k--; k >= 0; k-- {
		ev := &g.Events[evs[k]]
		if ev.Addr == addr && (ev.Kind == trace.EvLock || ev.Kind == trace.EvRLock || ev.Kind == trace.EvTryLock) {
			return ev.Site
		}
	}
	return 0
}

// CommonLock reports whether some lock is held at both events a and b in
// modes that exclude each other (not both Read).
func (g *Graph) CommonLock(a, b int) bool {
	la, lb := g.Locks(a), g.Locks(b)
	for _, x := range la {
		for _, y := range lb {
			if x.Addr == y.Addr && (x.Mode == Write || y.Mode == Write) {
				return true
			}
		}
	}
	return false
}

// Loc returns the location event i accessed: its address in the GC epoch
// of its goroutine and, for a read or write whose site names a variable or
// field (thd.procInfo, gEnd), that name. The name guards against a reused
// address that the epochs miss: the shim learns of a collection in a
// finalizer, which may run after the collector freed an object and the
// program allocated another at its address, so two objects can share an
// address within an epoch. Two accesses through different names are
// different locations; so are p.f and *q with q == &p.f, a rare alias
// that a checker then misses (index expressions and dereferences have no
// name and match each other). A map access's location also counts the
// maps made at its address before it (Loc.Gen), in the global order: a
// map made at an instrumented site starts a new location; so does a
// struct (EvNew) for the accesses to its words.
func (g *Graph) Loc(i int) Loc {
	l := Loc{Addr: g.Events[i].Addr, Epoch: g.segs[g.seg[i]].epoch}
	if k := g.Events[i].Kind; k == trace.EvRead || k == trace.EvWrite {
		l.Var = g.varOf[g.Events[i].Site]
	}
	if g.gen != nil {
		l.Gen = g.gen[i]
	}
	return l
}

// Sections returns the critical sections, in the order of their Begin.
func (g *Graph) Sections() []Section { return g.sections }

// Stack returns the event indices of the EvFuncEnter events open at event
// i, outermost first: the functions, recorded with precog record -funcs,
// that the goroutine was in.
func (g *Graph) Stack(i int) []int {
	var stack []int
	for _, j := range g.Goroutines[g.Goroutine(i)].Events {
		if j > i {
			break
		}
		switch g.Events[j].Kind {
		case trace.EvFuncEnter:
			stack = append(stack, j)
		case trace.EvFuncExit:
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		}
	}
	return stack
}

// Instance returns how many events of event i's goroutine came at i's site
// before i: with the goroutine's logical id and the site, it names event i
// the way the shim's control plans name points, stable from run to run. A
// logical id the trace reused counts the events of its earlier goroutines
// too, as the shim does.
func (g *Graph) Instance(i int) uint64 {
	ev := &g.Events[i]
	var n uint64
	for gi := range g.Goroutines {
		gr := &g.Goroutines[gi]
		if gr.ID != ev.Goroutine {
			continue
		}
		for _, j := range gr.Events {
			if j >= i {
				break
			}
			if g.Events[j].Site == ev.Site {
				n++
			}
		}
	}
	return n
}

// Adopted reports whether goroutine gi was started by code that is not
// instrumented (a dependency's or the standard library's go statement):
// no recorded go statement or testing.T.Run started it, and it is neither
// the main goroutine nor a test's (Tested). Its start and the joins of it
// are not in the trace.
func (g *Graph) Adopted(gi int) bool { return g.Goroutines[gi].adopted() }

func (gr *Goroutine) adopted() bool {
	return gr.Fork < 0 && gr.Parent < 0 && gr.ID != mainGoroutine && !gr.Tested
}

// Spawn returns the site of the go statement (or task) that started
// goroutine gi, 0 if no recorded one did.
func (g *Graph) Spawn(gi int) uint32 {
	if f := g.Goroutines[gi].Fork; f >= 0 {
		return g.Events[f].Site
	}
	return 0
}

// siteVar returns the variable or field an access site's expression names,
// the identifier it ends with ("procInfo" for thd.procInfo), or "" for an
// expression that ends otherwise (an index, a slice, a call) or is a
// dereference.
func siteVar(expr string) string {
	if strings.HasPrefix(expr, "*") {
		return ""
	}
	i := len(expr)
	for i > 0 {
		c := expr[i-1]
		if c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c >= 0x80 {
			i--
			continue
		}
		break
	}
	if i == len(expr) || (i > 0 && expr[i-1] != '.') {
		return ""
	}
	return expr[i:]
}

// lockKey orders locks in a lock set.
func lockKey(a, b Lock) int {
	return cmp.Or(cmp.Compare(a.Addr, b.Addr), cmp.Compare(a.Mode, b.Mode))
}
