package shim

import (
	"sync"
	"sync/atomic"
	"unsafe"
)

// syncMapKeys gives each (sync.Map, key) pair that a recorded operation
// named the location its events are recorded at (SyncMapKey): for each
// *sync.Map, a *mapKeys holding a sync.Map of its keys' entries (each
// holding the key's location word). Two levels of sync.Map, so that the
// lookup of a pair already seen takes no lock (a mutex would serialize
// every recorded sync.Map operation of the program, whose Loads are meant
// to run in parallel) and allocates nothing (a struct of map and key as
// one key would be boxed into an interface at every operation; a pointer
// and an interface value are not).
var syncMapKeys sync.Map

// lastMapKeys is the keys of the map whose table SyncMapKey found last, so
// that a program working on one sync.Map at a time (a Range visiting its
// keys, a loop of Loads) pays one lookup per operation, not two. It is
// written only when the map changes.
var lastMapKeys atomic.Pointer[mapKeys]

// mapKeys is one sync.Map's keys: key -> *keyEntry, and a cache of the
// entries of integer keys (ints).
type mapKeys struct {
	m    *sync.Map
	keys sync.Map
	// ints caches the entries of keys whose dynamic type is one of
	// Go's integer types (intKey), direct-mapped by the key's value:
	// a hit costs a type switch, a multiply and a load instead of a
	// sync.Map lookup, which hashes the interface and walks a trie (as
	// much as the program's own Load: half of x/sync/syncmap's recorded
	// Loads' cost, bench/RESULTS.md, reccost9). Allocated at the map's
	// first integer key; written only on a miss.
	ints atomic.Pointer[[intSlots]atomic.Pointer[keyEntry]]
}

// intSlotBits sets the size of a map's cache of integer keys: 1024 slots
// (8 KiB per sync.Map that has integer keys), as many as the keys of
// x/sync/syncmap's TestConcurrentRange, whose Range visits all of them in
// turn.
const (
	intSlotBits = 10
	intSlots    = 1 << intSlotBits
)

// A keyEntry is a key's location (loc) and, for an integer key, the key
// as ints compares it: its type word and its value.
type keyEntry struct {
	loc uint64
	typ unsafe.Pointer
	v   uint64
}

// intKey returns the type word and the value of an integer key; ok is
// false for a key of any other type. Two integer keys are equal, as
// sync.Map compares them, exactly when both are equal.
func intKey(key any) (typ unsafe.Pointer, v uint64, ok bool) {
	switch k := key.(type) {
	case int:
		v = uint64(k)
	case int64:
		v = uint64(k)
	case int32:
		v = uint64(k)
	case uint64:
		v = k
	case uint32:
		v = uint64(k)
	case uint:
		v = uint64(k)
	case uintptr:
		v = uint64(k)
	default:
		return nil, 0, false
	}
	return (*[2]unsafe.Pointer)(unsafe.Pointer(&key))[0], v, true
}

// SyncMapKey returns the location that the operations of sync.Map m on
// key are recorded at (rt's SyncMap wrappers), nil when recording is off.
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
// A key that is not comparable panics here, with the runtime error that
// the sync.Map operation would have raised.
func SyncMapKey(m *sync.Map, key any) unsafe.Pointer {
	if !enabled {
		return nil
	}
	mk := lastMapKeys.Load()
	if mk == nil || mk.m != m {
		v, ok := syncMapKeys.Load(m)
		if !ok {
			v, _ = syncMapKeys.LoadOrStore(m, &mapKeys{m: m})
		}
		mk = v.(*mapKeys)
		lastMapKeys.Store(mk)
	}
	typ, v, isInt := intKey(key)
	var slot *atomic.Pointer[keyEntry]
	if isInt {
		ints := mk.ints.Load()
		if ints == nil {
			mk.ints.CompareAndSwap(nil, new([intSlots]atomic.Pointer[keyEntry]))
			ints = mk.ints.Load()
		}
		slot = &ints[v*0x9e3779b97f4a7c15>>(64-intSlotBits)]
		if e := slot.Load(); e != nil && e.typ == typ && e.v == v {
			return unsafe.Pointer(&e.loc)
		}
	}
	p, ok := mk.keys.Load(key)
	if !ok {
		p, _ = mk.keys.LoadOrStore(key, &keyEntry{typ: typ, v: v})
	}
	e := p.(*keyEntry)
	if slot != nil {
		slot.Store(e)
	}
	return unsafe.Pointer(&e.loc)
}
