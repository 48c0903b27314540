package shim

import (
	"hash/maphash"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/precog-dev/precog/shim/trace"
)

// syncMapKeys gives each (sync.Map, key) pair that a recorded operation
// named the location its events are recorded at (syncMapKey): for each
// *sync.Map, a *mapKeys holding its keys' entries (each holding the key's
// location word). The lookup of a pair already seen takes no lock (a mutex
// would serialize every recorded sync.Map operation of the program, whose
// Loads are meant to run in parallel) and allocates nothing (a struct of
// map and key as one key would be boxed into an interface at every
// operation; a pointer and an interface value are not).
var syncMapKeys sync.Map

// mapKeys is one sync.Map's keys. Keys of integer and string types
// (scalarKey), the keys of most programs, are in fast, a table of the
// shim's own; the keys of other types in keys, key -> *keyEntry.
type mapKeys struct {
	m    *sync.Map
	keys sync.Map
	// fast is read without a lock and never loses an entry: a key found
	// once is found again with a hash, a few loads and a compare. It
	// replaced a direct-mapped cache in front of keys, whose colliding
	// keys evicted each other: x/sync/syncmap's 1024 keys of 1..1024 had
	// 252 in shared slots, and each eviction cost a sync.Map lookup and a
	// store into a line every other goroutine's lookups read (41% of the
	// recorded Range's samples, bench/RESULTS.md, reccost14). Allocated at
	// the map's first integer or string key.
	fast atomic.Pointer[keyTable]
	mu   sync.Mutex // serializes insertions into fast
}

// A keyTable is an open-addressed hash table of keyEntries, probed
// linearly from the slot the hash's top bits give. Its slots go from nil
// to an entry once and never change again; a table more than half full is
// replaced by a copy twice its size (mapKeys.insert), so that a reader
// still holding the old one finds every key it had, and misses only keys
// inserted since, which it then looks up under the lock.
type keyTable struct {
	slots []atomic.Pointer[keyEntry]
	shift uint // 64 - log2(len(slots))
	n     int  // entries, written under mapKeys.mu
}

// A keyEntry is a key's location (loc) and, for a key of fast, the key as
// fast compares it: its type word, and its value (an integer) or its hash
// and value (a string). The type word is kept as a number: a type
// descriptor is never freed or moved, and a pointer would make the key
// escape (see scalarKey).
type keyEntry struct {
	loc uint64
	typ uintptr
	v   uint64
	s   string
}

// keySeed seeds the hash of string keys.
var keySeed = maphash.MakeSeed()

// scalarKey returns the type word of a key of an integer or string type,
// named or not, and its value (an integer, zero-extended) or its hash and
// value (a string); ok is false for a key of any other type. Two such keys
// are equal, as sync.Map compares them, exactly when these are.
//
// The key does not escape: nothing it points to is kept (the table keeps a
// copy of a string, mapKeys.insert), so that the recorded program's
// conversion of a key to an interface, for a sync.Map operation that keeps
// no key (Load, Delete, LoadAndDelete, CompareAndDelete), stays on its
// stack as it does unrecorded: a test counting allocations
// (testing.AllocsPerRun) would otherwise count one per operation.
func scalarKey(key any) (typ uintptr, v uint64, s string, ok bool) {
	if typ, v, ok := intKey(key); ok {
		return typ, v, "", true
	}
	w := (*[2]unsafe.Pointer)(unsafe.Pointer(&key))
	if s, ok := key.(string); ok {
		return uintptr(w[0]), maphash.String(keySeed, s), s, true
	}
	if key == nil {
		return 0, 0, "", false
	}
	switch reflect.TypeOf(key).Kind() { // a named type, or a narrow one
	case reflect.Int64, reflect.Uint64:
		v = *(*uint64)(w[1])
	case reflect.Int, reflect.Uint, reflect.Uintptr:
		v = uint64(*(*uint)(w[1]))
	case reflect.Int32, reflect.Uint32:
		v = uint64(*(*uint32)(w[1]))
	case reflect.Int16, reflect.Uint16:
		v = uint64(*(*uint16)(w[1]))
	case reflect.Int8, reflect.Uint8:
		v = uint64(*(*uint8)(w[1]))
	case reflect.String:
		s = *(*string)(w[1])
		return uintptr(w[0]), maphash.String(keySeed, s), s, true
	default:
		return 0, 0, "", false
	}
	return uintptr(w[0]), v, "", true
}

// intKey is scalarKey for the unnamed integer types of one word or half
// of one, the keys of most programs: small enough to inline in the
// lookup of a key seen before (mapKeys.scalar).
func intKey(key any) (typ uintptr, v uint64, ok bool) {
	w := (*[2]unsafe.Pointer)(unsafe.Pointer(&key))
	switch key.(type) {
	case int64, uint64:
		v = *(*uint64)(w[1])
	case int, uint, uintptr: // one size, the platform's word
		v = uint64(*(*uint)(w[1]))
	case int32, uint32:
		v = uint64(*(*uint32)(w[1]))
	default:
		return 0, 0, false
	}
	return uintptr(w[0]), v, true
}

// find returns the entry of a key of type typ whose value (an integer) or
// hash (a string s) is v, nil if t has none.
func (t *keyTable) find(typ uintptr, v uint64, s string) *keyEntry {
	mask := uint64(len(t.slots) - 1)
	for i := v * keyMul >> t.shift; ; i = (i + 1) & mask {
		e := t.slots[i&mask].Load()
		if e == nil || e.v == v && e.typ == typ && e.s == s {
			return e
		}
	}
}

// keyMul spreads an integer key's value over the table (Fibonacci
// hashing: consecutive keys land far apart).
const keyMul = 0x9e3779b97f4a7c15

// put places e in t's first free slot, under mapKeys.mu.
func (t *keyTable) put(e *keyEntry) {
	mask := uint64(len(t.slots) - 1)
	i := e.v * keyMul >> t.shift
	for t.slots[i].Load() != nil {
		i = (i + 1) & mask
	}
	t.slots[i].Store(e)
	t.n++
}

// newKeyTable returns an empty table of 1<<bits slots.
func newKeyTable(bits uint) *keyTable {
	return &keyTable{slots: make([]atomic.Pointer[keyEntry], 1<<bits), shift: 64 - bits}
}

// insert returns the entry of a key of fast, adding it if it is not
// there. Under the lock, so that a key has one entry. The entry keeps a
// copy of a string key: the key's bytes may be on the recorded program's
// stack (scalarKey).
func (mk *mapKeys) insert(typ uintptr, v uint64, s string) *keyEntry {
	mk.mu.Lock()
	defer mk.mu.Unlock()
	t := mk.fast.Load()
	if t == nil {
		t = newKeyTable(4)
		mk.fast.Store(t)
	}
	if e := t.find(typ, v, s); e != nil {
		return e
	}
	if 2*(t.n+1) > len(t.slots) {
		bigger := newKeyTable(64 - t.shift + 1)
		for i := range t.slots {
			if e := t.slots[i].Load(); e != nil {
				bigger.put(e)
			}
		}
		t = bigger
		mk.fast.Store(t)
	}
	e := &keyEntry{typ: typ, v: v, s: strings.Clone(s)}
	t.put(e)
	return e
}

// SyncMapGate finds the location that the operation of sync.Map m on key
// at site is recorded at (syncMapKey) and passes the gate of an atomic
// load (store false) or store of it, as AtomicGate does. The location is
// nil and the Atomic records nothing when recording is off.
func SyncMapGate(site uint32, store bool, m *sync.Map, key any) (Atomic, unsafe.Pointer) {
	if !enabled {
		return Atomic{}, nil
	}
	g := cur()
	p := g.syncMapKey(m, key)
	k := trace.EvAtomicLoad
	if store {
		k = trace.EvAtomicStore
	}
	gate(g, site, k, p)
	return Atomic{g}, p
}

// SyncMapScalarGate is SyncMapGate for a key of an integer or string type
// (scalarKey), which it keeps nothing of: the instrumenter calls it for
// the sync.Map operations that keep no key (Load, Delete, LoadAndDelete,
// CompareAndDelete) when the key's static type is one of those, so that
// the program's conversion of the key to an interface stays on its stack
// (SyncMapGate's key escapes: it keeps a key of any other type).
func SyncMapScalarGate(site uint32, store bool, m *sync.Map, key any) (Atomic, unsafe.Pointer) {
	if !enabled {
		return Atomic{}, nil
	}
	g := cur()
	p := g.mapKeys(m).scalar(key)
	if p == nil {
		panic("precog: SyncMapScalarGate: a key of type " + reflect.TypeOf(key).String())
	}
	k := trace.EvAtomicLoad
	if store {
		k = trace.EvAtomicStore
	}
	gate(g, site, k, p)
	return Atomic{g}, p
}

// SyncMapRangeGate is SyncMapGate for a key that Range visits, with the
// Local of the Range: the goroutine is looked up at the first visit, not
// at each (x/sync/syncmap's TestConcurrentRange visits a million keys).
// It repeats SyncMapGate's three lines rather than share a helper: with
// gate inlined, a helper is too large to inline, and every sync.Map
// operation would pay its call.
func SyncMapRangeGate(l *Local, site uint32, m *sync.Map, key any) (Atomic, unsafe.Pointer) {
	if !enabled {
		return Atomic{}, nil
	}
	g := l.state()
	p := g.syncMapKey(m, key)
	gate(g, site, trace.EvAtomicLoad, p)
	return Atomic{g}, p
}

// syncMapKey returns the location that the operations of sync.Map m on key
// are recorded at (rt's SyncMap wrappers, through SyncMapGate).
//
// A sync.Map's entries are not variables of the program: an entry is
// found by the key's interface value (its dynamic type and value, as ==
// compares them), and the map moves it between its read-only and dirty
// halves. So the location is not an address in the map but one of the
// shim's own: a word allocated at the pair's first operation and kept, with
// the map and the key, for the process's life. Per key and not per map,
// so that a Delete of one key is not taken for a nil store to another's
// entry, and a Store of one key does not order a Load of another (sync.Map
// orders only operations on one key: its Store happens before the Load
// that observes it). Kept, because a word the collector freed could be
// reallocated to another pair, whose events detect/hb would then take for
// this one's (Loc's epoch tells two of them apart only across a
// collection). The cost is one small allocation and one map entry per key
// ever used, and the keys and maps stay reachable: fine for a test
// process, whose recording has bounds of its own.
//
// The goroutine keeps the map it looked up last (syncMap), so that a
// program working on one sync.Map at a time pays one lookup per operation,
// not two, and goroutines on different maps write no shared word.
//
// A key that is not comparable panics here, with the runtime error that
// the sync.Map operation would have raised.
func (g *gstate) syncMapKey(m *sync.Map, key any) unsafe.Pointer {
	mk := g.mapKeys(m)
	if p := mk.scalar(key); p != nil {
		return p
	}
	return mk.other(key)
}

// mapKeys returns m's keys, from the goroutine's last map if it is m.
func (g *gstate) mapKeys(m *sync.Map) *mapKeys {
	if mk := g.syncMap; mk != nil && mk.m == m {
		return mk
	}
	return g.lookupMap(m)
}

// lookupMap finds m's keys and keeps them as the goroutine's last.
func (g *gstate) lookupMap(m *sync.Map) *mapKeys {
	v, ok := syncMapKeys.Load(m)
	if !ok {
		v, _ = syncMapKeys.LoadOrStore(m, &mapKeys{m: m})
	}
	g.syncMap = v.(*mapKeys)
	return g.syncMap
}

// scalar returns the location of a key of an integer or string type
// (scalarKey), from fast, nil for a key of another type.
func (mk *mapKeys) scalar(key any) unsafe.Pointer {
	t := mk.fast.Load()
	if typ, v, ok := intKey(key); ok && t != nil {
		if e := t.find(typ, v, ""); e != nil {
			return unsafe.Pointer(&e.loc)
		}
	}
	typ, v, s, ok := scalarKey(key)
	if !ok {
		return nil
	}
	if t != nil {
		if e := t.find(typ, v, s); e != nil {
			return unsafe.Pointer(&e.loc)
		}
	}
	return unsafe.Pointer(&mk.insert(typ, v, s).loc)
}

// other returns the location of a key of a type that is neither an
// integer nor a string type. The key is kept, as the entry's key.
func (mk *mapKeys) other(key any) unsafe.Pointer {
	p, ok := mk.keys.Load(key)
	if !ok {
		p, _ = mk.keys.LoadOrStore(key, &keyEntry{})
	}
	return unsafe.Pointer(&p.(*keyEntry).loc)
}
