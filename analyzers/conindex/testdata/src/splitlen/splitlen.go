// Package splitlen: a slice's length taken in one critical section and
// the slice indexed with it in the next, another goroutine's section
// truncating the slice between them (the atomicity shape: a Len, then an
// At): the common lock does not protect the index, which was computed
// before the lock was taken again (Buf: reported; silent before, when
// the lock held at the index and at the write was taken as enough).
// Silent beside it: the length taken and the slice indexed in one section
// (Whole), and a second section that checks the index against the
// length anew (Checked), or a loop that takes the length and indexes in
// one section on every turn (Turns).
package splitlen

import "sync"

type Buf struct {
	mu    sync.Mutex
	items []int
}

func (b *Buf) Reset() {
	b.mu.Lock()
	b.items = b.items[:0]
	b.mu.Unlock()
}

func (b *Buf) Last() int {
	b.mu.Lock()
	n := len(b.items)
	b.mu.Unlock()
	if n == 0 {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.items[n-1] // want `b.items\[n - 1\] may be out of range: b.items is replaced concurrently by \(\*Buf\).Reset between the critical section that took its length and this one`
}

func RunBuf(b *Buf) {
	go b.Reset()
	b.Last()
}

type Whole struct {
	mu    sync.Mutex
	items []int
}

func (b *Whole) Reset() {
	b.mu.Lock()
	b.items = b.items[:0]
	b.mu.Unlock()
}

func (b *Whole) Last() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := len(b.items)
	if n == 0 {
		return 0
	}
	return b.items[n-1]
}

func RunWhole(b *Whole) {
	go b.Reset()
	b.Last()
}

type Checked struct {
	mu    sync.Mutex
	items []uint
}

func (b *Checked) Reset() {
	b.mu.Lock()
	b.items = b.items[:0]
	b.mu.Unlock()
}

func (b *Checked) Last() uint {
	b.mu.Lock()
	n := uint(len(b.items))
	b.mu.Unlock()
	if n == 0 {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if i := n - 1; i < uint(len(b.items)) {
		return b.items[i]
	}
	return 0
}

func RunChecked(b *Checked) {
	go b.Reset()
	b.Last()
}

// Turns: a loop that locks, checks the index against the length, indexes
// and unlocks on each turn (nbio's send queue): the length and the index
// are one section's, turn by turn (silent).
type Turns struct {
	mu    sync.Mutex
	items []int
}

func (b *Turns) Reset() {
	b.mu.Lock()
	b.items = b.items[:0]
	b.mu.Unlock()
}

func (b *Turns) Drain() (sum int) {
	for i := 0; ; i++ {
		b.mu.Lock()
		if len(b.items) <= i {
			b.mu.Unlock()
			return sum
		}
		sum += b.items[i]
		b.mu.Unlock()
	}
}

func RunTurns(b *Turns) {
	go b.Reset()
	b.Drain()
}
