package rt

import (
	"sync"

	shim "github.com/precog-dev/precog/shim"
)

// The wrappers below replace calls of sync.Map's methods: m.Load(k)
// becomes SyncMapLoad(site, &m, k). sync.Map's operations are atomic
// (linearizable) per key: each is recorded as an atomic load or store of
// the key's location (shim.SyncMapGate), gated before the operation like
// the atomics (atomic.go), with 1 for an entry that holds a non-nil value
// and 0 for none (or a nil value), as pointer-shaped atomics are. So
// detect/hb orders a Store before the Load that observed it, as the memory
// model orders them, and a Delete before a Load that found the key gone;
// operations of the map are never data races of each other; and
// detect/conmem pairs a Delete (a nil store) with a Load whose value is
// dereferenced unchecked (con-null), as it pairs an atomic.Pointer's.
//
// Operations that read and write are recorded as stores (the atomics'
// read-modify-writes are): LoadAndDelete, Swap, a successful
// CompareAndSwap or CompareAndDelete; LoadOrStore as a load when it
// loaded and a store when it stored; a failed compare-and-swap or
// compare-and-delete as a load. Range records a load of each key it
// visits before calling f. Clear (go1.23) is not rewritten: the shim
// builds at go1.22.

func nonNil(v any, ok bool) uint64 {
	if ok && v != nil {
		return 1
	}
	return 0
}

// SyncMapLoad is (*sync.Map).Load.
func SyncMapLoad(site uint32, m *sync.Map, key any) (any, bool) {
	a, p := shim.SyncMapGate(site, false, m, key)
	v, ok := m.Load(key)
	a.Load(site, p, nonNil(v, ok))
	return v, ok
}

// SyncMapLoadScalar is (*sync.Map).Load of a key of an integer or string
// type.
func SyncMapLoadScalar(site uint32, m *sync.Map, key any) (any, bool) {
	a, p := shim.SyncMapScalarGate(site, false, m, key)
	v, ok := m.Load(key)
	a.Load(site, p, nonNil(v, ok))
	return v, ok
}

// SyncMapStore is (*sync.Map).Store.
func SyncMapStore(site uint32, m *sync.Map, key, value any) {
	a, p := shim.SyncMapGate(site, true, m, key)
	m.Store(key, value)
	a.Store(site, p, nonNil(value, true))
}

// SyncMapLoadOrStore is (*sync.Map).LoadOrStore.
func SyncMapLoadOrStore(site uint32, m *sync.Map, key, value any) (any, bool) {
	a, p := shim.SyncMapGate(site, true, m, key)
	actual, loaded := m.LoadOrStore(key, value)
	if loaded {
		a.Load(site, p, nonNil(actual, true))
	} else {
		a.Store(site, p, nonNil(value, true))
	}
	return actual, loaded
}

// SyncMapLoadAndDelete is (*sync.Map).LoadAndDelete.
func SyncMapLoadAndDelete(site uint32, m *sync.Map, key any) (any, bool) {
	a, p := shim.SyncMapGate(site, true, m, key)
	v, loaded := m.LoadAndDelete(key)
	a.Store(site, p, 0)
	return v, loaded
}

// SyncMapLoadAndDeleteScalar is (*sync.Map).LoadAndDelete of a key of an
// integer or string type.
func SyncMapLoadAndDeleteScalar(site uint32, m *sync.Map, key any) (any, bool) {
	a, p := shim.SyncMapScalarGate(site, true, m, key)
	v, loaded := m.LoadAndDelete(key)
	a.Store(site, p, 0)
	return v, loaded
}

// SyncMapDelete is (*sync.Map).Delete.
func SyncMapDelete(site uint32, m *sync.Map, key any) {
	a, p := shim.SyncMapGate(site, true, m, key)
	m.Delete(key)
	a.Store(site, p, 0)
}

// SyncMapDeleteScalar is (*sync.Map).Delete of a key of an integer or
// string type.
func SyncMapDeleteScalar(site uint32, m *sync.Map, key any) {
	a, p := shim.SyncMapScalarGate(site, true, m, key)
	m.Delete(key)
	a.Store(site, p, 0)
}

// SyncMapSwap is (*sync.Map).Swap.
func SyncMapSwap(site uint32, m *sync.Map, key, value any) (any, bool) {
	a, p := shim.SyncMapGate(site, true, m, key)
	prev, loaded := m.Swap(key, value)
	a.Store(site, p, nonNil(value, true))
	return prev, loaded
}

// SyncMapCompareAndSwap is (*sync.Map).CompareAndSwap.
func SyncMapCompareAndSwap(site uint32, m *sync.Map, key, old, new any) bool {
	a, p := shim.SyncMapGate(site, true, m, key)
	if m.CompareAndSwap(key, old, new) {
		a.Store(site, p, nonNil(new, true))
		return true
	}
	a.Load(site, p, nonNil(m.Load(key)))
	return false
}

// SyncMapCompareAndDelete is (*sync.Map).CompareAndDelete.
func SyncMapCompareAndDelete(site uint32, m *sync.Map, key, old any) bool {
	a, p := shim.SyncMapGate(site, true, m, key)
	if m.CompareAndDelete(key, old) {
		a.Store(site, p, 0)
		return true
	}
	a.Load(site, p, nonNil(m.Load(key)))
	return false
}

// SyncMapCompareAndDeleteScalar is (*sync.Map).CompareAndDelete of a key
// of an integer or string type.
func SyncMapCompareAndDeleteScalar(site uint32, m *sync.Map, key, old any) bool {
	a, p := shim.SyncMapScalarGate(site, true, m, key)
	if m.CompareAndDelete(key, old) {
		a.Store(site, p, 0)
		return true
	}
	a.Load(site, p, nonNil(m.Load(key)))
	return false
}

// SyncMapRange is (*sync.Map).Range. Its visits share a Local: f runs
// on the goroutine that called Range.
func SyncMapRange(site uint32, m *sync.Map, f func(key, value any) bool) {
	var l shim.Local
	m.Range(func(key, value any) bool {
		a, p := shim.SyncMapRangeGate(&l, site, m, key)
		a.Load(site, p, nonNil(value, true))
		return f(key, value)
	})
}
