package shim

import (
	"reflect"
	"sync"
	"sync/atomic"
	"unsafe"
)

// A wordClass says how to turn a value into the value word of EvWrite.
type wordClass uint8

const (
	wordNone    wordClass = iota // no useful word: larger scalars and structs; recorded as 0
	wordNil                      // 0 if the first word (pointer, type word, slice data) is nil, else 1
	wordLen                      // strings: the length
	wordScalar1                  // the bits of scalars of 1, 2, 4 and 8 bytes
	wordScalar2
	wordScalar4
	wordScalar8
	wordBytes // other scalars under 8 bytes (small arrays and structs), byte by byte
	wordSlice // slices: 0 if nil, else a hash of data pointer, length and capacity (wordOf)
)

// classCache maps the type descriptor of *T to T's word class. Classifying
// takes reflect, once per type; a lookup is a hash and two loads.
const classBits = 8

type classEntry struct {
	typ   unsafe.Pointer // descriptor of *T
	class wordClass
	size  uintptr
}

var classCache [1 << classBits]atomic.Pointer[classEntry]

// classes holds every type classified so far, by descriptor. Two types can
// share a slot of classCache and evict each other; the one missing from
// its slot is found here, without allocating or calling reflect again.
var classes sync.Map // unsafe.Pointer -> *classEntry

// classSlot is the slot of classCache for the type descriptor typ.
func classSlot(typ unsafe.Pointer) *atomic.Pointer[classEntry] {
	return &classCache[uint64(uintptr(typ))*0x9e3779b97f4a7c15>>(64-classBits)]
}

// valueWord returns the value word of *v, whose type is T; p is only used
// for its type. The type word comes from a nil *T: putting p itself into
// the interface would make W's target escape to the heap.
func valueWord[T any](p *T, v *T) uint64 {
	var e any = (*T)(nil)
	typ := (*[2]unsafe.Pointer)(unsafe.Pointer(&e))[0]
	c := classSlot(typ).Load()
	if c == nil || c.typ != typ {
		c = classify(typ, reflect.TypeOf((*T)(nil)).Elem())
	}
	return wordOf(c, unsafe.Pointer(v))
}

func classify(typ unsafe.Pointer, t reflect.Type) *classEntry {
	v, ok := classes.Load(typ)
	if !ok {
		v, _ = classes.LoadOrStore(typ, &classEntry{typ: typ, class: classOf(t), size: t.Size()})
	}
	c := v.(*classEntry)
	classSlot(typ).Store(c)
	return c
}

func wordOf(c *classEntry, v unsafe.Pointer) uint64 {
	switch c.class {
	case wordNil:
		if *(*unsafe.Pointer)(v) == nil {
			return 0
		}
		return 1
	case wordLen:
		return uint64(len(*(*string)(v)))
	case wordScalar1:
		return uint64(*(*uint8)(v))
	case wordScalar2:
		return uint64(*(*uint16)(v))
	case wordScalar4:
		return uint64(*(*uint32)(v))
	case wordScalar8:
		return *(*uint64)(v)
	case wordSlice:
		// A hash of the three words, odd so never 0 (nil). The checkers
		// compare two writes' words for the same value (OSCS's
		// redundant-write filter): a word of 1 for every non-nil slice
		// made v.s = v.s[:n-1] a write of the value v.s held, and hid
		// the pair. Pointers keep wordNil's 1: telling them apart made a
		// lost update of every pair of linked-list writes under one lock
		// (golang-lru's list, 0 -> 12 OSCS reports).
		s := (*[3]uint64)(v)
		if s[0] == 0 {
			return 0
		}
		h := (s[0]*0x9e3779b97f4a7c15 ^ s[1]) * 0xbf58476d1ce4e5b9
		h = (h ^ s[2] ^ h>>31) * 0x94d049bb133111eb
		return h | 1
	case wordBytes:
		var w uint64
		for i := uintptr(0); i < c.size; i++ {
			w |= uint64(*(*uint8)(unsafe.Add(v, i))) << (8 * i)
		}
		return w
	}
	return 0
}

func classOf(t reflect.Type) wordClass {
	switch t.Kind() {
	case reflect.Pointer, reflect.UnsafePointer, reflect.Map, reflect.Chan, reflect.Func,
		reflect.Interface:
		return wordNil
	case reflect.Slice:
		return wordSlice
	case reflect.String:
		return wordLen
	}
	if hasPointers(t) {
		if firstWordIsPointer(t) {
			return wordNil
		}
		return wordNone
	}
	switch t.Size() {
	case 1:
		return wordScalar1
	case 2:
		return wordScalar2
	case 4:
		return wordScalar4
	case 8:
		return wordScalar8
	}
	if t.Size() < 8 && t.Size() > 0 {
		return wordBytes
	}
	return wordNone
}

func hasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.UnsafePointer, reflect.Map, reflect.Chan, reflect.Func,
		reflect.Interface, reflect.Slice, reflect.String:
		return true
	case reflect.Array:
		return t.Len() > 0 && hasPointers(t.Elem())
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if hasPointers(t.Field(i).Type) {
				return true
			}
		}
	}
	return false
}

// firstWordIsPointer reports whether a value of type t starts with a
// pointer word, so that its nil-ness says something: struct{ p *T; n int }
// does, struct{ n int; p *T } does not.
func firstWordIsPointer(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.UnsafePointer, reflect.Map, reflect.Chan, reflect.Func,
		reflect.Interface, reflect.Slice, reflect.String:
		return true
	case reflect.Array:
		return t.Len() > 0 && firstWordIsPointer(t.Elem())
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if f.Offset > 0 {
				return false
			}
			if f.Type.Size() > 0 {
				return firstWordIsPointer(f.Type)
			}
		}
	}
	return false
}

func ptrWord(p unsafe.Pointer) uint64 {
	if p == nil {
		return 0
	}
	return 1
}
