package rt

import (
	"sync/atomic"
	"unsafe"

	shim "github.com/precog-dev/precog/shim"
)

// The wrappers below replace calls of the methods of sync/atomic's types,
// which the shim has no typed wrappers for: v.Add(d) on an atomic.Int64
// becomes Int64Add(l, site, &v, d), where l is the calling function body's
// shim.Local (nil where there is none; see shim.AtomicGate). Each passes
// the operation's gate (shim.AtomicGate), performs it, then records it at
// the address of the value, so that a forced order holds back the operation
// and not only its record: loads with the value read; stores, swaps, adds
// and successful compare-and-swaps with the new value (a successful
// compare-and-swap with the load of the old value before it, shim's
// Atomic.CAS); a failed compare-and-swap as a load of the value that made
// it fail. Pointer-shaped
// values are recorded as 0 (nil) or 1, like shim.W. The And and Or methods
// and functions (Go 1.23) return the old value; the rewritten code calls
// them itself and passes the result through And or Or, which record the new
// value.

// And records the atomic and of mask into *addr, which returned old, and
// returns old.
func And[T int32 | int64 | uint32 | uint64 | uintptr](site uint32, addr unsafe.Pointer, old, mask T) T {
	shim.AtomicStore(site, addr, uint64(old&mask))
	return old
}

// Or records the atomic or of mask into *addr, which returned old, and
// returns old.
func Or[T int32 | int64 | uint32 | uint64 | uintptr](site uint32, addr unsafe.Pointer, old, mask T) T {
	shim.AtomicStore(site, addr, uint64(old|mask))
	return old
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// Int32Load is (*atomic.Int32).Load.
func Int32Load(l *shim.Local, site uint32, v *atomic.Int32) int32 {
	a := shim.AtomicGate(l, site, false, unsafe.Pointer(v))
	x := v.Load()
	a.Load(site, unsafe.Pointer(v), uint64(uint32(x)))
	return x
}

// Int32Store is (*atomic.Int32).Store.
func Int32Store(l *shim.Local, site uint32, v *atomic.Int32, x int32) {
	a := shim.AtomicGate(l, site, true, unsafe.Pointer(v))
	v.Store(x)
	a.Store(site, unsafe.Pointer(v), uint64(uint32(x)))
}

// Int32Swap is (*atomic.Int32).Swap.
func Int32Swap(l *shim.Local, site uint32, v *atomic.Int32, x int32) int32 {
	a := shim.AtomicGate(l, site, true, unsafe.Pointer(v))
	old := v.Swap(x)
	a.Store(site, unsafe.Pointer(v), uint64(uint32(x)))
	return old
}

// Int32CompareAndSwap is (*atomic.Int32).CompareAndSwap.
func Int32CompareAndSwap(l *shim.Local, site uint32, v *atomic.Int32, old, x int32) bool {
	a := shim.AtomicGate(l, site, true, unsafe.Pointer(v))
	if v.CompareAndSwap(old, x) {
		a.CAS(site, unsafe.Pointer(v), uint64(uint32(old)), uint64(uint32(x)))
		return true
	}
	cur := v.Load()
	a.Load(site, unsafe.Pointer(v), uint64(uint32(cur)))
	return false
}

// Int32Add is (*atomic.Int32).Add.
func Int32Add(l *shim.Local, site uint32, v *atomic.Int32, d int32) int32 {
	a := shim.AtomicGate(l, site, true, unsafe.Pointer(v))
	x := v.Add(d)
	a.Store(site, unsafe.Pointer(v), uint64(uint32(x)))
	return x
}

// Int64Load is (*atomic.Int64).Load.
func Int64Load(l *shim.Local, site uint32, v *atomic.Int64) int64 {
	a := shim.AtomicGate(l, site, false, unsafe.Pointer(v))
	x := v.Load()
	a.Load(site, unsafe.Pointer(v), uint64(x))
	return x
}

// Int64Store is (*atomic.Int64).Store.
func Int64Store(l *shim.Local, site uint32, v *atomic.Int64, x int64) {
	a := shim.AtomicGate(l, site, true, unsafe.Pointer(v))
	v.Store(x)
	a.Store(site, unsafe.Pointer(v), uint64(x))
}

// Int64Swap is (*atomic.Int64).Swap.
func Int64Swap(l *shim.Local, site uint32, v *atomic.Int64, x int64) int64 {
	a := shim.AtomicGate(l, site, true, unsafe.Pointer(v))
	old := v.Swap(x)
	a.Store(site, unsafe.Pointer(v), uint64(x))
	return old
}

// Int64CompareAndSwap is (*atomic.Int64).CompareAndSwap.
func Int64CompareAndSwap(l *shim.Local, site uint32, v *atomic.Int64, old, x int64) bool {
	a := shim.AtomicGate(l, site, true, unsafe.Pointer(v))
	if v.CompareAndSwap(old, x) {
		a.CAS(site, unsafe.Pointer(v), uint64(old), uint64(x))
		return true
	}
	cur := v.Load()
	a.Load(site, unsafe.Pointer(v), uint64(cur))
	return false
}

// Int64Add is (*atomic.Int64).Add.
func Int64Add(l *shim.Local, site uint32, v *atomic.Int64, d int64) int64 {
	a := shim.AtomicGate(l, site, true, unsafe.Pointer(v))
	x := v.Add(d)
	a.Store(site, unsafe.Pointer(v), uint64(x))
	return x
}

// Uint32Load is (*atomic.Uint32).Load.
func Uint32Load(l *shim.Local, site uint32, v *atomic.Uint32) uint32 {
	a := shim.AtomicGate(l, site, false, unsafe.Pointer(v))
	x := v.Load()
	a.Load(site, unsafe.Pointer(v), uint64(x))
	return x
}

// Uint32Store is (*atomic.Uint32).Store.
func Uint32Store(l *shim.Local, site uint32, v *atomic.Uint32, x uint32) {
	a := shim.AtomicGate(l, site, true, unsafe.Pointer(v))
	v.Store(x)
	a.Store(site, unsafe.Pointer(v), uint64(x))
}

// Uint32Swap is (*atomic.Uint32).Swap.
func Uint32Swap(l *shim.Local, site uint32, v *atomic.Uint32, x uint32) uint32 {
	a := shim.AtomicGate(l, site, true, unsafe.Pointer(v))
	old := v.Swap(x)
	a.Store(site, unsafe.Pointer(v), uint64(x))
	return old
}

// Uint32CompareAndSwap is (*atomic.Uint32).CompareAndSwap.
func Uint32CompareAndSwap(l *shim.Local, site uint32, v *atomic.Uint32, old, x uint32) bool {
	a := shim.AtomicGate(l, site, true, unsafe.Pointer(v))
	if v.CompareAndSwap(old, x) {
		a.CAS(site, unsafe.Pointer(v), uint64(old), uint64(x))
		return true
	}
	cur := v.Load()
	a.Load(site, unsafe.Pointer(v), uint64(cur))
	return false
}

// Uint32Add is (*atomic.Uint32).Add.
func Uint32Add(l *shim.Local, site uint32, v *atomic.Uint32, d uint32) uint32 {
	a := shim.AtomicGate(l, site, true, unsafe.Pointer(v))
	x := v.Add(d)
	a.Store(site, unsafe.Pointer(v), uint64(x))
	return x
}

// Uint64Load is (*atomic.Uint64).Load.
func Uint64Load(l *shim.Local, site uint32, v *atomic.Uint64) uint64 {
	a := shim.AtomicGate(l, site, false, unsafe.Pointer(v))
	x := v.Load()
	a.Load(site, unsafe.Pointer(v), uint64(x))
	return x
}

// Uint64Store is (*atomic.Uint64).Store.
func Uint64Store(l *shim.Local, site uint32, v *atomic.Uint64, x uint64) {
	a := shim.AtomicGate(l, site, true, unsafe.Pointer(v))
	v.Store(x)
	a.Store(site, unsafe.Pointer(v), uint64(x))
}

// Uint64Swap is (*atomic.Uint64).Swap.
func Uint64Swap(l *shim.Local, site uint32, v *atomic.Uint64, x uint64) uint64 {
	a := shim.AtomicGate(l, site, true, unsafe.Pointer(v))
	old := v.Swap(x)
	a.Store(site, unsafe.Pointer(v), uint64(x))
	return old
}

// Uint64CompareAndSwap is (*atomic.Uint64).CompareAndSwap.
func Uint64CompareAndSwap(l *shim.Local, site uint32, v *atomic.Uint64, old, x uint64) bool {
	a := shim.AtomicGate(l, site, true, unsafe.Pointer(v))
	if v.CompareAndSwap(old, x) {
		a.CAS(site, unsafe.Pointer(v), uint64(old), uint64(x))
		return true
	}
	cur := v.Load()
	a.Load(site, unsafe.Pointer(v), uint64(cur))
	return false
}

// Uint64Add is (*atomic.Uint64).Add.
func Uint64Add(l *shim.Local, site uint32, v *atomic.Uint64, d uint64) uint64 {
	a := shim.AtomicGate(l, site, true, unsafe.Pointer(v))
	x := v.Add(d)
	a.Store(site, unsafe.Pointer(v), uint64(x))
	return x
}

// UintptrLoad is (*atomic.Uintptr).Load.
func UintptrLoad(l *shim.Local, site uint32, v *atomic.Uintptr) uintptr {
	a := shim.AtomicGate(l, site, false, unsafe.Pointer(v))
	x := v.Load()
	a.Load(site, unsafe.Pointer(v), uint64(x))
	return x
}

// UintptrStore is (*atomic.Uintptr).Store.
func UintptrStore(l *shim.Local, site uint32, v *atomic.Uintptr, x uintptr) {
	a := shim.AtomicGate(l, site, true, unsafe.Pointer(v))
	v.Store(x)
	a.Store(site, unsafe.Pointer(v), uint64(x))
}

// UintptrSwap is (*atomic.Uintptr).Swap.
func UintptrSwap(l *shim.Local, site uint32, v *atomic.Uintptr, x uintptr) uintptr {
	a := shim.AtomicGate(l, site, true, unsafe.Pointer(v))
	old := v.Swap(x)
	a.Store(site, unsafe.Pointer(v), uint64(x))
	return old
}

// UintptrCompareAndSwap is (*atomic.Uintptr).CompareAndSwap.
func UintptrCompareAndSwap(l *shim.Local, site uint32, v *atomic.Uintptr, old, x uintptr) bool {
	a := shim.AtomicGate(l, site, true, unsafe.Pointer(v))
	if v.CompareAndSwap(old, x) {
		a.CAS(site, unsafe.Pointer(v), uint64(old), uint64(x))
		return true
	}
	cur := v.Load()
	a.Load(site, unsafe.Pointer(v), uint64(cur))
	return false
}

// UintptrAdd is (*atomic.Uintptr).Add.
func UintptrAdd(l *shim.Local, site uint32, v *atomic.Uintptr, d uintptr) uintptr {
	a := shim.AtomicGate(l, site, true, unsafe.Pointer(v))
	x := v.Add(d)
	a.Store(site, unsafe.Pointer(v), uint64(x))
	return x
}

// BoolLoad is (*atomic.Bool).Load.
func BoolLoad(l *shim.Local, site uint32, v *atomic.Bool) bool {
	a := shim.AtomicGate(l, site, false, unsafe.Pointer(v))
	x := v.Load()
	a.Load(site, unsafe.Pointer(v), b2u(x))
	return x
}

// BoolStore is (*atomic.Bool).Store.
func BoolStore(l *shim.Local, site uint32, v *atomic.Bool, x bool) {
	a := shim.AtomicGate(l, site, true, unsafe.Pointer(v))
	v.Store(x)
	a.Store(site, unsafe.Pointer(v), b2u(x))
}

// BoolSwap is (*atomic.Bool).Swap.
func BoolSwap(l *shim.Local, site uint32, v *atomic.Bool, x bool) bool {
	a := shim.AtomicGate(l, site, true, unsafe.Pointer(v))
	old := v.Swap(x)
	a.Store(site, unsafe.Pointer(v), b2u(x))
	return old
}

// BoolCompareAndSwap is (*atomic.Bool).CompareAndSwap.
func BoolCompareAndSwap(l *shim.Local, site uint32, v *atomic.Bool, old, x bool) bool {
	a := shim.AtomicGate(l, site, true, unsafe.Pointer(v))
	if v.CompareAndSwap(old, x) {
		a.CAS(site, unsafe.Pointer(v), b2u(old), b2u(x))
		return true
	}
	cur := v.Load()
	a.Load(site, unsafe.Pointer(v), b2u(cur))
	return false
}

// PointerLoad is (*atomic.Pointer[T]).Load.
func PointerLoad[T any](l *shim.Local, site uint32, v *atomic.Pointer[T]) *T {
	a := shim.AtomicGate(l, site, false, unsafe.Pointer(v))
	x := v.Load()
	a.Load(site, unsafe.Pointer(v), b2u(x != nil))
	return x
}

// PointerStore is (*atomic.Pointer[T]).Store.
func PointerStore[T any](l *shim.Local, site uint32, v *atomic.Pointer[T], x *T) {
	a := shim.AtomicGate(l, site, true, unsafe.Pointer(v))
	v.Store(x)
	a.Store(site, unsafe.Pointer(v), b2u(x != nil))
}

// PointerSwap is (*atomic.Pointer[T]).Swap.
func PointerSwap[T any](l *shim.Local, site uint32, v *atomic.Pointer[T], x *T) *T {
	a := shim.AtomicGate(l, site, true, unsafe.Pointer(v))
	old := v.Swap(x)
	a.Store(site, unsafe.Pointer(v), b2u(x != nil))
	return old
}

// PointerCompareAndSwap is (*atomic.Pointer[T]).CompareAndSwap.
func PointerCompareAndSwap[T any](l *shim.Local, site uint32, v *atomic.Pointer[T], old, x *T) bool {
	a := shim.AtomicGate(l, site, true, unsafe.Pointer(v))
	if v.CompareAndSwap(old, x) {
		a.CAS(site, unsafe.Pointer(v), b2u(old != nil), b2u(x != nil))
		return true
	}
	a.Load(site, unsafe.Pointer(v), b2u(v.Load() != nil))
	return false
}

// ValueLoad is (*atomic.Value).Load.
func ValueLoad(l *shim.Local, site uint32, v *atomic.Value) any {
	a := shim.AtomicGate(l, site, false, unsafe.Pointer(v))
	x := v.Load()
	a.Load(site, unsafe.Pointer(v), b2u(x != nil))
	return x
}

// ValueStore is (*atomic.Value).Store.
func ValueStore(l *shim.Local, site uint32, v *atomic.Value, x any) {
	a := shim.AtomicGate(l, site, true, unsafe.Pointer(v))
	v.Store(x)
	a.Store(site, unsafe.Pointer(v), b2u(x != nil))
}

// ValueSwap is (*atomic.Value).Swap.
func ValueSwap(l *shim.Local, site uint32, v *atomic.Value, x any) any {
	a := shim.AtomicGate(l, site, true, unsafe.Pointer(v))
	old := v.Swap(x)
	a.Store(site, unsafe.Pointer(v), b2u(x != nil))
	return old
}

// ValueCompareAndSwap is (*atomic.Value).CompareAndSwap.
func ValueCompareAndSwap(l *shim.Local, site uint32, v *atomic.Value, old, x any) bool {
	a := shim.AtomicGate(l, site, true, unsafe.Pointer(v))
	if v.CompareAndSwap(old, x) {
		a.CAS(site, unsafe.Pointer(v), b2u(old != nil), b2u(x != nil))
		return true
	}
	a.Load(site, unsafe.Pointer(v), b2u(v.Load() != nil))
	return false
}
