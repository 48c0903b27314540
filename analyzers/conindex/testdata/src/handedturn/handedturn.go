// Package handedturn: a reader goroutine makes one block per turn of its
// loop through an exported constructor that hands a nil receiver to the
// method that allocates (lz4's NewFrameDataBlock returns
// (*FrameDataBlock)(nil).init(f)), reads into it through an exported
// method that retries on its own receiver, and hands it to a goroutine
// that closes it. Each turn's block is a new object, read before the
// start of the goroutine that closes it: silent. The same block read
// turn after turn while the goroutines of earlier turns close it (one
// connection's buffer handed to several goroutines), or a block that the
// constructor may take from a cache, is reported.
package handedturn

import "errors"

var errSize = errors.New("size")

type Block struct {
	data []byte
}

// NewBlock makes a block: init allocates when its receiver is nil.
func NewBlock() *Block {
	return (*Block)(nil).init()
}

func (b *Block) init() *Block {
	if b == nil {
		b = new(Block)
	}
	b.data = make([]byte, 64)
	return b
}

var cache = &Block{data: make([]byte, 64)}

// Cached may return the one cached block.
func Cached(reuse bool) *Block {
	var b *Block
	if reuse {
		b = cache
	}
	return b.init()
}

// Read sizes the block's data, after checking its capacity; a size too
// large is read again at the largest.
func (b *Block) Read(size int) error {
	if size > 64 {
		return b.Read(64)
	}
	if size > cap(b.data) {
		return errSize
	}
	b.data = b.data[:size]
	return nil
}

func (b *Block) Reread(size int) error {
	if size > cap(b.data) {
		return errSize
	}
	b.data = b.data[:size] // want `b.data\[:size\] may be out of range: b.data is replaced concurrently by \(\*Block\).Close`
	return nil
}

func (b *Block) Fill(size int) error {
	if size > cap(b.data) {
		return errSize
	}
	b.data = b.data[:size] // want `b.data\[:size\] may be out of range: b.data is replaced concurrently by \(\*Block\).Close`
	return nil
}

func (b *Block) Close() {
	b.data = nil
}

// Decode reads each block on one goroutine and sums it on another, which
// closes it: one block per turn.
func Decode(sizes []int, out chan<- int) {
	go func() {
		for _, n := range sizes {
			block := NewBlock()
			if err := block.Read(n); err != nil {
				block.Close()
				break
			}
			go func() {
				defer block.Close()
				out <- len(block.data)
			}()
		}
	}()
}

// DecodeShared reads every turn into one block, which each turn's
// goroutine closes: reported.
func DecodeShared(sizes []int, out chan<- int) {
	go func() {
		block := NewBlock()
		for _, n := range sizes {
			if err := block.Reread(n); err != nil {
				break
			}
			go func() {
				defer block.Close()
				out <- len(block.data)
			}()
		}
	}()
}

// DecodeCached takes each turn's block from Cached, which may return the
// cached block every turn: reported.
func DecodeCached(sizes []int, out chan<- int) {
	go func() {
		for _, n := range sizes {
			block := Cached(n > 8)
			if err := block.Fill(n); err != nil {
				break
			}
			go func() {
				defer block.Close()
				out <- len(block.data)
			}()
		}
	}()
}
