// Package conindex defines an analyzer that reports index and slice
// expressions whose index or slice is read from a location that another
// goroutine writes without a common lock: ConMem's Con-Overflow, for Go.
//
// # Analyzer conindex
//
// conindex: report indexes that another goroutine may change unlocked
//
// Go checks bounds, so a buffer overflow in C becomes a panic in Go:
// "index out of range" or "slice bounds out of range". ConMem (Zhang et
// al., TOSEM 2013, §4.5) reports races on buffer-index variables: a
// value used to compute a buffer address that another thread may change
// at the same time. The check reports an index or slice expression when
//
//   - an index or bound of it is computed from a field, package variable
//     or captured variable (directly or through arithmetic) that another
//     goroutine context writes, or
//   - the slice it indexes is read from such a location, another goroutine
//     replaces or truncates it, and the index was computed or checked from
//     a separate read of the same slice (`if i < len(s.buf) { s.buf[i] }`,
//     `for i := range s.items { s.items[i] }`),
//
// and the write and the read can overlap (see the goroutines analyzer),
// with no mutex held at both and no static order between them. For the
// slice read again, a mutex counts only if the function held it from the
// separate read on: a length taken in one critical section and used in
// the next (`n := b.Len(); ...; b.At(n-1)` inlined as two sections of
// b.mu) leaves room for the write between them. The
// check-then-use shape of the Apache log buffer (Fig. 9 of the paper) is
// the typical case:
//
//	// WRONG: b.outcnt can grow between the check and the copy
//	func (b *bufferedLog) Write(p []byte) {
//		if b.outcnt+len(p) > len(b.outbuf) {
//			b.flush()
//		}
//		copy(b.outbuf[b.outcnt:], p) // slice bounds out of range
//		b.outcnt += len(p)
//	}
//
//	// RIGHT: hold one lock across the check, the copy and the update
//	b.mu.Lock()
//	defer b.mu.Unlock()
//
// Constant indexes into slices whose length nobody else changes, unsigned
// values read once and checked against the slice's length on every path to
// the index (`if i < len(buf) { buf[i] }`, or a loop that grows the slice
// until it holds the index, `for len(s) <= int(i) { s = append(s, 0) }`),
// and indexes reduced into range
// where they are used are not reported: an unsigned remainder by the
// length (a ring buffer's `buf[n%uint64(len(buf))]`), a mask with the
// length less one (`buf[n&(len(buf)-1)]`), or, for an array, a remainder
// or mask by a constant within its length. A signed remainder is still
// reported (it is negative for a negative operand), and so is a slice
// replaced between the read its length came from and the read it is
// indexed through.
//
// Nor is a ring buffer's position kept in range by every store to it, the
// index read straight from the position field f and the slice from the
// field s of the same object (`r.ids[r.index]` after `r.index = (r.index
// + 1) % len(r.ids)`): when s is set only while the object is built (its
// length never changes once it is shared; an append or a reslice stored
// back is a store) and every store to f outside construction stores a
// remainder `e % len(o.s)` (or `e % o.z`, z a field that every composite
// literal making the object sets to the length of the make it stores to
// s, and that nothing else stores) of o, the object whose f it writes,
// with e not negative: of an unsigned type, a constant at least 0, or `x +
// c` with x a read of f and c a constant at least 0, while construction
// stores only constants at least -c to f (a ring that starts at -1). Go's
// % keeps the sign of its dividend, which is why e must not be negative.
// The value construction leaves (the -1) may still be out of range, so the
// index read must also follow such a store to the same address in its own
// function, or construction must store only 0 (out of range only for an
// empty slice, which every index is). Both fields must be unexported
// fields of a named struct that no code of the package copies whole, their
// addresses only loaded from and stored to. Assumed: the object reaches
// the reading goroutine through synchronization, so its construction
// happens before the reader's own store. A mask `n & (len(buf)-1)` stored
// to the position is not taken: the length need not be a power of two.
//
// Known false-positive shapes: an index that is racy but kept in range by
// the program's logic elsewhere than at the point of use, and indexes that
// are updated under synchronization the analysis does not model.
//
// To suppress a report, put
//
//	//precog:ignore con-index <reason>
//
// on the reported line or the line above, or //nolint:precog.
package conindex
