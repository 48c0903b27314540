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
	}
	return p
}

// W stores v into *p, then records the write with v's value word: for
// pointer-shaped values 0 for nil and 1 otherwise, for scalars of up to 8
// bytes the value (see valueWord).
func W[T any](site uint32, p *T, v T) {
	if !enabled {
		*p = v
		return
	}
	if accessGates.Load() {
		// Control may hold the write back, so it asks before the store
		// and lets successors go after it.
		g := cur()
		ctlAccess(g, site, trace.EvWrite)
		*p = v
		if !filtered(site) {
			g.recordWrite(site, unsafe.Pointer(p), valueWord(p, &v))
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
		write(site, unsafe.Pointer(p), valueWord(p, p))
	}
}

// Read records a read of addr, for shapes R cannot express.
func Read(site uint32, addr unsafe.Pointer) {
	if enabled {
		access(site, trace.EvRead, addr)
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
