package raceatomic

import (
	"sync/atomic"
	"unsafe"
)

// Batch is a batch of items that one goroutine at a time owns.
type Batch struct {
	Items []int
}

// Buffer hands its one batch out by an atomic try-lock, as theine's read
// buffer hands out its policy buffers (held-out 27): returned holds the
// batch while it is free and nil while a goroutine owns it. Take's
// winning compare-and-swap takes it, Free stores it back once it has
// cleared it, so the next winner's appends come after the last owner's
// clearing: no race, nothing to report.
type Buffer struct {
	batch    unsafe.Pointer // *Batch, set once by NewBuffer
	returned unsafe.Pointer // batch while free, nil while owned
}

// NewBuffer returns a buffer whose batch is free.
func NewBuffer() *Buffer {
	b := &Buffer{batch: unsafe.Pointer(&Batch{})}
	atomic.StorePointer(&b.returned, b.batch)
	return b
}

// Take appends items to the batch and returns it, now owned by the
// caller until it calls Free; nil if another goroutine owns it.
func (b *Buffer) Take(items ...int) *Batch {
	if !atomic.CompareAndSwapPointer(&b.returned, b.batch, nil) {
		return nil
	}
	pb := (*Batch)(b.batch)
	pb.Items = append(pb.Items, items...)
	return pb
}

// Free clears the batch and gives it back.
func (b *Buffer) Free() {
	pb := (*Batch)(b.batch)
	clear(pb.Items)
	pb.Items = pb.Items[:0]
	atomic.StorePointer(&b.returned, b.batch)
}
