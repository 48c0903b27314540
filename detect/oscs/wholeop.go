package oscs

import (
	"maps"
	"slices"
	"strings"

	"github.com/precog-dev/precog/detect/hb"
	"github.com/precog-dev/precog/shim/trace"
)

// The whole-operation filter of doc.go ("Lock-per-operation structures"):
// a pair between two critical sections that are each a whole operation is
// order-insensitive, unless it is a lost update or a crash on the order.

// wholeOps reports whether the pair's two critical sections of the
// common lock are both whole operations (or one a lone setter against a
// lone operation), neither one a read-only section
// whose goroutine touches, in its previous or next section of the lock,
// what the other side writes, nor one that carries a value past its
// Unlock or stopped its call on a premise the other side breaks, unless
// the other side answers it; and the pair is neither a lost update (two
// writes, neither section having read the location before its write) nor
// a nil store (or a store over nil) against a section that begins its
// use of the location with an unchecked dereference.
func (c *checker) wholeOps(p rec, pWrite bool, cur rec, cWrite bool, loc hb.Loc) bool {
	lock, ok := c.commonLock(int(p.ev), int(cur.ev))
	if !ok {
		return false
	}
	if pWrite && cWrite && c.heapBookkeeping(p, cur) {
		return true
	}
	kp, kc := c.sectionAt(p, lock), c.sectionAt(cur, lock)
	if w, r, ok := writeRead(p, pWrite, cur, cWrite); ok {
		kw, kr := kp, kc
		if w.ev == cur.ev {
			kw, kr = kc, kp
		}
		if c.announced(kw, r, kr, loc) {
			return true
		}
	}
	setter := false
	for _, s := range [][3]int{{kp, int(p.ev), kc}, {kc, int(cur.ev), kp}} {
		k, ev, other := s[0], s[1], s[2]
		if !c.wholeOp(k) {
			if !c.loneSetter(k, other) {
				return false
			}
			setter = true
		}
		if c.split(k, other) || c.splitRead(k, other) {
			return false
		}
		if (c.abandoned(k, other) || c.usedAfter(k, c.g.Events[ev].Site)) && !c.answered(k, other) {
			return false
		}
	}
	if pWrite && cWrite {
		return p.flag || cur.flag || c.copiesUpdate(p, kp, cur, kc) || c.reached(p, kp, cur, kc) || c.decided(p, kp, cur, kc) ||
			c.scratch(p, kp, cur, kc, loc)
	}
	if _, r, ok := writeRead(p, pWrite, cur, cWrite); ok && setter && c.branchOnly(c.g.Events[r.ev].Site) {
		// A lone setter against a check that decides on the value:
		// which runs first decides what the checking section does
		// (Fig. 4's flag, checked before it is set), not only what it
		// reads.
		return false
	}
	if w, r, ok := writeRead(p, pWrite, cur, cWrite); ok && (w.val == 0 || setter && w.zero && w.ev < r.ev) && c.sectionUse(r, loc).firstDeref {
		// One order gives the reader zero, which it dereferences:
		// the write stores nil, or a lone setter's replaced nil (as
		// far as the trace knows: no earlier write, in this GC
		// epoch) and the read, which came after it, may come first.
		// A read that came first and dereferenced what it found did
		// not find nil. (A section that reads and initializes may
		// be what publishes the object the reader reaches: a
		// constructor's section that adds it to a map; lazyInit
		// judges a section that reads the location first.)
		return false
	}
	return true
}

// footprint is what one critical section (with the sections nested in
// it) accessed.
type footprint struct {
	touched, written map[hb.Loc]bool
	// rw holds the locations the section reads and then writes (a
	// read-modify-write such as a counter's += : CSRWFlag's sequence).
	rw map[hb.Loc]bool
	// read holds the locations the section reads; carried those of them
	// that some read's site does not mark trace.UseBranch and that is
	// not an update in place (its value may go on past the section, or
	// the site says nothing), scalar those of them with such a read
	// that is not pointer-shaped (trace.UsePointer).
	read, carried, scalar map[hb.Loc]bool
	// checked holds the locations whose first access in the section is
	// a read that only decides branches (the section looks at what it
	// finds before it acts: a loop's `for l.front != nil`), updated
	// those whose first access is an update in place (`l.count--`: the
	// read's value goes into the location again), blind those whose
	// first access is a write (the section overwrites what it finds
	// unseen).
	checked, updated, blind map[hb.Loc]bool
	reads                   bool // some access is a read
	// made holds the channels the section made, and chans those it
	// sent on, received from, selected on or closed (by address and GC
	// epoch); nil if none.
	made, chans map[hb.Loc]bool
}

func (c *checker) footprint(k int) *footprint {
	if f, ok := c.footprints[k]; ok {
		return f
	}
	f := &footprint{touched: make(map[hb.Loc]bool), written: make(map[hb.Loc]bool), rw: make(map[hb.Loc]bool),
		read: make(map[hb.Loc]bool), carried: make(map[hb.Loc]bool), scalar: make(map[hb.Loc]bool),
		checked: make(map[hb.Loc]bool), updated: make(map[hb.Loc]bool), blind: make(map[hb.Loc]bool)}
	s := c.g.Sections()[k]
	evs := c.g.Goroutines[s.G].Events
	j, _ := slices.BinarySearch(evs, s.Begin)
	for ; j < len(evs) && (s.End < 0 || evs[j] <= s.End); j++ {
		i := evs[j]
		switch c.g.Events[i].Kind {
		case trace.EvChanMake:
			f.made = addTo(f.made, c.chanOf(i))
		case trace.EvChanSend, trace.EvChanRecv, trace.EvSelect, trace.EvChanClose:
			f.chans = addTo(f.chans, c.chanOf(i))
		}
		if kind := c.g.Events[i].Kind; isAccess(kind) {
			l := c.g.Loc(i)
			branch := kind != trace.EvWrite && c.branchOnly(c.g.Events[i].Site)
			update := kind != trace.EvWrite && j+1 < len(evs) && c.inPlace(i, evs[j+1])
			if !f.touched[l] {
				switch {
				case kind == trace.EvWrite:
					f.blind[l] = true
				case branch:
					f.checked[l] = true
				case update:
					f.updated[l] = true
				}
			}
			f.touched[l] = true
			if kind == trace.EvWrite {
				f.written[l] = true
				if f.read[l] {
					f.rw[l] = true
				}
			} else {
				f.reads = true
				f.read[l] = true
				if !branch && !update {
					f.carried[l] = true
					if st, ok := c.sites.Lookup(c.g.Events[i].Site); !ok || !st.Used(trace.UsePointer) {
						f.scalar[l] = true
					}
				}
			}
		}
	}
	if c.footprints == nil {
		c.footprints = make(map[int]*footprint)
	}
	c.footprints[k] = f
	return f
}

// inPlace reports whether read r is an update in place: the goroutine's
// next event, next, writes r's location at the same line, column and
// expression (`l.count--`, `s.n += d`), so the value read goes into the
// location again, not past the section.
func (c *checker) inPlace(r, next int) bool {
	if c.sites == nil || c.g.Events[next].Kind != trace.EvWrite || c.g.Loc(next) != c.g.Loc(r) {
		return false
	}
	a, ok := c.sites.Lookup(c.g.Events[r].Site)
	b, ok2 := c.sites.Lookup(c.g.Events[next].Site)
	return ok && ok2 && a.Line == b.Line && a.Col == b.Col && a.Expr == b.Expr && a.File == b.File
}

// splitRead reports whether section k only reads and its goroutine's
// previous or next section of the same lock touches a location that
// section other writes: a getter whose caller goes on with a second
// section over the state another goroutine's section changes in between
// (StringBuffer's Length, then GetChars, with SetLength in between: the
// multi-variable atomicity shape, through two calls). A neighbor taken at
// k's own Lock site, when its function has no other, is another call of
// the same operation and does not count; with other Lock sites it is
// another iteration of a loop that takes the section whole when both
// sections are inOrder (paho's pinger reading its timestamps on every
// tick), and does not count either; nor does one that no function
// of the program takes after (or before) k's operation on one object
// (twoStep: a test's loop). A previous neighbor does not count either
// when k checks again, before it relies on them, the locations that other
// writes (checksAgain: serf's sendResponse tests r.closed under the lock
// after its caller asked Finished; with Close between the two, it finds
// the flag set, as when Close runs before both). A next neighbor that
// checks still counts: k's value goes on into it, and its check may
// compare with it (Len, then a Pop that panics on the empty queue that
// Len said was not).
func (c *checker) splitRead(k, other int) bool {
	if len(c.footprint(k).written) > 0 || c.sealed(k) {
		// A sealed section hands its caller nothing to go on with.
		return false
	}
	w := c.footprint(other).written
	secs := c.g.Sections()
	for _, n := range c.neighbors(k) {
		if c.sameCall(k, n) {
			// One call's two sections: split judges them.
			continue
		}
		if c.repeated(k, n) {
			// Another call of the same operation (a periodic task:
			// bigcache's cleanUp on every tick), not a caller's second
			// step, or another iteration of a loop that takes the
			// section whole. A function with other Lock sites may be
			// one call relocking in a loop that holds the lock across
			// its back edge (mozilla3x's Run polling its wake-up).
			// Past the calls of the operation that repeat it, the
			// section before them may be a caller's first step that
			// the loop relies on (Len, then At(i) for every i below
			// it: the last At's neighbor is the At before it), which
			// twoStep then judges.
			if n = c.pastRepeats(k, n); n < 0 {
				continue
			}
		}
		if secs[n].Begin < secs[k].Begin && c.checksAgain(k, w) {
			// The caller's first step came before, and k checks
			// anew what it relies on (serf's handleQueryResponse:
			// Finished, then sendResponse, which tests r.closed
			// again under the lock before it sends).
			continue
		}
		if !c.twoStep(k, n) {
			// The next call of a loop that drives the structure
			// (a test's worker calling Set, then Get), not a
			// caller's second step.
			continue
		}
		for l := range c.footprint(n).touched {
			if w[l] {
				return true
			}
		}
	}
	return false
}

// repeated reports whether the goroutine's section n of k's lock, taken
// at k's Lock site, is another call of k's operation (its function takes
// the lock nowhere else: a periodic task) or another iteration of a loop
// that takes the section whole (both inOrder), not a caller's other step.
func (c *checker) repeated(k, n int) bool {
	secs := c.g.Sections()
	site := c.g.Events[secs[k].Begin].Site
	return c.g.Events[secs[n].Begin].Site == site && (c.onlyLockSite(site) || c.inOrder(k) && c.inOrder(n))
}

// checksAgain reports whether section k takes nothing from what the
// locations in written hold when it comes to them (takesNothing: its
// first access of each that it touches checks it, in a read that only
// decides branches, updates it in place or overwrites it), so that what
// its caller's earlier step saw of them is no premise of k's.
func (c *checker) checksAgain(k int, written map[hb.Loc]bool) bool {
	f := c.footprint(k)
	for l := range f.touched {
		if written[l] && !takesNothing(l, f) {
			return false
		}
	}
	return true
}

// pastRepeats returns the goroutine's nearest section of k's lock beyond
// its neighbor n (in n's direction from k) that was not taken at k's Lock
// site, with only sections taken at that site between: the step before
// (or after) a run of calls of k's operation. -1 if there is none.
func (c *checker) pastRepeats(k, n int) int {
	secs := c.g.Sections()
	s := secs[k]
	d := 1
	if secs[n].Begin < s.Begin {
		d = -1
	}
	key := [2]int{n, d}
	if r, ok := c.repeats[key]; ok {
		return r
	}
	own := c.secsOf[s.G]
	at, _ := slices.BinarySearchFunc(own, secs[n].Begin, func(x int32, b int) int { return secs[x].Begin - b })
	site := c.g.Events[s.Begin].Site
	r := -1
	var walked []int
	for j := at; j >= 0 && j < len(own); j += d {
		x := secs[own[j]]
		if x.Lock.Addr != s.Lock.Addr {
			continue
		}
		if c.g.Events[x.Begin].Site != site {
			r = int(own[j])
			break
		}
		walked = append(walked, int(own[j]))
	}
	if c.repeats == nil {
		c.repeats = make(map[[2]int]int)
	}
	for _, w := range walked {
		c.repeats[[2]int{w, d}] = r
	}
	return r
}

// twoStep reports whether a function of the program calls the operation
// of the earlier of sections a and b and then, on the same object, the
// operation of the later one: the later section's Lock site lists the
// earlier one's in trace.Site.After, the instrumenter's static fact
// (StringBuffer's Append calls Length, then GetChars). A test's loop
// makes no two-step, so its calls of one operation after another are
// separate operations. The fact is about functions, not calls: a
// test's loop that calls two operations in the order a library
// function also calls them looks like that function's two steps.
func (c *checker) twoStep(a, b int) bool {
	secs := c.g.Sections()
	if secs[b].Begin < secs[a].Begin {
		a, b = b, a
	}
	s, ok := c.sites.Lookup(c.g.Events[secs[b].Begin].Site)
	return ok && s.Follows(c.g.Events[secs[a].Begin].Site)
}

// neighbors returns the goroutine's nearest sections of k's lock before
// and after k.
func (c *checker) neighbors(k int) []int {
	var ns []int
	for _, d := range []int{-1, 1} {
		if n := c.adjacent(k, d); n >= 0 {
			ns = append(ns, n)
		}
	}
	return ns
}

// adjacent returns the goroutine's nearest section of k's lock after k
// (d 1) or before it (d -1), -1 if none.
func (c *checker) adjacent(k, d int) int {
	secs := c.g.Sections()
	s := secs[k]
	own := c.secsOf[s.G]
	at, _ := slices.BinarySearchFunc(own, s.Begin, func(x int32, b int) int { return secs[x].Begin - b })
	for j := at + d; j >= 0 && j < len(own); j += d {
		if secs[own[j]].Lock.Addr == s.Lock.Addr {
			return int(own[j])
		}
	}
	return -1
}

// wholeOp reports whether critical section k is a whole operation: it
// was released, its Lock and Unlock are in one function, it reads (a
// section that only writes is a setter, one part of an update whose other
// parts are other sections: jsstring's setLength and setChars, called
// one after the other by Concat). Whether it is one of two sections of
// one call is split's question, which depends on the other side.
func (c *checker) wholeOp(k int) bool {
	if k < 0 {
		return false
	}
	if w, ok := c.whole[k]; ok {
		return w
	}
	w := c.computeWholeOp(k)
	if c.whole == nil {
		c.whole = make(map[int]bool)
	}
	c.whole[k] = w
	return w
}

func (c *checker) computeWholeOp(k int) bool {
	return (c.oneFunc(k) || c.oneCall(k)) && c.footprint(k).reads
}

// oneCall reports whether critical section k is one of the sections of
// one call that a callee's transient release splits (windowed): the
// first section of its run of windowed sections began at a Lock of the
// function whose Unlock ended the run's last section.
func (c *checker) oneCall(k int) bool {
	secs := c.g.Sections()
	first, last := k, k
	for {
		ns := c.neighbors(first)
		if len(ns) == 0 || secs[ns[0]].Begin > secs[first].Begin || !c.windowed(ns[0], first) {
			break
		}
		first = ns[0]
	}
	for {
		ns := c.neighbors(last)
		if len(ns) == 0 || secs[ns[len(ns)-1]].Begin < secs[last].Begin || !c.windowed(last, ns[len(ns)-1]) {
			break
		}
		last = ns[len(ns)-1]
	}
	if first == k && last == k || secs[last].End < 0 {
		return false
	}
	fb, ok := c.funcOf(c.g.Events[secs[first].Begin].Site)
	fe, ok2 := c.funcOf(c.g.Events[secs[last].End].Site)
	return ok && ok2 && fb == fe
}

// windowed reports whether the goroutine's section n of a lock, the next
// after its section k of that lock, began at a Lock that the function
// of the Unlock which ended k takes below that Unlock in the source, on
// the same lock expression: the function let the lock go for a while and
// took it again (a callback called unlocked: sctp's processAcknowledgement
// releases the association's lock around each stream's onBufferReleased).
func (c *checker) windowed(k, n int) bool {
	if c.sites == nil {
		return false
	}
	secs := c.g.Sections()
	if secs[k].End < 0 {
		return false
	}
	u, ok := c.sites.Lookup(c.g.Events[secs[k].End].Site)
	l, ok2 := c.sites.Lookup(c.g.Events[secs[n].Begin].Site)
	if !ok || !ok2 || u.Kind != "unlock" && u.Kind != "runlock" || u.File != l.File || u.Function != l.Function || u.Expr != l.Expr || !before(u, l) {
		return false
	}
	for _, x := range c.lockSitesIn(u.File, u.Function, u.Expr) {
		if before(x, u) {
			// The function takes the lock itself before it lets it
			// go: its own sections, which sameCall judges by their
			// Lock sites.
			return false
		}
	}
	return c.next(k) == n
}

// next returns the goroutine's next section of k's lock after k, -1 if
// none.
func (c *checker) next(k int) int {
	secs := c.g.Sections()
	for _, n := range c.neighbors(k) {
		if secs[n].Begin > secs[k].Begin {
			return n
		}
	}
	return -1
}

// oneFunc reports whether critical section k was released, by an Unlock
// in the function of its Lock.
func (c *checker) oneFunc(k int) bool {
	secs := c.g.Sections()
	s := secs[k]
	if s.End < 0 {
		return false
	}
	begin := c.g.Events[s.Begin].Site
	fn, ok := c.funcOf(begin)
	if !ok {
		return false
	}
	end, ok := c.funcOf(c.g.Events[s.End].Site)
	return ok && end == fn
}

// loneSetter reports whether critical section k, which only writes, is
// an update by itself against section other: k and other are each the
// one section of a call (alone). A reset that replaces a structure's
// state in one section (hystrix-go's collectors' Reset: every counter
// made anew) against a getter's section leaves either the old state or
// the new one for the getter, as two whole operations do. A setter that
// is one step of a caller's update (jsstring's Concat calls setLength,
// setFlags, then setChars) has a neighbor section that is its two-step;
// one whose other side reads over several sections of one call
// (mysqlslave's Status: the name, then the position, with Rotate's
// section between) meets a section that is not alone. A getter that is
// one step of a caller's several is alone against a lone setter whose
// section commutes with each of its other steps (aloneAgainst, the
// setter's own rule seen from the getter's side): pterm's printers call
// rawOutput, then printColorEnabled, and DisableColor, which writes only
// what the second reads, falls before both, between them (as before both,
// for rawOutput) or after both; DisableStyling, which writes what both
// read, still tears the caller's snapshot. (wholeOps also keeps the pair
// when the read only decides branches: a check, whose action the order
// decides.)
func (c *checker) loneSetter(k, other int) bool {
	if k < 0 || other < 0 || c.footprint(k).reads || !c.oneFunc(k) {
		return false
	}
	if c.alone(k) {
		return c.alone(other) || c.soleReader(other, k) || c.aloneAgainst(other, k)
	}
	return c.alone(other) && c.aloneAgainst(k, other)
}

// aloneAgainst reports whether critical section k is alone but for
// steps of its caller's operation that commute with section other
// (commute: no location or channel that either writes or uses is the
// other's), which is alone itself. Other's section run between such a
// step and k leaves what it would leave run before the step, so of the
// call's orders against other only the whole ones remain. (A reader
// that is not alone may have a step of its own that the setter's steps
// do not commute with: kb4's Last reads the length and then the data,
// which Grow's two helpers set under two locks.) open-feature's
// multi-provider sets its status in updateProviderState after it
// compares it with Status, `if s != p.Status() { p.setStatus(s) }` (a
// two-step): a test's goroutine polling Status only reads, and finds
// the status of before the update or after it, as against a lone
// setter. Another setter of the status does not commute with the
// comparison's read, and the pair of the two writes stays reported (a
// check-then-act). The steps are walked from k while they are two-steps
// with it, up to maxSteps of them, and not past another call of k's own
// operation. A step is not passed when other is its counterpart in
// another call of the same operation (anotherCall): a second update
// that compared the status, found it unchanged and stopped, its set not
// in the trace, checked what k's set then makes stale.
func (c *checker) aloneAgainst(k, other int) bool {
	return c.computeAlone(k, other)
}

// anotherCall reports whether section other, a check of what section n
// checks (sameCheck: taken at n's Lock site, or a getter of the same
// state at another), is n's counterpart in another update: the atomics
// that other's goroutine ran since its previous section and those of n's
// goroutine each store and load one location (atomicSteps: an update
// whose first step is an atomic, with no section before its comparison,
// stores a member and loads it back; an atomic that one goroutine only
// stores and the other only loads, a poller's waiting mark or a close
// flag, is no such step: review C's false reports), or the section that
// other's goroutine ran just before other, not itself such a check, was
// taken at the site of the one that n's goroutine ran just before n
// (another call of n's caller), or writes what that one touches (another
// function updating the same state: updates). Two updates that each take
// the members' lock and then compare the status with Status (the review's
// board: the second finds it unchanged and stops, the first then sets a
// stale value) match, so do two that store a member's atomic, load it and
// compare; a loop that polls Status, or Status and a second getter of the
// status in turn (its previous section another check), or a section that
// only reads the members, or loads an atomic, does not.
func (c *checker) anotherCall(n, other int) bool {
	if !c.sameCheck(n, other) {
		return false
	}
	loads, nstores := c.atomicSteps(n)
	oloads, stores := c.atomicSteps(other)
	for l := range stores {
		if loads[l] && nstores[l] && oloads[l] {
			return true
		}
	}
	secs, ev := c.g.Sections(), c.g.Events
	p, q := c.previous(n), c.previous(other)
	if p < 0 || q < 0 || c.sameCheck(q, n) {
		return false
	}
	return ev[secs[p].Begin].Site == ev[secs[q].Begin].Site || c.updates(q, p)
}

// sameCheck reports whether sections a and b check the same state: they
// were taken at one Lock site, or each is a getter of it, the one section
// of a function that takes its lock at one site only, reading (and
// writing nothing) the same locations: Status and IsReady, two getters of
// a board's status, are one check at two sites.
func (c *checker) sameCheck(a, b int) bool {
	ev := c.g.Events
	sa, sb := ev[c.g.Sections()[a].Begin].Site, ev[c.g.Sections()[b].Begin].Site
	if sa == sb {
		return true
	}
	fa, fb := c.footprint(a), c.footprint(b)
	if len(fa.touched) == 0 || len(fa.written) > 0 || len(fb.written) > 0 || !maps.Equal(fa.touched, fb.touched) ||
		!c.oneFunc(a) || !c.oneFunc(b) || !c.onlyLockSite(sa) || !c.onlyLockSite(sb) {
		return false
	}
	ua, wa := c.mapUses(a)
	ub, wb := c.mapUses(b)
	return len(wa) == 0 && len(wb) == 0 && maps.Equal(ua, ub)
}

// atomicSteps returns the locations that section k's goroutine loaded
// atomically, and those it stored, after its previous section (previous)
// and before k: an update's steps before its comparison that take no
// lock (Flag's Update stores the member's atomic.Bool, loads it, then
// compares with Status). An atomic Add is a store only, so a counter
// bumped on every call is loaded by no one's steps.
func (c *checker) atomicSteps(k int) (loads, stores map[hb.Loc]bool) {
	if a, ok := c.atomics[k]; ok {
		return a[0], a[1]
	}
	secs := c.g.Sections()
	s := secs[k]
	evs := c.g.Goroutines[s.G].Events
	from := 0
	if p := c.previous(k); p >= 0 {
		from, _ = slices.BinarySearch(evs, secs[p].End)
	}
	to, _ := slices.BinarySearch(evs, s.Begin)
	for _, i := range evs[from:to] {
		switch c.g.Events[i].Kind {
		case trace.EvAtomicLoad:
			loads = addTo(loads, c.g.Loc(i))
		case trace.EvAtomicStore:
			stores = addTo(stores, c.g.Loc(i))
		}
	}
	if c.atomics == nil {
		c.atomics = make(map[int][2]map[hb.Loc]bool)
	}
	c.atomics[k] = [2]map[hb.Loc]bool{loads, stores}
	return loads, stores
}

// updates reports whether section q writes what section p touches: a
// location of p's footprint, or a map p uses (a footprint holds no map
// operation). A section that only reads p's state is no update of it.
func (c *checker) updates(q, p int) bool {
	fp, fq := c.footprint(p), c.footprint(q)
	for l := range fq.written {
		if fp.touched[l] {
			return true
		}
	}
	usedP, _ := c.mapUses(p)
	_, writtenQ := c.mapUses(q)
	for l := range writtenQ {
		if usedP[l] {
			return true
		}
	}
	return false
}

// mapUses returns the maps section k uses and those it writes.
func (c *checker) mapUses(k int) (used, written map[hb.Loc]bool) {
	used, written = make(map[hb.Loc]bool), make(map[hb.Loc]bool)
	s := c.g.Sections()[k]
	evs := c.g.Goroutines[s.G].Events
	j, _ := slices.BinarySearch(evs, s.Begin)
	for ; j < len(evs) && (s.End < 0 || evs[j] <= s.End); j++ {
		switch c.g.Events[evs[j]].Kind {
		case trace.EvMapWrite:
			written[c.g.Loc(evs[j])] = true
			fallthrough
		case trace.EvMapRead, trace.EvMapIter:
			used[c.g.Loc(evs[j])] = true
		}
	}
	return used, written
}

// previous returns the section that k's goroutine took last before k,
// of any lock, leaving out the sections that enclose k; -1 if none.
func (c *checker) previous(k int) int {
	secs := c.g.Sections()
	s := secs[k]
	own := c.secsOf[s.G]
	at, _ := slices.BinarySearchFunc(own, s.Begin, func(x int32, b int) int { return secs[x].Begin - b })
	for j := at - 1; j >= 0; j-- {
		if !within(s, secs[own[j]]) {
			return int(own[j])
		}
	}
	return -1
}

// maxSteps bounds the steps of a caller's operation that aloneAgainst
// walks past on either side of a section.
const maxSteps = 8

// commute reports whether sections a and b share no location that one
// of them writes, and no channel: the two run in either order to the
// same state, as far as the trace's footprints show.
func (c *checker) commute(a, b int) bool {
	fa, fb := c.footprint(a), c.footprint(b)
	for l := range fa.touched {
		if fb.touched[l] && (fa.written[l] || fb.written[l]) {
			return false
		}
	}
	for _, ch := range [][2]map[hb.Loc]bool{{fa.chans, fb.chans}, {fa.chans, fb.made}, {fa.made, fb.chans}} {
		for l := range ch[0] {
			if ch[1][l] {
				return false
			}
		}
	}
	return true
}

// soleReader reports whether critical section k, whose function takes
// the lock at other sites too (so k is not alone), is still the only
// section of its call that sees what the lone setter's section setter
// writes: the call's sections at the function's other Lock sites
// (sameCall, walked outward from k past the sections taken at k's own
// site) touch none of it, the sections taken at k's own site next to k
// (a loop's iterations) touch just what k touches of it, and the
// section beyond them is not a two-step with k (alone's test). Each
// such section then reads, afresh and whole, all it takes of what the
// setter writes, and the setter's one section falls before or after
// it: paho's DefaultPinger.Run checks, each tick, the timestamps that
// PacketSent, PacketReceived and PingResp set, after a first section
// that marks it running. A reader that takes the setter's locations in
// two sections of one call (mysqlslave's Status: the log's name, then
// its position, which Rotate sets together) or over a loop whose
// iterations read different ones of them is not sole, nor is a setter
// checked before it is set (wholeOps keeps a check that decides on the
// setter's value).
func (c *checker) soleReader(k, setter int) bool {
	secs := c.g.Sections()
	s := secs[k]
	site := c.g.Events[s.Begin].Site
	w := c.footprint(setter).written
	seen := func(n int) map[hb.Loc]bool {
		m := make(map[hb.Loc]bool)
		for l := range c.footprint(n).touched {
			if w[l] {
				m[l] = true
			}
		}
		return m
	}
	mine := seen(k)
	if len(mine) == 0 {
		return false
	}
	own := c.secsOf[s.G]
	at, _ := slices.BinarySearchFunc(own, s.Begin, func(x int32, b int) int { return secs[x].Begin - b })
	for _, d := range []int{-1, 1} {
		repeats := true
		for j := at + d; j >= 0 && j < len(own); j += d {
			n := int(own[j])
			if secs[n].Lock.Addr != s.Lock.Addr {
				continue
			}
			if repeats && c.g.Events[secs[n].Begin].Site == site {
				if !c.inOrder(k) || !c.inOrder(n) || !maps.Equal(seen(n), mine) {
					return false
				}
				continue
			}
			repeats = false
			if !c.sameCall(k, n) {
				if c.twoStep(k, n) {
					return false
				}
				break
			}
			if len(seen(n)) > 0 {
				return false
			}
		}
	}
	return true
}

// alone reports whether critical section k is the only section of its
// call: its function takes locks at one site only (onlyLockSite), and
// neither the goroutine's nearest section of k's lock on either side,
// past the calls of k's own operation (pastRepeats), nor its nearest
// section of any lock on either side (outside k and the sections
// enclosing it) is a two-step with k (twoStep: a function of the program
// calls the one operation and then the other on one object). kb4's Grow,
// which updates a length under one lock and the data under another,
// takes locks at two sites; the same two updates made by two helpers
// that one function calls are a two-step through the nearest section of
// any lock.
func (c *checker) alone(k int) bool {
	if a, ok := c.alones[k]; ok {
		return a
	}
	a := c.computeAlone(k, -1)
	if c.alones == nil {
		c.alones = make(map[int]bool)
	}
	c.alones[k] = a
	return a
}

// computeAlone is alone's test; with other a section (aloneAgainst), a
// two-step neighbor that commutes with other and is not its counterpart
// in another call (anotherCall) is passed over, and the walk goes on to
// the section beyond it; and k's function may take locks at other sites
// too when the goroutine's whole extent commutes with other
// (extentCommutes). With other -1 (alone), neither.
func (c *checker) computeAlone(k, other int) bool {
	secs := c.g.Sections()
	s := secs[k]
	site := c.g.Events[s.Begin].Site
	if !c.onlyLockSite(site) && (other < 0 || !c.extentCommutes(k, other)) {
		return false
	}
	passes := func(n, steps int) bool {
		return other >= 0 && steps < maxSteps && c.commute(n, other) && !c.anotherCall(n, other)
	}
	for _, n := range c.neighbors(k) {
		d := 1
		if secs[n].Begin < s.Begin {
			d = -1
		}
		if c.g.Events[secs[n].Begin].Site == site {
			if n = c.pastRepeats(k, n); n < 0 {
				continue
			}
		}
		for steps := 0; n >= 0 && c.g.Events[secs[n].Begin].Site != site && c.twoStep(k, n); steps++ {
			if !passes(n, steps) {
				return false
			}
			n = c.adjacent(n, d)
		}
	}
	own := c.secsOf[s.G]
	at, _ := slices.BinarySearchFunc(own, s.Begin, func(x int32, b int) int { return secs[x].Begin - b })
	for _, d := range []int{-1, 1} {
		steps := 0
		for j := at + d; j >= 0 && j < len(own); j += d {
			n := secs[own[j]]
			if within(n, s) || within(s, n) {
				continue
			}
			if c.g.Events[n.Begin].Site != site && c.twoStep(k, int(own[j])) {
				if !passes(int(own[j]), steps) {
					return false
				}
				steps++
				continue
			}
			break
		}
	}
	return true
}

// inOrder reports whether critical section k was released by an Unlock
// of its Lock's function below that Lock in the source: a section that
// a loop takes whole in each iteration (`for { mu.Lock(); v := x;
// mu.Unlock(); ... }`), not one that a loop holding the lock across its
// back edge reopens (mozilla3x's poll: `for t.wakeup == nil {
// t.mu.Unlock(); sleep; t.mu.Lock() }`, whose sections end at the
// Unlock above their Lock or at the deferred Unlock before the loop).
func (c *checker) inOrder(k int) bool {
	if !c.oneFunc(k) {
		return false
	}
	s := c.g.Sections()[k]
	lock, ok := c.sites.Lookup(c.g.Events[s.Begin].Site)
	unlock, ok2 := c.sites.Lookup(c.g.Events[s.End].Site)
	return ok && ok2 && before(lock, unlock)
}

// within reports whether section a lies inside section b (b was open at
// a's Lock).
func within(a, b hb.Section) bool {
	return a.Begin > b.Begin && (b.End < 0 || a.Begin < b.End)
}

// split reports whether critical section k is one of two that one call
// of its function takes at two Lock sites (the goroutine's previous or
// next section of the lock was taken at another Lock site of the same
// function, earlier in the source for the previous section and later for
// the next) and the other side's section other can come between the two
// and break what the first hands to the second (dependent): the
// atomicity shape, KB1's Insert. A function that takes the lock at two
// sites without carrying anything from the first section into the second
// that other changes is two operations (fastcache's Save, which cleans
// the bucket under the lock, then snapshots it under a read lock; puddle's
// CreateResource, which checks p.closed, builds the resource unlocked and
// checks p.closed again).
func (c *checker) split(k, other int) bool {
	key := [2]int{k, other}
	if d, ok := c.splits[key]; ok {
		return d
	}
	d := c.computeSplit(k, other)
	if c.splits == nil {
		c.splits = make(map[[2]int]bool)
	}
	c.splits[key] = d
	return d
}

func (c *checker) computeSplit(k, other int) bool {
	for _, n := range c.neighbors(k) {
		if c.sameCall(k, n) && !c.waitedFor(min(k, n), max(k, n), other) && c.dependent(min(k, n), max(k, n), other) {
			return true
		}
	}
	return false
}

// abandoned reports whether section k is the first of two that its
// function takes at two Lock sites of one lock expression, in a call that
// stopped after it (k ended at an Unlock above the later Lock site in the
// source, and the goroutine's next section of the lock is not the call's
// second: golang-lru's deleteExpired, whose one section runs to the
// function's last Unlock when it need not wait, stopped nothing), and
// section other writes a location that k read and
// that the function does not check again, in a read that only decides
// branches, after its later Lock site: the call decided to stop on a
// premise that other changes, and in the other order it would have gone
// on (a Withdraw that finds the balance short and returns, against
// another Withdraw's take between its own check and take). A premise the
// second section checks again (puddle's CreateResource re-reads p.closed
// after it relocks) decides nothing the other order could break.
func (c *checker) abandoned(k, other int) bool {
	key := [2]int{k, other}
	if a, ok := c.abandons[key]; ok {
		return a
	}
	a := c.computeAbandoned(k, other)
	if c.abandons == nil {
		c.abandons = make(map[[2]int]bool)
	}
	c.abandons[key] = a
	return a
}

func (c *checker) computeAbandoned(k, other int) bool {
	secs := c.g.Sections()
	s := secs[k]
	if s.End < 0 || c.sites == nil || c.sealed(k) {
		// A sealed section decided nothing about what its call does
		// after it.
		return false
	}
	lock, ok := c.sites.Lookup(c.g.Events[s.Begin].Site)
	if !ok || lock.Expr == "" {
		return false
	}
	end, ok := c.sites.Lookup(c.g.Events[s.End].Site)
	if !ok || end.File != lock.File || end.Function != lock.Function || !before(lock, end) {
		return false
	}
	var later []trace.Site
	for _, l := range c.lockSitesIn(lock.File, lock.Function, lock.Expr) {
		if before(end, l) {
			later = append(later, l)
		}
	}
	if len(later) == 0 {
		return false
	}
	for _, n := range c.neighbors(k) {
		if secs[n].Begin > s.Begin && c.sameCall(k, n) {
			return false
		}
	}
	w := c.footprint(other).written
	evs := c.g.Goroutines[s.G].Events
	j, _ := slices.BinarySearch(evs, s.Begin)
	for ; j < len(evs) && evs[j] <= s.End; j++ {
		i := evs[j]
		if kind := c.g.Events[i].Kind; !isAccess(kind) || kind == trace.EvWrite || !w[c.g.Loc(i)] {
			continue
		}
		if !c.checkedAgain(c.g.Events[i].Site, later) {
			return true
		}
	}
	return false
}

// checkedAgain reports whether the function of the read at site reads
// the same expression again, in a read that only decides branches, after
// one of the Lock sites later.
func (c *checker) checkedAgain(site uint32, later []trace.Site) bool {
	acc, ok := c.sites.Lookup(site)
	if !ok {
		return true
	}
	for _, a := range c.accessSitesOf(acc) {
		if a.Kind != "read" || !a.Used(trace.UseBranch) {
			continue
		}
		for _, l := range later {
			if before(l, a) {
				return true
			}
		}
	}
	return false
}

// sameCall reports whether the goroutine's sections k and n of one lock
// can be one call's two sections: taken at two Lock sites of one
// function, in source order (a previous section at a later Lock site, or
// a next one at an earlier site, is another call's: golang-lru's
// deleteExpired, which sometimes unlocks, sleeps and locks again at a
// second site).
func (c *checker) sameCall(k, n int) bool {
	secs := c.g.Sections()
	if secs[n].Begin > secs[k].Begin && c.windowed(k, n) || secs[n].Begin < secs[k].Begin && c.windowed(n, k) {
		return true
	}
	bk, bn := c.g.Events[secs[k].Begin].Site, c.g.Events[secs[n].Begin].Site
	fk, ok := c.funcOf(bk)
	if !ok || bk == bn {
		return false
	}
	if fn, ok := c.funcOf(bn); !ok || fn != fk {
		return false
	}
	sk, _ := c.sites.Lookup(bk)
	sn, _ := c.sites.Lookup(bn)
	return (secs[n].Begin < secs[k].Begin) == before(sn, sk)
}

// waitedFor reports whether one call's second section waited for section
// other: other's Lock happens before second's by synchronization the
// goroutine acquired after its first section ended (the program's own
// order, plainGraph, as sectionsOrdered takes it), so other runs between
// the two sections in every execution in which it does not run before
// both. transport's pingPong.EnqueueMessage finds the write batch full,
// unlocks, receives on the channel that updateWriteBatchAndGetReadBatch
// closes in the section that swaps the batches, and locks again to take
// the new one: the call unlocked in order to let that section run. A
// premise carried across the wait that the section breaks breaks in the
// order that always runs, where the tests see it; the order OSCS would
// report, the section after both, cannot run.
func (c *checker) waitedFor(first, second, other int) bool {
	secs := c.g.Sections()
	b, s2, e1 := secs[other].Begin, secs[second].Begin, secs[first].End
	pg := c.plainGraph()
	return c.g.HappensBefore(b, s2) && pg.HappensBefore(b, s2) && (e1 < 0 || !pg.HappensBefore(b, e1))
}

// dependent reports whether section r, run between the sections first
// and second of one call, changes what the call carries from first into
// second: the paper's order-sensitivity for the pair (first+second, r),
// where the two orders of r and first leave second acting on different
// premises. By the accesses of the three sections (footprint):
//
//   - first writes a location that r writes and second accesses (second
//     finds r's value where it left its own: KB1's count, Mozilla-1's
//     gCurrentScript), unless second takes nothing from it (takesNothing:
//     its first access of the location checks it, updates it in place or
//     overwrites it), or that r reads and second writes again (r sees a
//     value half-way through the call);
//   - first reads a location that r writes, and the value read goes on
//     past first's Unlock (a read whose value is kept, returned, passed
//     or stored, by the instrumenter's trace.UseBranch fact, and that is
//     no update in place: the count a second section divides by, a size
//     a later copy relies on), unless first took it: the values it
//     carries are pointer-shaped (trace.UsePointer) and first then
//     overwrote the location (a pop: `pc := l.front; l.front = pc.next`,
//     which carries out the node it unlinked, not a premise about the
//     list); or only decides branches (which may lead to second) and
//     second does not read the location again (a decision taken on a
//     value r then changes: a resource added to a pool after Close);
//
// except that a first section that ended at a sealed Unlock
// (trace.UseSealed) carries its reads into second only through a
// location it wrote and second reads; and that a second section which
// reads and then writes every location
// it touches and nothing else (counters bumped at either of two Lock
// sites: puddle's acquire) takes no premise from the first: whatever runs
// between them, its updates commute (§3.2.3's read-write sequence, on
// every location it touches). A read that second makes again checks the
// premise anew (puddle's CreateResource re-reads p.closed after it
// relocks); the pair of that read with r is then judged like any two
// whole operations.
func (c *checker) dependent(first, second, r int) bool {
	if c.updatesOnly(second) {
		return false
	}
	f1, f2, fr := c.footprint(first), c.footprint(second), c.footprint(r)
	for l := range f1.written {
		if fr.written[l] && f2.touched[l] && !takesNothing(l, f2) || fr.touched[l] && !fr.written[l] && f2.written[l] {
			return true
		}
	}
	if c.sealed(first) {
		// Nothing first read goes on past its Unlock but through
		// what it stored; second reads it there, or first's reads
		// decide nothing second does.
		return overlaps(f2.read, f1.written) && overlaps(f1.read, fr.written)
	}
	for l := range f1.read {
		if !fr.written[l] {
			continue
		}
		if f1.carried[l] && !(f1.rw[l] && !f1.scalar[l]) || !f1.carried[l] && !f2.read[l] {
			return true
		}
	}
	return false
}

// sealed reports whether critical section k ended at an Unlock whose
// site the instrumenter found sealed (trace.UseSealed): nothing the
// section computed is used after its Unlock, but as a timer's or a
// sleep's duration, or reaches the function's later code through what
// it stored: when its goroutine goes on is all that its reads decide.
func (c *checker) sealed(k int) bool {
	s := c.g.Sections()[k]
	if s.End < 0 || c.sites == nil {
		return false
	}
	u, ok := c.sites.Lookup(c.g.Events[s.End].Site)
	return ok && u.Used(trace.UseSealed)
}

// overlaps reports whether the sets a and b share a location.
func overlaps(a, b map[hb.Loc]bool) bool {
	for l := range a {
		if b[l] {
			return true
		}
	}
	return false
}

// takesNothing reports whether the second section of one call (f2)
// takes nothing from location l that the call's first section left there
// and a remote section between them overwrote, by its first access of l:
// a read that only decides branches (it checks what it finds before it
// acts on it: redigo's GetContext pops idle connections in a loop, `for
// p.idle.front != nil { pc := p.idle.front; p.idle.popFront();
// p.mu.Unlock(); ...; p.mu.Lock() }`, and a Put between two iterations
// is the next one popped), an update in place (`l.count--`: whatever
// ran between, the decrement commutes with it, §3.2.3), or a write (it
// overwrites l unseen: its pair with the remote write is judged as a
// pair of its own). KB1's second section divides by the count its first
// one set, Mozilla-1's dereferences the script its first one stored:
// their first access is a read whose value they use.
func takesNothing(l hb.Loc, f2 *footprint) bool {
	return f2.checked[l] || f2.updated[l] || f2.blind[l]
}

// branchOnly reports whether the read site's value only decides
// branches (trace.UseBranch).
func (c *checker) branchOnly(site uint32) bool {
	if c.sites == nil {
		return false
	}
	s, ok := c.sites.Lookup(site)
	return ok && s.Used(trace.UseBranch)
}

// updatesOnly reports whether section k reads and then writes every
// location it touches (KB1's second section reads c.queries, which its
// first wrote, and does not write it: not an update only).
func (c *checker) updatesOnly(k int) bool {
	f := c.footprint(k)
	if len(f.touched) == 0 {
		return false
	}
	for l := range f.touched {
		if !f.rw[l] {
			return false
		}
	}
	return true
}

// usedAfter reports whether the function that accessed the location at
// site, inside critical section k, accesses the same expression again
// after the Unlock that ended k, in the source: the section hands what it
// read on past the lock (MySQL-2's check under the lock and dereference
// after it), so its invariant does not hold at its end. An access past
// the return that an early exit's Unlock reaches (trace.Site.ExitLine:
// `if c.closed { mu.Unlock(); return }; c.closed = true`) does not count:
// it runs in another call.
func (c *checker) usedAfter(k int, site uint32) bool {
	if c.sealed(k) {
		// What the function accesses after a sealed section it reads
		// afresh.
		return false
	}
	acc, ok := c.sites.Lookup(site)
	if !ok {
		return true
	}
	end, ok := c.sites.Lookup(c.g.Events[c.g.Sections()[k].End].Site)
	if !ok || end.File != acc.File || end.Function != acc.Function || !before(acc, end) {
		// The Unlock is elsewhere or deferred (its site is the defer
		// statement): nothing of the function runs after it.
		return false
	}
	lock, _ := c.sites.Lookup(c.lockSite(k))
	exit := trace.Site{Line: end.ExitLine, Col: end.ExitCol}
	for _, a := range c.accessSitesOf(acc) {
		if end.ExitLine > 0 && before(exit, a) {
			continue
		}
		if before(end, a) && !c.relocked(lock, end, a) {
			return true
		}
	}
	return false
}

// answered reports whether section other reads a location that section
// k writes, or uses a channel that k made: k
// leaves word of itself for the other side, which looks for it (a queue's
// Poll that finds no item makes a waiter's channel, registers it, unlocks
// and waits, and reads the items again once woken inside the Put that
// found the waiter and sent on its channel; Dispose wakes the waiters it
// finds). What k decided and carries past its Unlock is then part of a
// protocol in which the later of the two sections handles either order,
// not a premise that the other side breaks unseen (MySQL-2's Awake only
// reads under its lock, and End looks at nothing Awake leaves; a
// Withdraw that finds the balance short leaves nothing).
func (c *checker) answered(k, other int) bool {
	fk, fo := c.footprint(k), c.footprint(other)
	for l := range fk.written {
		if fo.read[l] {
			return true
		}
	}
	for ch := range fk.made {
		if fo.chans[ch] {
			return true
		}
	}
	return false
}

// chanOf is the channel of event i, by address and GC epoch: a make's
// location has no generation, its operations' have.
func (c *checker) chanOf(i int) hb.Loc {
	l := c.g.Loc(i)
	return hb.Loc{Addr: l.Addr, Epoch: l.Epoch}
}

// addTo adds l to the set m, making it if nil.
func addTo(m map[hb.Loc]bool, l hb.Loc) map[hb.Loc]bool {
	if m == nil {
		m = make(map[hb.Loc]bool)
	}
	m[l] = true
	return m
}

// accessSitesOf returns the read and write sites of acc's expression in
// acc's function.
func (c *checker) accessSitesOf(acc trace.Site) []trace.Site {
	if c.accessSites == nil {
		c.accessSites = make(map[siteKey][]trace.Site)
		for _, st := range c.sites.Sites {
			if st.Kind == "read" || st.Kind == "write" {
				k := siteKey{st.File, st.Function, st.Expr}
				c.accessSites[k] = append(c.accessSites[k], st)
			}
		}
	}
	return c.accessSites[siteKey{acc.File, acc.Function, acc.Expr}]
}

// lockSitesIn returns the Lock and RLock sites of the lock expression in
// the function.
func (c *checker) lockSitesIn(file, fn, expr string) []trace.Site {
	if c.lockSitesOf == nil {
		c.lockSitesOf = make(map[siteKey][]trace.Site)
		for _, st := range c.sites.Sites {
			switch st.Kind {
			case "lock", "rlock":
				k := siteKey{st.File, st.Function, st.Expr}
				c.lockSitesOf[k] = append(c.lockSitesOf[k], st)
			}
		}
	}
	return c.lockSitesOf[siteKey{file, fn, expr}]
}

// relocked reports whether the function takes the lock of the section
// that lock began again, at a Lock site between end and a in the source:
// the access at a is then in a later critical section of the same lock
// (puddle's acquire counts an acquisition at either of its two Lock
// sites), where wholeOp's neighbor rule judges it, not the value carried
// out of the section unlocked (MySQL-2).
func (c *checker) relocked(lock, end, a trace.Site) bool {
	if lock.Expr == "" {
		return false
	}
	for _, l := range c.lockSitesIn(end.File, end.Function, lock.Expr) {
		if before(end, l) && before(l, a) {
			return true
		}
	}
	return false
}

// onlyLockSite reports whether the Lock at site is the only lock
// acquisition of its function in the site table: every call of the
// function takes its locks there. A call that loops on that one site
// looks like several calls (doc.go, Soundness).
func (c *checker) onlyLockSite(site uint32) bool {
	fn, ok := c.funcOf(site)
	if !ok {
		return false
	}
	if c.lockSites == nil {
		c.lockSites = make(map[string]int)
		for _, st := range c.sites.Sites {
			switch st.Kind {
			case "lock", "rlock", "trylock", "tryrlock":
				c.lockSites[st.File+"\x00"+st.Function]++
			}
		}
	}
	return c.lockSites[fn] == 1
}

// funcOf returns the file and function of a site.
func (c *checker) funcOf(id uint32) (string, bool) {
	if c.sites == nil {
		return "", false
	}
	s, ok := c.sites.Lookup(id)
	if !ok || s.Function == "" {
		return "", false
	}
	return s.File + "\x00" + s.Function, true
}

// copiesUpdate reports whether the two blind writes p and cur (in
// sections kp and kc) each store a copy of one location m that both
// sections read and then write (CSRWFlag's sequence, commutative by §3.2.3):
// the goroutine's last read before the write, in its section, is of m,
// and the write stores the value the section last wrote to m
// (bigcache's push: q.tail += n, then q.rightMargin = q.tail). Whichever
// order the sections run in, the later one stores m's value after both
// updates, which commute.
func (c *checker) copiesUpdate(p rec, kp int, cur rec, kc int) bool {
	mp, ok := c.copied(p, kp)
	if !ok {
		return false
	}
	mc, ok := c.copied(cur, kc)
	return ok && mc == mp && c.footprint(kp).rw[mp] && c.footprint(kc).rw[mp]
}

// heapBookkeeping reports whether the writes p and cur are both stores
// of the Swap, Push or Pop methods of one type that implements
// container/heap.Interface (trace.UseHeap): an item's position, kept in
// step with the heap's order by each heap operation (`pq[i].index = i`,
// `item.index = -1` as it leaves). The heap's functions call those
// methods within one operation, which the common lock makes whole, so
// in either order of the two sections the field ends as its item's
// place in the heap they leave: no lost update, whichever of the two
// sections is split from its caller's others (go-generics-cache's
// expiration queue, popped once per section in a loop). A caller that
// carries an index read in one section into the next (`i := it.index`,
// unlocked, then heap.Remove(h, i)) is a read against these writes,
// which this leaves to the other rules.
func (c *checker) heapBookkeeping(p, cur rec) bool {
	if c.sites == nil {
		return false
	}
	a, ok := c.sites.Lookup(c.g.Events[p.ev].Site)
	if !ok || !a.Used(trace.UseHeap) {
		return false
	}
	b, ok := c.sites.Lookup(c.g.Events[cur.ev].Site)
	return ok && b.Used(trace.UseHeap) && receiver(a) != "" && receiver(a) == receiver(b)
}

// receiver returns the receiver type's name in the name of the method
// declaration a site is in ("(*expirationQueue).Push" and
// "expirationQueue.Swap" give "expirationQueue", also for a site in one
// of their function literals), or "" outside methods.
func receiver(s trace.Site) string {
	dot := strings.LastIndexByte(s.Decl, '.')
	if dot <= 0 {
		return ""
	}
	t := s.Decl[:dot]
	if strings.HasPrefix(t, "(*") && strings.HasSuffix(t, ")") {
		t = t[2 : len(t)-1]
	}
	return t
}

// scratch reports whether the two writes p and cur, whose sections kp
// and kc write loc before they read it, are to scratch space: each
// section reads back something it wrote at its write's site, and no read
// in the whole trace finds a value left by a write at either site that
// its goroutine did not write there itself since its last lock operation
// (exposedSites). Then the value either section leaves in loc is read by
// no one, and which write is lost changes nothing that anyone reads:
// pubsub's distribution.D.Percentile fills d.sumsReuse with the running
// sums under d.mu and binary-searches it in the same section, on
// whichever goroutine asks. A lost update of state keeps its pair: a
// write that its section does not read back (oscsloop's query count,
// which the test does not read at all), or one whose value some read
// finds later, in a section of its own or none.
func (c *checker) scratch(p rec, kp int, cur rec, kc int, loc hb.Loc) bool {
	exposed := c.exposedSites()
	for _, w := range []struct {
		r rec
		k int
	}{{p, kp}, {cur, kc}} {
		site := c.g.Events[w.r.ev].Site
		if !c.footprint(w.k).blind[loc] || exposed[site] || !c.readsBack(w.k, site) {
			return false
		}
	}
	return true
}

// readsBack reports whether critical section k reads a location after
// it wrote it at site.
func (c *checker) readsBack(k int, site uint32) bool {
	s := c.g.Sections()[k]
	evs := c.g.Goroutines[s.G].Events
	j, _ := slices.BinarySearch(evs, s.Begin)
	var wrote map[hb.Loc]bool
	for ; j < len(evs) && (s.End < 0 || evs[j] <= s.End); j++ {
		i := evs[j]
		switch ev := c.g.Events[i]; {
		case ev.Kind == trace.EvWrite && ev.Site == site:
			wrote = addTo(wrote, c.g.Loc(i))
		case ev.Kind == trace.EvRead && wrote[c.g.Loc(i)]:
			return true
		}
	}
	return false
}

// exposedSites returns the write sites some write at which left a value
// that a read found: a write of another goroutine, or one of the reader's
// own before its last Lock, Unlock, RLock, RUnlock, TryLock or Cond.Wait.
// A value left for another goroutine, or for another critical section of
// its own; the last write decides, not whether the reader wrote the
// location at some time since its last lock operation. Built on first use by one pass over the trace.
func (c *checker) exposedSites() map[uint32]bool {
	if c.exposed != nil {
		return c.exposed
	}
	c.exposed = make(map[uint32]bool)
	// last holds each location's last write; own, per goroutine, the
	// locations it wrote and its count of lock operations then (plus
	// one); ops its current count.
	last := make(map[hb.Loc]int)
	own := make([]map[hb.Loc]uint32, len(c.g.Goroutines))
	ops := make([]uint32, len(c.g.Goroutines))
	for i := range c.g.Events {
		switch c.g.Events[i].Kind {
		case trace.EvLock, trace.EvUnlock, trace.EvRLock, trace.EvRUnlock, trace.EvTryLock, trace.EvCondWait:
			ops[c.g.Goroutine(i)]++
		case trace.EvWrite:
			gi, l := c.g.Goroutine(i), c.g.Loc(i)
			if own[gi] == nil {
				own[gi] = make(map[hb.Loc]uint32)
			}
			own[gi][l] = ops[gi] + 1
			last[l] = i
		case trace.EvRead:
			gi, l := c.g.Goroutine(i), c.g.Loc(i)
			if w, ok := last[l]; ok && (c.g.Goroutine(w) != gi || own[gi][l] != ops[gi]+1) {
				c.exposed[c.g.Events[w].Site] = true
			}
		}
	}
	return c.exposed
}

// copied returns the location m whose value the write w stores, as
// copiesUpdate defines it: the write's site stores a value loaded as it
// is (trace.UseCopy), the load is the goroutine's last read before the
// write in its section, and the value is the one the section last wrote
// to that location.
func (c *checker) copied(w rec, k int) (hb.Loc, bool) {
	if k < 0 || c.sites == nil {
		return hb.Loc{}, false
	}
	if s, ok := c.sites.Lookup(c.g.Events[w.ev].Site); !ok || !s.Used(trace.UseCopy) {
		return hb.Loc{}, false
	}
	s := c.g.Sections()[k]
	evs := c.g.Goroutines[s.G].Events
	j, _ := slices.BinarySearch(evs, int(w.ev))
	var m hb.Loc
	found := false
	for j--; j >= 0 && evs[j] >= s.Begin; j-- {
		ev := &c.g.Events[evs[j]]
		switch {
		case !found && ev.Kind == trace.EvRead:
			m, found = c.g.Loc(evs[j]), true
		case found && ev.Kind == trace.EvWrite && c.g.Loc(evs[j]) == m:
			return m, ev.Value == w.val
		}
	}
	return hb.Loc{}, false
}

// reached reports whether the later of two blind writes (p in section kp,
// cur in kc) stores through a pointer that its section loaded from a
// location the earlier write's section wrote: the write's expression is
// base.f, and the goroutine's last read of base before the write, in its
// section and function, found the value the earlier section stored there
// (the location's last write before that read is in the earlier section).
// A linked list's push sets the new node's links (`pc.prev = nil`) and
// the old front's (`l.front.prev = pc`), a pop clears the new front's
// (`pc.next.prev = nil`): each later section writes the node that the
// earlier one left where it looks. In the other order it would have read
// the pointer before the earlier section stored it and written another
// node, so the two writes meet on this location in one order only, and
// the later is no update made unseen of the earlier (oscsloop's two
// stores of one field are).
func (c *checker) reached(p rec, kp int, cur rec, kc int) bool {
	if kp < 0 || kc < 0 || c.sites == nil {
		return false
	}
	early, late, kl := later(p, kp, cur, kc)
	w, ok := c.sites.Lookup(c.g.Events[late.ev].Site)
	dot := strings.LastIndexByte(w.Expr, '.')
	if !ok || dot <= 0 {
		return false
	}
	base := w.Expr[:dot]
	s := c.g.Sections()[kl]
	evs := c.g.Goroutines[s.G].Events
	j, _ := slices.BinarySearch(evs, int(late.ev))
	for j--; j >= 0 && evs[j] >= s.Begin; j-- {
		i := evs[j]
		if c.g.Events[i].Kind != trace.EvRead {
			continue
		}
		r, ok := c.sites.Lookup(c.g.Events[i].Site)
		if !ok || r.Expr != base || r.File != w.File || r.Function != w.Function {
			continue
		}
		return c.lastWriteIn(i, early)
	}
	return false
}

// decided reports whether the later of two blind writes (p in section
// kp, cur in kc) runs because of a branch on a value that the earlier
// write's section changed: a read of its section that guards it
// (trace.Site.Guards, the instrumenter's static fact that the write runs
// only on the edge the read's branch last took), the goroutine's last
// read at that site before the write, found the value the earlier
// section left in the read's location, directly or through updates in
// place of the later section's own (`l.count--; if l.count == 0 {
// l.front, l.back = nil, nil }`, redigo's pop after a push set the
// count), and that value differs from the location's value before the
// earlier section. In the other order the branch would have read another
// value: the later write is a decision on the earlier section's result,
// not an update made unseen of it (oscsloop's two stores are unguarded).
func (c *checker) decided(p rec, kp int, cur rec, kc int) bool {
	if kp < 0 || kc < 0 || c.sites == nil {
		return false
	}
	early, late, kl := later(p, kp, cur, kc)
	w, ok := c.sites.Lookup(c.g.Events[late.ev].Site)
	if !ok || w.Guards == "" {
		return false
	}
	return c.guardReads(kl, int(late.ev), w.GuardedBy, func(i int) bool { return c.foundChanged(i, early, maxInPlace) })
}

// later returns, of two accesses p (in section kp) and cur (in kc), the
// earlier one's section, the later one and its section.
func later(p rec, kp int, cur rec, kc int) (early int, late rec, kl int) {
	if p.ev > cur.ev {
		return kc, p, kp
	}
	return kp, cur, kc
}

// guardReads walks back from event ev through section k (ev's) and calls
// f with each read that is the last before ev at a site for which guards
// holds (the read whose value decided ev's branch), until f returns true;
// it reports whether f did.
func (c *checker) guardReads(k, ev int, guards func(site uint32) bool, f func(i int) bool) bool {
	s := c.g.Sections()[k]
	evs := c.g.Goroutines[s.G].Events
	j, _ := slices.BinarySearch(evs, ev)
	seen := make(map[uint32]bool)
	for j--; j >= 0 && evs[j] >= s.Begin; j-- {
		i := evs[j]
		e := c.g.Events[i]
		if e.Kind != trace.EvRead || seen[e.Site] || !guards(e.Site) {
			continue
		}
		seen[e.Site] = true
		if f(i) {
			return true
		}
	}
	return false
}

// maxInPlace bounds the updates in place that foundChanged follows back.
const maxInPlace = 64

// foundChanged reports whether read i found a value that critical
// section k (of another goroutine, earlier) left in its location, when k
// changed it (hb.Graph.Changed), or a value that an update in place
// (`l.count--`, of any goroutine, at most depth of them in a chain)
// computed from such a value. A count that pushes and pops move one by
// one carries the push's change on to the pop that empties the list.
func (c *checker) foundChanged(i, k, depth int) bool {
	last, changed := c.g.Changed(i, k)
	if changed {
		return true
	}
	if last < 0 || depth == 0 {
		return false
	}
	ks, g := c.g.Sections()[k], c.g.Goroutine(last)
	if g == ks.G && (ks.End < 0 || last <= ks.End) {
		return false
	}
	evs := c.g.Goroutines[g].Events
	y, _ := slices.BinarySearch(evs, last)
	if y == 0 {
		return false
	}
	r := evs[y-1]
	return c.g.Events[r].Kind == trace.EvRead && c.inPlace(r, last) && c.foundChanged(r, k, depth-1)
}

// lastWriteIn reports whether the last write of read i's location before
// it, in trace order, is in critical section k, which began before i.
func (c *checker) lastWriteIn(i, k int) bool {
	s := c.g.Sections()[k]
	l := c.g.Loc(i)
	for j := i - 1; j >= s.Begin; j-- {
		if c.g.Events[j].Kind == trace.EvWrite && c.g.Loc(j) == l {
			return c.g.Goroutine(j) == s.G && (s.End < 0 || j <= s.End)
		}
	}
	return false
}

// announced reports whether the reader of a write-read pair (r, in
// critical section kr) reads the location again, before it writes it, in
// a later section that its goroutine takes at kr's Lock site and that the
// write's section kw happens before by the program's own synchronization
// (plainGraph: the writer, past its Unlock, sent on a channel, closed one
// or signalled what the reader waits for before it takes the lock again).
// An event loop that recomputes from the state each time it is woken, and
// a writer that wakes it after its write: sctp's timerLoop reads the RACK
// and PTO deadlines at the top of each iteration, and startPTOTimer sets
// a deadline, unlocks and pokes timerUpdateCh. Had the reader's section
// run after the write, it would have read the new value; run before it,
// the reader reads it on the pass that the write's wake-up starts. The
// order decides when the loop sees the write, not whether.
func (c *checker) announced(kw int, r rec, kr int, loc hb.Loc) bool {
	if kw < 0 || kr < 0 {
		return false
	}
	secs := c.g.Sections()
	sr, end := secs[kr], secs[kw].End
	if end < 0 || sr.G == secs[kw].G {
		return false
	}
	site := c.g.Events[sr.Begin].Site
	own := c.secsOf[sr.G]
	at, _ := slices.BinarySearchFunc(own, sr.Begin, func(x int32, b int) int { return secs[x].Begin - b })
	pg := c.plainGraph()
	for j := at + 1; j < len(own); j++ {
		n := secs[own[j]]
		if n.Lock.Addr != sr.Lock.Addr || c.g.Events[n.Begin].Site != site || !pg.HappensBefore(end, n.Begin) {
			continue
		}
		f := c.footprint(int(own[j]))
		return f.read[loc] && !f.blind[loc]
	}
	return false
}
