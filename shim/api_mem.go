package shim

import (
	"unsafe"

	"github.com/precog-dev/precog/shim/trace"
)

// R records a read of *p and returns p; the instrumenter rewrites a shared
// read x.f into (*R(site, &x.f)).
func R[T any](site uint32, p *T) *T {
	if enabled {
		access(site, trace.EvRead, unsafe.Pointer(p))
		if suppressing.Load() {
			suppRead(unsafe.Pointer(p))
		}
	}
	return p
}

// RI is R for a read at an index site: one inside a loop whose value the
// instrumenter saw flow into an index or a slice bound (trace.UseIndex). The repeat
// filter orders its location for the rest of the goroutine's stretch
// (repeat.go).
func RI[T any](site uint32, p *T) *T {
	if enabled {
		indexRead(site, unsafe.Pointer(p))
		if suppressing.Load() {
			suppRead(unsafe.Pointer(p))
		}
	}
	return p
}

// indexRead is access for a read at an index site (RI).
func indexRead(site uint32, addr unsafe.Pointer) {
	if skipped(site) {
		return
	}
	g := cur()
	if g.onStack(addr) || g.repeated(site, addr, true) {
		return // before control too: see access
	}
	if accessGates.Load() {
		ctlAccess(g, site, trace.EvRead, addr)
	}
	g.ready()
	g.buf = g.buf[:len(g.buf)+g.enc.PutRead(g.window(), site, uintptr(addr))]
	g.commit()
}

// W stores v into *p, then records the write with v's value word: for
// pointer-shaped values 0 for nil and 1 otherwise, for scalars of up to 8
// bytes the value (see valueWord).
func W[T any](site uint32, p *T, v T) {
	if !enabled {
		*p = v
		return
	}
	if suppressing.Load() && suppWrite(site, unsafe.Pointer(p)) {
		// Suppressed (precog explain): the location keeps its value;
		// the write is recorded all the same (see suppress.go).
		write(site, unsafe.Pointer(p), valueWord(p, &v))
		return
	}
	if accessGates.Load() {
		// Control may hold the write back, so it asks before the store
		// and lets successors go after it.
		g := cur()
		if g.onStack(unsafe.Pointer(p)) {
			*p = v // neither recorded nor gated: see access
			return
		}
		ctlAccess(g, site, trace.EvWrite, unsafe.Pointer(p))
		*p = v
		if !g.skips(site) {
			g.putWrite(site, unsafe.Pointer(p), valueWord(p, &v))
		}
		ctlRecorded(g)
		return
	}
	*p = v
	write(site, unsafe.Pointer(p), valueWord(p, &v))
}

// Wrote records a write of *p that the program has just done itself (the
// targets of a multiple assignment, a range or select variable), with the
// value word W would record.
func Wrote[T any](site uint32, p *T) {
	if enabled {
		if suppressing.Load() {
			// The store is done: a suppressed one cannot be undone,
			// but what depends on it is suppressed.
			suppWrite(site, unsafe.Pointer(p))
		}
		write(site, unsafe.Pointer(p), valueWord(p, p))
	}
}

// Append is append(s, vs...) that records the writes of the elements it
// adds, at their new addresses, as Wrote does once they are stored. The
// rewriter uses it where the slice operand is a shared location and the
// elements are pointer-shaped: a value pushed onto a container under a
// lock and taken off it by another goroutine is a hand-off only if the
// trace holds the push's store of the slot (detect/hb, Hand-offs).
//
// An append that had to grow the slice made a new array: it is recorded
// as an object of its own (EvNew, at the site), as New records one, so
// that the array's elements are new locations whatever array had the
// addresses before.
func Append[S ~[]E, E any](site uint32, s S, vs ...E) S {
	r := append(s, vs...)
	if enabled {
		if cap(r) != cap(s) && !mapsOff {
			newObject(site, unsafe.Pointer(unsafe.SliceData(r)), uintptr(cap(r))*unsafe.Sizeof(*new(E)))
		}
		for i := len(s); i < len(r); i++ {
			Wrote(site, &r[i])
		}
	}
	return r
}

// AppendTo starts append(s, vs...) where a value added is only assignable
// to the element type (a concrete type added to a slice of an interface),
// from which Append's E cannot be inferred: AppendTo(site, s).Add(vs...)
// is Append(site, s, vs...), its E known from s alone.
func AppendTo[S ~[]E, E any](site uint32, s S) Appending[S, E] {
	return Appending[S, E]{site, s}
}

// Appending is an append that AppendTo started: its site and slice.
type Appending[S ~[]E, E any] struct {
	site uint32
	s    S
}

// Add appends vs as Append does.
func (a Appending[S, E]) Add(vs ...E) S { return Append(a.site, a.s, vs...) }

// Def records the definition of a new local variable *p that the program
// has just done itself (x := v, with precog explain's full tracing;
// recording's declarations are Decl's). A
// suppressed definition leaves the variable at its zero value, the value
// it had before the definition.
//
// p escapes (into defSink), so the compiler allocates every variable Def
// records on the heap, and what it points to with it: a variable on a
// goroutine's stack moves when the runtime grows the stack, and its
// accesses after the move would be at another address than its definition
// (detect/suppress, The failure point).
func Def[T any](site uint32, p *T) {
	if defEscape {
		defSink = p
	}
	if !enabled {
		return
	}
	word := valueWord(p, p)
	if suppressing.Load() && suppWrite(site, unsafe.Pointer(p)) {
		var zero T
		*p = zero
	}
	write(site, unsafe.Pointer(p), word)
}

// Decl records the store of a declaration (x := v, var x = v) of a local
// variable *p that another goroutine may read (a captured or address-taken
// one that a recorded access reaches), which the program has just done
// itself: a value stored before a go statement initializes the variable
// for the goroutine it starts, whatever is stored later (neo4j's
// bookmark := "x", held-out rehearsal 26). A zero value is not recorded:
// x := "" leaves the variable as var x string does, and a read of it
// before another goroutine's store is still uninitialized (con-uninit
// takes any earlier write of the reader's own for an initialization).
// Unlike Def, it neither moves the variable to the heap nor is undone by
// suppression: it is recording's, not precog explain's.
func Decl[T any](site uint32, p *T) {
	if !enabled {
		return
	}
	if word := valueWord(p, p); word != 0 {
		write(site, unsafe.Pointer(p), word)
	}
}

// defEscape is never set: Def's store into defSink under it is only there
// for escape analysis, which does not know that.
var (
	defEscape bool
	defSink   any
)

// Read records a read of addr, for shapes R cannot express.
func Read(site uint32, addr unsafe.Pointer) {
	if enabled {
		access(site, trace.EvRead, addr)
		if suppressing.Load() {
			suppRead(addr)
		}
	}
}

// Write records a write of word to addr, for shapes W cannot express; the
// caller has done the store.
func Write(site uint32, addr unsafe.Pointer, word uint64) {
	if enabled {
		write(site, addr, word)
	}
}

// MakeMap records that make(map) or a map literal made m (EvMapMake) and
// returns m: the accesses to m's address after it are to a new map,
// whatever map had the address before.
func MakeMap[M ~map[K]V, K comparable, V any](site uint32, m M) M {
	if enabled && !mapsOff {
		syncBefore(site, trace.EvMapMake, *(*unsafe.Pointer)(unsafe.Pointer(&m)), 0)
	}
	return m
}

// New records that &T{...} or new(T) of a struct type T made the object
// *p (EvNew, with its size) and returns p: the accesses to the object's
// bytes after it are to a new object, whatever object had the addresses
// before. A collection frees an object long before the GC epoch a
// goroutine sees changes (epoch.go), and two objects that had one address
// in turn would otherwise be one location (kad-dht's per-query &query{}
// and per-call &Message{}, held-out rehearsal 55). An object on the
// goroutine's stack is not recorded, as none of its accesses are.
// plan.MapsEnv set to "0" records no EvNew, as no EvMapMake.
func New[T any](site uint32, p *T) *T {
	if enabled && !mapsOff {
		newObject(site, unsafe.Pointer(p), unsafe.Sizeof(*p))
	}
	return p
}

// newObject records the EvNew of an object of size bytes at addr.
func newObject(site uint32, addr unsafe.Pointer, size uintptr) {
	g := cur()
	if g.onStack(addr) {
		return // before control too: see access
	}
	gate(g, site, trace.EvNew, addr)
	g.syncEvent(site, trace.EvNew, addr, uint64(size))
}

// MR records a map read (m[k], len(m)) and returns m.
func MR[M ~map[K]V, K comparable, V any](site uint32, m M) M {
	if enabled {
		access(site, trace.EvMapRead, *(*unsafe.Pointer)(unsafe.Pointer(&m)))
	}
	return m
}

// MW records a map write (m[k] = v, delete) and returns m.
func MW[M ~map[K]V, K comparable, V any](site uint32, m M) M {
	if enabled {
		access(site, trace.EvMapWrite, *(*unsafe.Pointer)(unsafe.Pointer(&m)))
	}
	return m
}

// MI records the start of a range over m and returns m.
func MI[M ~map[K]V, K comparable, V any](site uint32, m M) M {
	if enabled {
		access(site, trace.EvMapIter, *(*unsafe.Pointer)(unsafe.Pointer(&m)))
	}
	return m
}

// Enter is the first statement of an instrumented function.
func Enter(site uint32) {
	if enabled {
		function(site, trace.EvFuncEnter)
	}
}

// Exit is deferred right after Enter.
func Exit(site uint32) {
	if enabled {
		function(site, trace.EvFuncExit)
	}
}

// A Local holds the running goroutine's state for the accesses of one call of
// an instrumented function: the rewriter declares one in each function
// body (and function literal) that records reads, writes or map accesses,
//
//	var precog_g precog_shim.Local
//
// and passes its address to RL, WL, MRL and the like, which look the
// goroutine up at the call's first recorded access only, instead of at
// every access (the lookup is about a fifth of a recorded read). The
// unexported functions of the package that are only ever called directly
// take their caller's Local as a parameter instead of declaring their own
// (the rewriter's LocalCallees), so a chain of small calls looks the
// goroutine up once. This holds because a call, and the direct calls it
// makes and defers, run on one goroutine from start to end, and a
// goroutine keeps the state it has at its first event until it ends (End,
// or TestEnd of a goroutine TestStart adopted), after which none of its
// instrumented code runs: the goroutine a call starts, and a closure it
// defers or hands elsewhere, run their own function bodies, with their own
// Local, and a function called through a func value or an interface
// never takes one. The body of a range over a function is the exception
// (the iterator may call it from another goroutine): the rewriter gives
// its accesses R and W, and the calls in it a new Local.
type Local struct{ g *gstate }

// state returns the running goroutine's state, looked up once.
func (l *Local) state() *gstate {
	if l.g == nil {
		l.g = cur()
	}
	return l.g
}

// RL is R for a function body with a Local. It is small enough for the
// compiler to inline (read does what R does after access, suppRead too),
// which saves a generic call per recorded read.
func RL[T any](l *Local, site uint32, p *T) *T {
	if enabled {
		l.read(site, unsafe.Pointer(p), false)
	}
	return p
}

// RIL is RI for a function body with a Local.
func RIL[T any](l *Local, site uint32, p *T) *T {
	if enabled {
		l.read(site, unsafe.Pointer(p), true)
	}
	return p
}

// WL is W for a function body with a Local.
func WL[T any](l *Local, site uint32, p *T, v T) {
	if !enabled {
		*p = v
		return
	}
	if suppressing.Load() && suppWrite(site, unsafe.Pointer(p)) {
		// Suppressed (precog explain): see W.
		write(site, unsafe.Pointer(p), valueWord(p, &v))
		return
	}
	if accessGates.Load() {
		g := l.state()
		if g.onStack(unsafe.Pointer(p)) {
			*p = v // neither recorded nor gated: see access
			return
		}
		ctlAccess(g, site, trace.EvWrite, unsafe.Pointer(p))
		*p = v
		if !g.skips(site) {
			g.putWrite(site, unsafe.Pointer(p), valueWord(p, &v))
		}
		ctlRecorded(g)
		return
	}
	*p = v
	l.write(site, unsafe.Pointer(p), valueWord(p, &v))
}

// read records a read of addr at site (RL, RIL): access for EvRead,
// written out (a constant kind makes a shorter encoding). This is the path
// of almost every recorded read, so it leaves to readAll the reads that
// take a detour (an access filter, access gates, precog explain's
// suppression), and every call it makes but PutRead's is on a branch of
// its own: the goroutine's lookup at a Local's first read, and readRoom
// for a read that must make room first (ready's test), a call that ends
// read. So no value is live across a call on the way every read takes,
// and the compiler saves no registers there (bench/RESULTS.md,
// "reccost11" and "readfast"). A repeat (repeat.go) returns after the
// filter's test alone (seen), before the detours' tests and the stack
// check: most of the reads of code that re-reads globals and headers in
// its loops. index says whether site is an index site (RIL).
func (l *Local) read(site uint32, addr unsafe.Pointer, index bool) {
	g := l.g
	if g == nil {
		if accessOn != nil {
			l.readAll(site, addr, index) // a filtered site looks nothing up
			return
		}
		g = cur()
		l.g = g
	}
	if suppressing.Load() {
		l.readAll(site, addr, index)
		return
	}
	var slot *readSlot // where to note the read, once seen found no repeat
	var h, seq, w uint64
	if repeatFilter {
		// seen, written out to hash addr once for the test and the note
		h = addrHash(uintptr(addr))
		slot = &g.reads[(h>>(64-readSlotBits)^uint64(site))&(readSlots-1)]
		seq, w = g.stretch(), g.wstamps[h>>(64-writeSlotBits)]
		if slot.addr == uintptr(addr) && slot.site == site && slot.seq == seq && slot.w == w {
			return
		}
	}
	if accessOn != nil || accessGates.Load() {
		l.readAll(site, addr, index)
		return
	}
	if g.onStack(addr) {
		return
	}
	if !g.roomy() {
		g.readRoom(trace.EvRead, slot, h, seq, w, site, addr, index) // ready's test
		return
	}
	if slot != nil {
		slot.addr, slot.site, slot.seq, slot.w = uintptr(addr), site, seq, g.stampRead(h, index, seq, w)
	}
	n := 3 // PutShortRead inlines: a three-byte read makes no call to be encoded
	if !g.enc.PutShortRead(g.window(), site, uintptr(addr)) {
		n = g.enc.PutRead(g.window(), site, uintptr(addr))
	}
	g.buf = g.buf[:len(g.buf)+n]
	g.commit()
}

// readRoom is the end of read and mapRead (k EvRead or EvMapRead) for a
// read that must make room in its chunk or look at attention first
// (ready's test failed): the note in the repeat filter's slot, prepare,
// then the event, in the order they had when they made prepare's call in
// the middle. For a read, PutAccess writes what PutShortRead would.
func (g *gstate) readRoom(k trace.Kind, slot *readSlot, h, seq, w uint64, site uint32, addr unsafe.Pointer, index bool) {
	if slot != nil {
		slot.addr, slot.site, slot.seq, slot.w = uintptr(addr), site, seq, g.stampRead(h, index, seq, w)
	}
	g.prepare()
	g.buf = g.buf[:len(g.buf)+g.enc.PutAccess(g.window(), k, site, uintptr(addr))]
	g.commit()
}

// readAll is read for every case: it also passes the site filter and
// control's gate and, while precog explain suppresses, taints the
// goroutine if addr is suppressed, as R does. The repeat test comes first
// unless precog explain suppresses (then every read goes the whole way:
// suppRead is called for repeats too); the stack and repeat checks come
// before control, as in access.
func (l *Local) readAll(site uint32, addr unsafe.Pointer, index bool) {
	g := l.g
	var slot *readSlot
	var h, seq, w uint64
	if g != nil && repeatFilter && !suppressing.Load() {
		h = addrHash(uintptr(addr))
		slot = &g.reads[(h>>(64-readSlotBits)^uint64(site))&(readSlots-1)]
		seq, w = g.stretch(), g.wstamps[h>>(64-writeSlotBits)]
		if slot.addr == uintptr(addr) && slot.site == site && slot.seq == seq && slot.w == w {
			return
		}
	}
	if !filtered(site) || l.state().held > 0 {
		if g == nil {
			g = l.state()
		}
		if !g.onStack(addr) && (slot != nil || !g.repeated(site, addr, index)) {
			if slot != nil {
				slot.addr, slot.site, slot.seq, slot.w = uintptr(addr), site, seq, g.stampRead(h, index, seq, w)
			}
			if accessGates.Load() {
				ctlAccess(g, site, trace.EvRead, addr)
			}
			g.ready()
			g.buf = g.buf[:len(g.buf)+g.enc.PutRead(g.window(), site, uintptr(addr))]
			g.commit()
		}
	}
	if suppressing.Load() {
		suppRead(addr)
	}
}

// write records a write of addr with value word that the program has
// done, for WL, WN and WP without access gates or suppression: write
// (record.go) for a body with a Local, in one call where a recorded read
// takes one (read), with putWrite written out. As in read, every call but
// PutWrite's is on a branch of its own: an access filter's writes take
// writeFiltered, and a write that must make room first (ready's test)
// putWrite, which does what the rest of write does, with prepare.
func (l *Local) write(site uint32, addr unsafe.Pointer, word uint64) {
	if accessOn != nil {
		l.writeFiltered(site, addr, word)
		return
	}
	g := l.g
	if g == nil {
		g = cur()
		l.g = g
	}
	if g.onStack(addr) {
		return
	}
	if !g.roomy() {
		g.putWrite(site, addr, word) // ready's test
		return
	}
	g.wrote(addr)
	n := 4 // as in read: a four-byte write makes no call
	if !g.enc.PutShortWrite(g.window(), site, uintptr(addr), word) {
		n = g.enc.PutWrite(g.window(), site, uintptr(addr), word)
	}
	g.buf = g.buf[:len(g.buf)+n]
	g.commit()
}

// writeFiltered is write under an access filter (a forced run's plan).
func (l *Local) writeFiltered(site uint32, addr unsafe.Pointer, word uint64) {
	g := l.state()
	if filtered(site) && g.held == 0 || g.onStack(addr) {
		return
	}
	g.putWrite(site, addr, word)
}

// access is the function access for a body with a Local.
func (l *Local) access(site uint32, k trace.Kind, addr unsafe.Pointer) {
	if filtered(site) && l.state().held == 0 {
		return
	}
	g := l.state()
	if g.onStack(addr) || g.repeatedAccess(site, k, addr) {
		return // before control too: see access
	}
	if accessGates.Load() {
		ctlAccess(g, site, k, addr)
	}
	g.ready()
	g.buf = g.buf[:len(g.buf)+g.enc.PutAccess(g.window(), k, site, uintptr(addr))]
	g.commit()
}

// MRL is MR for a function body with a Local.
func MRL[M ~map[K]V, K comparable, V any](l *Local, site uint32, m M) M {
	if enabled {
		l.mapRead(site, *(*unsafe.Pointer)(unsafe.Pointer(&m)))
	}
	return m
}

// mapRead records a read of the map at addr at site (MRL): access for
// EvMapRead, written out as read is, so that the repeat filter hashes addr
// once and tests before anything else (access makes three calls for it:
// repeatedAccess, repeated, noteRead, and hashes addr in seen and again in
// noteRead; a map read cost about 200 instructions, a read 160:
// bench/RESULTS.md, reccost21). A filtered site, access gates and a map on
// the stack take access, as before; the filter's answer is the same in
// either order, for the reasons read's is.
func (l *Local) mapRead(site uint32, addr unsafe.Pointer) {
	g := l.g
	if g == nil {
		if accessOn != nil {
			l.access(site, trace.EvMapRead, addr) // a filtered site looks nothing up
			return
		}
		g = cur()
		l.g = g
	}
	var slot *readSlot
	var h, seq, w uint64
	if repeatFilter {
		h = addrHash(uintptr(addr))
		slot = &g.reads[(h>>(64-readSlotBits)^uint64(site))&(readSlots-1)]
		seq, w = g.stretch(), g.wstamps[h>>(64-writeSlotBits)]
		if slot.addr == uintptr(addr) && slot.site == site && slot.seq == seq && slot.w == w {
			return
		}
	}
	if accessOn != nil || accessGates.Load() {
		l.access(site, trace.EvMapRead, addr)
		return
	}
	if g.onStack(addr) {
		return
	}
	if !g.roomy() {
		g.readRoom(trace.EvMapRead, slot, h, seq, w, site, addr, false) // ready's test, as in read
		return
	}
	if slot != nil {
		slot.addr, slot.site, slot.seq, slot.w = uintptr(addr), site, seq, g.stampRead(h, false, seq, w)
	}
	g.buf = g.buf[:len(g.buf)+g.enc.PutAccess(g.window(), trace.EvMapRead, site, uintptr(addr))]
	g.commit()
}

// MWL is MW for a function body with a Local.
func MWL[M ~map[K]V, K comparable, V any](l *Local, site uint32, m M) M {
	if enabled {
		l.access(site, trace.EvMapWrite, *(*unsafe.Pointer)(unsafe.Pointer(&m)))
	}
	return m
}

// MIL is MI for a function body with a Local.
func MIL[M ~map[K]V, K comparable, V any](l *Local, site uint32, m M) M {
	if enabled {
		l.access(site, trace.EvMapIter, *(*unsafe.Pointer)(unsafe.Pointer(&m)))
	}
	return m
}

// WN is WL for a T whose underlying type is a boolean or a number of at
// most 8 bytes (the rewriter knows the type): the value word is v's bits,
// as valueWord would find through the type's class.
func WN[T any](l *Local, site uint32, p *T, v T) {
	if !enabled || accessGates.Load() || suppressing.Load() {
		WL(l, site, p, v)
		return
	}
	*p = v
	l.write(site, unsafe.Pointer(p), bitsOf(&v))
}

// WP is WL for a T whose underlying type is a pointer, map, channel,
// function or unsafe.Pointer: the value word is 0 for nil, else 1.
func WP[T any](l *Local, site uint32, p *T, v T) {
	if !enabled || accessGates.Load() || suppressing.Load() {
		WL(l, site, p, v)
		return
	}
	*p = v
	l.write(site, unsafe.Pointer(p), ptrWord(*(*unsafe.Pointer)(unsafe.Pointer(&v))))
}

// bitsOf returns the bits of a scalar of 1, 2, 4 or 8 bytes (0 for other
// sizes); the size is fixed for each instantiation, so the switch folds.
func bitsOf[T any](v *T) uint64 {
	switch unsafe.Sizeof(*v) {
	case 1:
		return uint64(*(*uint8)(unsafe.Pointer(v)))
	case 2:
		return uint64(*(*uint16)(unsafe.Pointer(v)))
	case 4:
		return uint64(*(*uint32)(unsafe.Pointer(v)))
	case 8:
		return *(*uint64)(unsafe.Pointer(v))
	}
	return 0
}
