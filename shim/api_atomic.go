package shim

import (
	"github.com/precog-dev/precog/shim/trace"
	"sync/atomic"
	"unsafe"
)

// The typed atomics below replace the sync/atomic package functions: the
// same signature with the site first. Each passes the gate, performs the
// operation and records it: loads as AtomicLoad with the value read, stores,
// swaps, adds and successful compare-and-swaps as AtomicStore with the new
// value. A failed compare-and-swap is recorded as AtomicLoad of the value
// loaded right after it (the value the CAS saw is not available). Pointer
// values are recorded as 0 (nil) or 1, like W.
//
// The And and Or functions (Go 1.23) have no wrapper, since the shim builds
// at go1.22: the instrumenter emits the original call followed by
// AtomicStore with the new value.

// AtomicLoad records an atomic load of addr that read val; the instrumenter
// emits it after loads it has no typed wrapper for (methods of atomic.Int64
// and friends).
func AtomicLoad(site uint32, addr unsafe.Pointer, val uint64) {
	if enabled {
		syncBefore(site, trace.EvAtomicLoad, addr, val)
	}
}

// AtomicStore records an atomic store, swap, add or successful
// compare-and-swap of addr that left val in it.
func AtomicStore(site uint32, addr unsafe.Pointer, val uint64) {
	if enabled {
		syncBefore(site, trace.EvAtomicStore, addr, val)
	}
}

// AtomicAddInt32 is atomic.AddInt32.
func AtomicAddInt32(site uint32, addr *int32, delta int32) (new int32) {
	if !enabled {
		return atomic.AddInt32(addr, delta)
	}
	g := gateSync(site, trace.EvAtomicStore, unsafe.Pointer(addr))
	new = atomic.AddInt32(addr, delta)
	g.syncEvent(site, trace.EvAtomicStore, unsafe.Pointer(addr), uint64(uint32(new)))
	return new
}

// AtomicLoadInt32 is atomic.LoadInt32.
func AtomicLoadInt32(site uint32, addr *int32) (val int32) {
	if !enabled {
		return atomic.LoadInt32(addr)
	}
	g := gateSync(site, trace.EvAtomicLoad, unsafe.Pointer(addr))
	val = atomic.LoadInt32(addr)
	g.syncEvent(site, trace.EvAtomicLoad, unsafe.Pointer(addr), uint64(uint32(val)))
	return val
}

// AtomicStoreInt32 is atomic.StoreInt32.
func AtomicStoreInt32(site uint32, addr *int32, val int32) {
	if !enabled {
		atomic.StoreInt32(addr, val)
		return
	}
	g := gateSync(site, trace.EvAtomicStore, unsafe.Pointer(addr))
	atomic.StoreInt32(addr, val)
	g.syncEvent(site, trace.EvAtomicStore, unsafe.Pointer(addr), uint64(uint32(val)))
}

// AtomicSwapInt32 is atomic.SwapInt32.
func AtomicSwapInt32(site uint32, addr *int32, new int32) (old int32) {
	if !enabled {
		return atomic.SwapInt32(addr, new)
	}
	g := gateSync(site, trace.EvAtomicStore, unsafe.Pointer(addr))
	old = atomic.SwapInt32(addr, new)
	g.syncEvent(site, trace.EvAtomicStore, unsafe.Pointer(addr), uint64(uint32(new)))
	return old
}

// AtomicCompareAndSwapInt32 is atomic.CompareAndSwapInt32.
func AtomicCompareAndSwapInt32(site uint32, addr *int32, old, new int32) (swapped bool) {
	if !enabled {
		return atomic.CompareAndSwapInt32(addr, old, new)
	}
	g := gateSync(site, trace.EvAtomicStore, unsafe.Pointer(addr))
	if atomic.CompareAndSwapInt32(addr, old, new) {
		g.casEvent(site, unsafe.Pointer(addr), uint64(uint32(old)), uint64(uint32(new)))
		return true
	}
	g.syncEvent(site, trace.EvAtomicLoad, unsafe.Pointer(addr), uint64(uint32(atomic.LoadInt32(addr))))
	return false
}

// AtomicAddInt64 is atomic.AddInt64.
func AtomicAddInt64(site uint32, addr *int64, delta int64) (new int64) {
	if !enabled {
		return atomic.AddInt64(addr, delta)
	}
	g := gateSync(site, trace.EvAtomicStore, unsafe.Pointer(addr))
	new = atomic.AddInt64(addr, delta)
	g.syncEvent(site, trace.EvAtomicStore, unsafe.Pointer(addr), uint64(new))
	return new
}

// AtomicLoadInt64 is atomic.LoadInt64.
func AtomicLoadInt64(site uint32, addr *int64) (val int64) {
	if !enabled {
		return atomic.LoadInt64(addr)
	}
	g := gateSync(site, trace.EvAtomicLoad, unsafe.Pointer(addr))
	val = atomic.LoadInt64(addr)
	g.syncEvent(site, trace.EvAtomicLoad, unsafe.Pointer(addr), uint64(val))
	return val
}

// AtomicStoreInt64 is atomic.StoreInt64.
func AtomicStoreInt64(site uint32, addr *int64, val int64) {
	if !enabled {
		atomic.StoreInt64(addr, val)
		return
	}
	g := gateSync(site, trace.EvAtomicStore, unsafe.Pointer(addr))
	atomic.StoreInt64(addr, val)
	g.syncEvent(site, trace.EvAtomicStore, unsafe.Pointer(addr), uint64(val))
}

// AtomicSwapInt64 is atomic.SwapInt64.
func AtomicSwapInt64(site uint32, addr *int64, new int64) (old int64) {
	if !enabled {
		return atomic.SwapInt64(addr, new)
	}
	g := gateSync(site, trace.EvAtomicStore, unsafe.Pointer(addr))
	old = atomic.SwapInt64(addr, new)
	g.syncEvent(site, trace.EvAtomicStore, unsafe.Pointer(addr), uint64(new))
	return old
}

// AtomicCompareAndSwapInt64 is atomic.CompareAndSwapInt64.
func AtomicCompareAndSwapInt64(site uint32, addr *int64, old, new int64) (swapped bool) {
	if !enabled {
		return atomic.CompareAndSwapInt64(addr, old, new)
	}
	g := gateSync(site, trace.EvAtomicStore, unsafe.Pointer(addr))
	if atomic.CompareAndSwapInt64(addr, old, new) {
		g.casEvent(site, unsafe.Pointer(addr), uint64(old), uint64(new))
		return true
	}
	g.syncEvent(site, trace.EvAtomicLoad, unsafe.Pointer(addr), uint64(atomic.LoadInt64(addr)))
	return false
}

// AtomicAddUint32 is atomic.AddUint32.
func AtomicAddUint32(site uint32, addr *uint32, delta uint32) (new uint32) {
	if !enabled {
		return atomic.AddUint32(addr, delta)
	}
	g := gateSync(site, trace.EvAtomicStore, unsafe.Pointer(addr))
	new = atomic.AddUint32(addr, delta)
	g.syncEvent(site, trace.EvAtomicStore, unsafe.Pointer(addr), uint64(new))
	return new
}

// AtomicLoadUint32 is atomic.LoadUint32.
func AtomicLoadUint32(site uint32, addr *uint32) (val uint32) {
	if !enabled {
		return atomic.LoadUint32(addr)
	}
	g := gateSync(site, trace.EvAtomicLoad, unsafe.Pointer(addr))
	val = atomic.LoadUint32(addr)
	g.syncEvent(site, trace.EvAtomicLoad, unsafe.Pointer(addr), uint64(val))
	return val
}

// AtomicStoreUint32 is atomic.StoreUint32.
func AtomicStoreUint32(site uint32, addr *uint32, val uint32) {
	if !enabled {
		atomic.StoreUint32(addr, val)
		return
	}
	g := gateSync(site, trace.EvAtomicStore, unsafe.Pointer(addr))
	atomic.StoreUint32(addr, val)
	g.syncEvent(site, trace.EvAtomicStore, unsafe.Pointer(addr), uint64(val))
}

// AtomicSwapUint32 is atomic.SwapUint32.
func AtomicSwapUint32(site uint32, addr *uint32, new uint32) (old uint32) {
	if !enabled {
		return atomic.SwapUint32(addr, new)
	}
	g := gateSync(site, trace.EvAtomicStore, unsafe.Pointer(addr))
	old = atomic.SwapUint32(addr, new)
	g.syncEvent(site, trace.EvAtomicStore, unsafe.Pointer(addr), uint64(new))
	return old
}

// AtomicCompareAndSwapUint32 is atomic.CompareAndSwapUint32.
func AtomicCompareAndSwapUint32(site uint32, addr *uint32, old, new uint32) (swapped bool) {
	if !enabled {
		return atomic.CompareAndSwapUint32(addr, old, new)
	}
	g := gateSync(site, trace.EvAtomicStore, unsafe.Pointer(addr))
	if atomic.CompareAndSwapUint32(addr, old, new) {
		g.casEvent(site, unsafe.Pointer(addr), uint64(old), uint64(new))
		return true
	}
	g.syncEvent(site, trace.EvAtomicLoad, unsafe.Pointer(addr), uint64(atomic.LoadUint32(addr)))
	return false
}

// AtomicAddUint64 is atomic.AddUint64.
func AtomicAddUint64(site uint32, addr *uint64, delta uint64) (new uint64) {
	if !enabled {
		return atomic.AddUint64(addr, delta)
	}
	g := gateSync(site, trace.EvAtomicStore, unsafe.Pointer(addr))
	new = atomic.AddUint64(addr, delta)
	g.syncEvent(site, trace.EvAtomicStore, unsafe.Pointer(addr), uint64(new))
	return new
}

// AtomicLoadUint64 is atomic.LoadUint64.
func AtomicLoadUint64(site uint32, addr *uint64) (val uint64) {
	if !enabled {
		return atomic.LoadUint64(addr)
	}
	g := gateSync(site, trace.EvAtomicLoad, unsafe.Pointer(addr))
	val = atomic.LoadUint64(addr)
	g.syncEvent(site, trace.EvAtomicLoad, unsafe.Pointer(addr), uint64(val))
	return val
}

// AtomicStoreUint64 is atomic.StoreUint64.
func AtomicStoreUint64(site uint32, addr *uint64, val uint64) {
	if !enabled {
		atomic.StoreUint64(addr, val)
		return
	}
	g := gateSync(site, trace.EvAtomicStore, unsafe.Pointer(addr))
	atomic.StoreUint64(addr, val)
	g.syncEvent(site, trace.EvAtomicStore, unsafe.Pointer(addr), uint64(val))
}

// AtomicSwapUint64 is atomic.SwapUint64.
func AtomicSwapUint64(site uint32, addr *uint64, new uint64) (old uint64) {
	if !enabled {
		return atomic.SwapUint64(addr, new)
	}
	g := gateSync(site, trace.EvAtomicStore, unsafe.Pointer(addr))
	old = atomic.SwapUint64(addr, new)
	g.syncEvent(site, trace.EvAtomicStore, unsafe.Pointer(addr), uint64(new))
	return old
}

// AtomicCompareAndSwapUint64 is atomic.CompareAndSwapUint64.
func AtomicCompareAndSwapUint64(site uint32, addr *uint64, old, new uint64) (swapped bool) {
	if !enabled {
		return atomic.CompareAndSwapUint64(addr, old, new)
	}
	g := gateSync(site, trace.EvAtomicStore, unsafe.Pointer(addr))
	if atomic.CompareAndSwapUint64(addr, old, new) {
		g.casEvent(site, unsafe.Pointer(addr), uint64(old), uint64(new))
		return true
	}
	g.syncEvent(site, trace.EvAtomicLoad, unsafe.Pointer(addr), uint64(atomic.LoadUint64(addr)))
	return false
}

// AtomicAddUintptr is atomic.AddUintptr.
func AtomicAddUintptr(site uint32, addr *uintptr, delta uintptr) (new uintptr) {
	if !enabled {
		return atomic.AddUintptr(addr, delta)
	}
	g := gateSync(site, trace.EvAtomicStore, unsafe.Pointer(addr))
	new = atomic.AddUintptr(addr, delta)
	g.syncEvent(site, trace.EvAtomicStore, unsafe.Pointer(addr), uint64(new))
	return new
}

// AtomicLoadUintptr is atomic.LoadUintptr.
func AtomicLoadUintptr(site uint32, addr *uintptr) (val uintptr) {
	if !enabled {
		return atomic.LoadUintptr(addr)
	}
	g := gateSync(site, trace.EvAtomicLoad, unsafe.Pointer(addr))
	val = atomic.LoadUintptr(addr)
	g.syncEvent(site, trace.EvAtomicLoad, unsafe.Pointer(addr), uint64(val))
	return val
}

// AtomicStoreUintptr is atomic.StoreUintptr.
func AtomicStoreUintptr(site uint32, addr *uintptr, val uintptr) {
	if !enabled {
		atomic.StoreUintptr(addr, val)
		return
	}
	g := gateSync(site, trace.EvAtomicStore, unsafe.Pointer(addr))
	atomic.StoreUintptr(addr, val)
	g.syncEvent(site, trace.EvAtomicStore, unsafe.Pointer(addr), uint64(val))
}

// AtomicSwapUintptr is atomic.SwapUintptr.
func AtomicSwapUintptr(site uint32, addr *uintptr, new uintptr) (old uintptr) {
	if !enabled {
		return atomic.SwapUintptr(addr, new)
	}
	g := gateSync(site, trace.EvAtomicStore, unsafe.Pointer(addr))
	old = atomic.SwapUintptr(addr, new)
	g.syncEvent(site, trace.EvAtomicStore, unsafe.Pointer(addr), uint64(new))
	return old
}

// AtomicCompareAndSwapUintptr is atomic.CompareAndSwapUintptr.
func AtomicCompareAndSwapUintptr(site uint32, addr *uintptr, old, new uintptr) (swapped bool) {
	if !enabled {
		return atomic.CompareAndSwapUintptr(addr, old, new)
	}
	g := gateSync(site, trace.EvAtomicStore, unsafe.Pointer(addr))
	if atomic.CompareAndSwapUintptr(addr, old, new) {
		g.casEvent(site, unsafe.Pointer(addr), uint64(old), uint64(new))
		return true
	}
	g.syncEvent(site, trace.EvAtomicLoad, unsafe.Pointer(addr), uint64(atomic.LoadUintptr(addr)))
	return false
}

// AtomicLoadPointer is atomic.LoadPointer.
func AtomicLoadPointer(site uint32, addr *unsafe.Pointer) (val unsafe.Pointer) {
	if !enabled {
		return atomic.LoadPointer(addr)
	}
	g := gateSync(site, trace.EvAtomicLoad, unsafe.Pointer(addr))
	val = atomic.LoadPointer(addr)
	g.syncEvent(site, trace.EvAtomicLoad, unsafe.Pointer(addr), ptrWord(val))
	return val
}

// AtomicStorePointer is atomic.StorePointer.
func AtomicStorePointer(site uint32, addr *unsafe.Pointer, val unsafe.Pointer) {
	if !enabled {
		atomic.StorePointer(addr, val)
		return
	}
	g := gateSync(site, trace.EvAtomicStore, unsafe.Pointer(addr))
	atomic.StorePointer(addr, val)
	g.syncEvent(site, trace.EvAtomicStore, unsafe.Pointer(addr), ptrWord(val))
}

// AtomicSwapPointer is atomic.SwapPointer.
func AtomicSwapPointer(site uint32, addr *unsafe.Pointer, new unsafe.Pointer) (old unsafe.Pointer) {
	if !enabled {
		return atomic.SwapPointer(addr, new)
	}
	g := gateSync(site, trace.EvAtomicStore, unsafe.Pointer(addr))
	old = atomic.SwapPointer(addr, new)
	g.syncEvent(site, trace.EvAtomicStore, unsafe.Pointer(addr), ptrWord(new))
	return old
}

// AtomicCompareAndSwapPointer is atomic.CompareAndSwapPointer.
func AtomicCompareAndSwapPointer(site uint32, addr *unsafe.Pointer, old, new unsafe.Pointer) (swapped bool) {
	if !enabled {
		return atomic.CompareAndSwapPointer(addr, old, new)
	}
	g := gateSync(site, trace.EvAtomicStore, unsafe.Pointer(addr))
	if atomic.CompareAndSwapPointer(addr, old, new) {
		g.casEvent(site, unsafe.Pointer(addr), ptrWord(old), ptrWord(new))
		return true
	}
	g.syncEvent(site, trace.EvAtomicLoad, unsafe.Pointer(addr), ptrWord(atomic.LoadPointer(addr)))
	return false
}

// An Atomic is an atomic operation that has passed its gate and is not
// recorded yet. rt's wrappers of the methods of sync/atomic's types (and of
// sync.Map's) call AtomicGate, perform the operation, then record it with
// Load or Store, as the typed wrappers above do: a gate passed after the
// operation would let a forced order hold the goroutine back only once its
// load or store had happened (a nil Store meant to come between a check
// and a dereference ran before the check). The zero Atomic, which
// AtomicGate returns when recording is off, records nothing.
type Atomic struct{ g *gstate }

// AtomicGate passes the gate of an atomic load (store false) or store,
// swap, add or compare-and-swap (store true) of addr at site. l is the
// calling function body's Local, so that the goroutine is looked up once
// per call of the body and not at each atomic (about 30 instructions of
// each of pond's 2.7 million atomics); nil where the call has none (a
// package-level initializer, a deferred call, or a go statement's).
func AtomicGate(l *Local, site uint32, store bool, addr unsafe.Pointer) Atomic {
	if !enabled {
		return Atomic{}
	}
	k := trace.EvAtomicLoad
	if store {
		k = trace.EvAtomicStore
	}
	var g *gstate
	if l != nil {
		g = l.state()
	} else {
		g = cur()
	}
	gate(g, site, k, addr)
	return Atomic{g}
}

// CAS records the gated operation as a successful compare-and-swap of
// addr that read old and left new in it (see casEvent).
func (a Atomic) CAS(site uint32, addr unsafe.Pointer, old, new uint64) {
	if a.g != nil {
		a.g.casEvent(site, addr, old, new)
	}
}

// Load records the gated operation as an atomic load of addr that read
// val.
func (a Atomic) Load(site uint32, addr unsafe.Pointer, val uint64) {
	if a.g != nil {
		a.g.syncEvent(site, trace.EvAtomicLoad, addr, val)
	}
}

// Store records the gated operation as an atomic store (or swap, add or
// successful compare-and-swap) of addr that left val in it.
func (a Atomic) Store(site uint32, addr unsafe.Pointer, val uint64) {
	if a.g != nil {
		a.g.syncEvent(site, trace.EvAtomicStore, addr, val)
	}
}

// casEvent records a successful compare-and-swap of a word at addr: the
// load of old it made, then its store of new. The load orders the swap
// after the store it read, as any atomic load is ordered (the memory
// model's synchronization): a try-lock taken by CompareAndSwap(0, 1) comes
// after the Store(0) that released it (go-datastructures' palm tree, whose
// operations run while running is 1). The load is at site 0, which is
// never a plan's point, so that control counts the swap once, at its
// store. Pointers' and Values' swaps record only whether the word is nil,
// as their loads and stores do. hb orders a swap, a read-modify-write that
// reads the word's latest store, after the latest recorded store only, and
// only when it stored what the swap read: an older store of the same kind
// is not taken for it (a pointer stored by code precog does not record, as
// through an interface, would otherwise order the swap after an unrelated
// non-nil store and hide a race). theine's read buffer hands its policy buffers out with
// CompareAndSwapPointer(&b.returned, pb, nil) and takes them back with
// StorePointer(&b.returned, pb): the next winner's appends come after the
// last holder's Free.
func (g *gstate) casEvent(site uint32, addr unsafe.Pointer, old, new uint64) {
	g.syncRecord(0, trace.EvAtomicLoad, addr, old, false)
	g.syncEvent(site, trace.EvAtomicStore, addr, new)
}
