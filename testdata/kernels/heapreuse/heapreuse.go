// Package heapreuse is a data race beside a negative control that only an
// address could confuse with it, the heap's counterpart of stackreuse.
// Share writes into one buffer that every worker shares, without a lock:
// a race. Fill gives each worker a buffer of its own, on the heap (too big
// for a goroutine's stack): no race, although the workers' ends are not
// ordered before the next worker's start, and a collection between two
// workers frees one buffer for the next to be allocated at its address.
// The recording counts collections (GC epochs) to tell such addresses
// apart, but the count comes from a finalizer and lags the collection
// (here as long as the test: a finalizer of the test's own waits), so the
// recording makes two workers' buffers one location and predicts a race
// on it. (A struct made by &T{...} or new(T) would not be: its allocation
// is recorded and starts new locations. The buffers are arrays made by
// make, whose allocation is not.) Forced, the race's sites ran in both orders, and precog
// "confirmed" it; in the order where the later worker writes first, the
// earlier one still holds its buffer, so the two writes touch different
// memory, and the race is not confirmed now.
package heapreuse

// A buf's data is too big for a goroutine's stack: it is on the heap.
type buf struct{ data []int64 }

func (b *buf) fill(v int64) { b.data[0] = v }

func (b *buf) add(v int64) { b.data[1] += v }

// newBuf returns a buf of 160 KiB, made by make: the recording does not
// see it as an allocation. A struct made by &T{...} or new(T) is one (an
// EvNew, which starts a new location at each of its words: shim.New), and
// the data inside one would be told apart from the buffer before it at
// its address, as the buf struct is.
func newBuf() *buf { return &buf{data: make([]int64, 20<<10)} }

// Fill fills a buffer of its own, through an interface (filler), and
// says when it is done.
func Fill(done chan<- int) {
	var f filler = newBuf()
	f.fill(1)
	done <- 0
}

// Share adds to the buffer b that every worker shares, without a lock,
// and says when it is done.
func Share(b *buf, done chan<- int) {
	b.add(1)
	done <- 0
}

// A filler is what Fill fills its buffer through. precog records a write
// only where the object may be shared (pipeline/instrument's shared
// locations): a buffer made and filled by a direct call before anything
// else sees it is local, its write unrecorded, and this control, which is
// about the recording pairing two workers' buffers at one address, would
// pair nothing. Through an interface the analysis keeps the buffer shared.
type filler interface{ fill(int64) }
