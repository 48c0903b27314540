package shim

import (
	"sync"
	"unsafe"
)

// syncMapKeys gives each (sync.Map, key) pair that a recorded operation
// named the location its events are recorded at (SyncMapKey): a
// *uint64 per syncMapKey. It is a sync.Map itself, so that looking up a
// pair already seen takes no lock: a mutex here would serialize every
// recorded sync.Map operation of the program, whose Loads are meant to
// run in parallel.
var syncMapKeys sync.Map

type syncMapKey struct {
	m   *sync.Map
	key any
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
	k := syncMapKey{m, key}
	if p, ok := syncMapKeys.Load(k); ok {
		return unsafe.Pointer(p.(*uint64))
	}
	p, _ := syncMapKeys.LoadOrStore(k, new(uint64))
	return unsafe.Pointer(p.(*uint64))
}
