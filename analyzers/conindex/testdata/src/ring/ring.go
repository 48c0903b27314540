// Package ring: ring buffers whose write position another goroutine
// advances without the reader's lock. An index reduced into the buffer's
// range where it is used (an unsigned remainder by the length, a mask with
// the length less one or with a constant below an array's length) cannot
// be out of range whatever the position's value: silent. Reported beside
// them: a signed remainder (negative for a negative position), a
// remainder by a constant larger than the buffer, a mask of a slice by a
// constant, and a buffer replaced between the length and the index.
package ring

import "sync"

type Log struct {
	mu    sync.Mutex
	buf   []string
	arr   [64]string
	next  uint64
	inext int
}

// Run advances the write positions and replaces the buffer on other
// goroutines, unlocked, while it writes the log.
func (l *Log) Run(s string) {
	go func() {
		l.next++
		l.inext++
	}()
	go func() {
		l.mu.Lock()
		l.buf = make([]string, 8)
		l.mu.Unlock()
	}()
	l.Remainder(s)
	l.Mask(s)
	l.ArrayRemainder(s)
	l.Signed(s)
	l.TooLarge(s)
	l.SliceMask(s)
	l.Replaced(s)
}

func (l *Log) Remainder(s string) {
	l.mu.Lock()
	l.buf[l.next%uint64(len(l.buf))] = s
	l.mu.Unlock()
}

func (l *Log) Mask(s string) {
	buf := l.arr[:]
	buf[l.inext&(len(buf)-1)] = s
}

func (l *Log) ArrayRemainder(s string) {
	l.arr[l.next%uint64(len(l.arr))] = s
	l.arr[l.next%32] = s
	l.arr[l.inext&63] = s
}

func (l *Log) Signed(s string) {
	l.mu.Lock()
	l.buf[l.inext%len(l.buf)] = s // want `l.buf\[l.inext % len\(l.buf\)\] may be out of range: l.inext is written concurrently`
	l.mu.Unlock()
}

func (l *Log) TooLarge(s string) {
	l.arr[l.next%100] = s // want `may be out of range: l.next is written concurrently`
}

func (l *Log) SliceMask(s string) {
	l.mu.Lock()
	l.buf[l.inext&7] = s // want `may be out of range: l.inext is written concurrently`
	l.mu.Unlock()
}

func (l *Log) Replaced(s string) {
	n := uint64(len(l.buf))
	l.buf[l.next%n] = s // want `may be out of range`
}
