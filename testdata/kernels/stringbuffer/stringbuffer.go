// Package stringbuffer is the Unicorn StringBuffer kernel (unicorn.txt
// Table III, the Java 1.4 library's StringBuffer rewritten as a Go type
// with per-method locking): a multi-variable atomicity violation, pattern
// P14 of Table I, R1(x) W2(x) W2(y) R1(y).
//
// sb.Append(other) locks other to read its length (S1), unlocks it, and
// locks it again to copy that many characters out of it (S4). Each method
// is atomic, the two together are not: SetLength on another goroutine
// shortens other in between, setting its count (S2) and replacing its
// characters with a copy that is no longer long enough (S3).
//
// Failing interleaving (x is other.count, y is other.value):
//
//	append goroutine                 truncate goroutine
//	S1 n := other.Length()
//	                                 S2 other.count = 0
//	                                 S3 other.value = other.value[:0:0]
//	S4 other.GetChars(0, n, ...)
//	panic: runtime error: slice bounds out of range
//
// (Java throws StringIndexOutOfBoundsException.) In the usual schedule the
// append takes microseconds and the truncation comes later (or earlier):
// the pairs R1(x) W2(x) and W2(y) R1(y) each occur in passing runs, only
// their combination fails.
package stringbuffer

import "sync"

// StringBuffer is a mutable string whose methods lock it.
type StringBuffer struct {
	mu    sync.Mutex
	value []byte
	count int
}

// New returns a buffer holding s.
func New(s string) *StringBuffer {
	return &StringBuffer{value: []byte(s), count: len(s)}
}

// Length returns the number of characters.
func (sb *StringBuffer) Length() int {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	return sb.count // S1
}

// GetChars copies the characters from srcBegin to srcEnd into dst.
func (sb *StringBuffer) GetChars(srcBegin, srcEnd int, dst []byte) {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	copy(dst, sb.value[srcBegin:srcEnd]) // S4
}

// SetLength truncates or extends the buffer to n characters. The buffer
// may share its characters with a String made from it, so it copies them
// first (Java's copyWhenShared).
func (sb *StringBuffer) SetLength(n int) {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	sb.count = n                                    // S2
	sb.value = append([]byte(nil), sb.value[:n]...) // S3
}

// Append appends other's characters.
func (sb *StringBuffer) Append(other *StringBuffer) {
	n := other.Length()
	sb.mu.Lock()
	defer sb.mu.Unlock()
	buf := make([]byte, sb.count+n)
	copy(buf, sb.value[:sb.count])
	other.GetChars(0, n, buf[sb.count:])
	sb.value = buf
	sb.count += n
}

// String returns the characters.
func (sb *StringBuffer) String() string {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	return string(sb.value[:sb.count])
}
