package trace

import (
	"cmp"
	"fmt"
	"io"
	"slices"
)

// A batchRef is a batch as OrderedReader's first pass found it: where its
// events start, whose they are, the goroutine's place when it starts, and
// how many of its events read (all of them, but for the batch that holds
// the damage that ends a broken trace).
type batchRef struct {
	off      int64  // file offset of the batch's first event
	g        uint64 // its goroutine
	seq, sub uint64 // the goroutine's place when the batch starts (its header)
	n        int    // events that read
	used     int    // their bytes
}

// window bounds, in bytes, of an open batch in OrderedReader's merge: a
// batch is read a window at a time, the window doubling as the batch is
// consumed, so that the many small batches open at once (one per goroutine
// alive across the merge's position) cost little and a long batch takes
// few reads.
const (
	minWindow = 512
	maxWindow = 256 << 10
)

// An OrderedReader reads the events of a trace in the global order, by
// (Seq, Sub, Goroutine) (see "Order" in the package doc), the order ReadAll
// returns, without holding the trace in memory. It makes two passes over
// an io.ReaderAt (a file, not a pipe):
//
//  1. NewOrderedReader reads the trace in file order with a Reader, keeping
//     of each batch only where it is, its goroutine, its header's place
//     and how many of its events read (about 50 bytes per batch of up to
//     64 KiB as the shim writes them). This pass finds padding,
//     uncommitted events and damage as Reader does, so the events are
//     exactly the ones Reader returns, and a broken trace ends in the
//     same error.
//  2. Next merges the batches: a batch is opened when the merge reaches
//     the place in its header (no event of it can come earlier), read
//     through a small window, and closed after its last event. Events
//     with the same (Seq, Sub, Goroutine), which only a goroutine id used
//     twice can give, come in file order, as ReadAll's stable sort left
//     them.
//
// Its memory is the batch index and one window per batch open at once:
// the batches of the goroutines whose batch spans the merge's position.
type OrderedReader struct {
	ra      io.ReaderAt
	header  Header
	state   State
	end     error      // what ends the events: nil at a clean end, else pass 1's damage
	cut     uint64     // the header's cut: the events end before the first with a seq past it; 0 for none
	err     error      // sticky error of Next
	batches []batchRef // by the place in their header
	next    int        // the first batch not opened yet
	open    []*openBatch
	free    []*openBatch
	events  int
}

// An openBatch is a batch that the merge has opened: a cursor over a
// window of it and its next event.
type openBatch struct {
	cursor
	ev   Event // the next event of the batch
	left int   // events of the batch after ev
	end  int64 // file offset where its events that read end
}

// NewOrderedReader reads the header of the trace in the first size bytes
// of r and indexes its batches (the first pass). Its errors are
// NewReader's, or an error reading r. A trace that is broken is not an
// error here: Next returns the events before the damage, then the error.
func NewOrderedReader(r io.ReaderAt, size int64) (*OrderedReader, error) {
	rd, err := NewReader(io.NewSectionReader(r, 0, size))
	if err != nil {
		return nil, err
	}
	var index []batchRef
	rd.index = &index
	var end error
	events := 0
	for {
		in, err := rd.countNext()
		if err != nil {
			if err != io.EOF {
				end = err
			}
			break
		}
		if in {
			events++
		}
	}
	if len(index) > 0 && index[len(index)-1].n == 0 {
		index = index[:len(index)-1]
	}
	o := &OrderedReader{ra: r, header: rd.Header(), state: rd.State(), end: end, cut: rd.cut, events: events}
	// The file order is the tie-break of the merge: keep it in off.
	o.batches = slices.Clip(index)
	slices.SortStableFunc(o.batches, func(a, b batchRef) int {
		return cmp.Or(cmp.Compare(a.seq, b.seq), cmp.Compare(a.sub, b.sub))
	})
	return o, nil
}

// Header returns the trace's header.
func (o *OrderedReader) Header() Header { return o.header }

// State returns the state the header's state block gave.
func (o *OrderedReader) State() State { return o.state }

// Len returns how many events Next returns before io.EOF or the damage.
func (o *OrderedReader) Len() int { return o.events }

// Next returns the next event in the global order. At the end of an intact
// trace it returns io.EOF; after the last event before damage, the error
// wrapping ErrBroken that Reader returns there; for a trace whose writer
// stopped early, that error after the last event up to its cut (see
// "Completeness"). After an error it returns the same error again.
func (o *OrderedReader) Next() (Event, error) {
	if o.err != nil {
		return Event{}, o.err
	}
	// Open the batches that could hold an event before the least next
	// event of those open: a batch's events come after the place in its
	// header.
	for o.next < len(o.batches) {
		b := &o.batches[o.next]
		if len(o.open) > 0 {
			top := &o.open[0].ev
			if cmp.Or(cmp.Compare(b.seq, top.Seq), cmp.Compare(b.sub, top.Sub)) >= 0 {
				break
			}
		}
		ob, err := o.openBatch(b)
		if err != nil {
			o.err = err
			return Event{}, err
		}
		o.next++
		o.push(ob)
	}
	if len(o.open) == 0 {
		o.err = o.end
		if o.err == nil {
			o.err = io.EOF
		}
		return Event{}, o.err
	}
	top := o.open[0]
	ev := top.ev
	if o.cut > 0 && ev.Seq > o.cut {
		// Every event after it in the order is past the cut too.
		o.err = o.end
		return Event{}, o.err
	}
	if top.left == 0 {
		o.pop()
		top.batch = top.batch[:0]
		o.free = append(o.free, top)
		return ev, nil
	}
	var err error
	if top.ev, err = top.decodeNext(o.ra); err != nil {
		o.err = err
		return Event{}, err
	}
	top.left--
	o.down(0)
	return ev, nil
}

// openBatch opens the batch b and decodes its first event.
func (o *OrderedReader) openBatch(b *batchRef) (*openBatch, error) {
	var ob *openBatch
	if n := len(o.free); n > 0 {
		ob, o.free = o.free[n-1], o.free[:n-1]
	} else {
		ob = new(openBatch)
	}
	buf := ob.batch[:0]
	if cap(buf) > minWindow {
		buf = nil // a large window is not kept for a small batch
	}
	ob.cursor = cursor{batch: buf, base: b.off, g: b.g, seq: b.seq, sub: b.sub}
	ob.left = b.n - 1
	ob.end = b.off + int64(b.used)
	var err error
	if ob.ev, err = ob.decodeNext(o.ra); err != nil {
		return nil, err
	}
	return ob, nil
}

// decodeNext decodes the batch's next event, reading more of the batch
// when the window holds only part of it. The first pass read every event
// that it decodes, so an error means the file changed since.
func (ob *openBatch) decodeNext(ra io.ReaderAt) (Event, error) {
	for {
		if ob.pos < len(ob.batch) {
			ev, err := ob.decode()
			if err == nil {
				return ev, nil
			}
			if ob.base+int64(len(ob.batch)) >= ob.end {
				return Event{}, fmt.Errorf("reading trace: the file changed while it was read: %w", err)
			}
		}
		// Slide the window to the next event and widen it.
		size := min(max(2*cap(ob.batch), minWindow), maxWindow)
		if size <= len(ob.batch)-ob.pos {
			size = 2 * (len(ob.batch) - ob.pos) // an event longer than the largest window
		}
		ob.base += int64(ob.pos)
		size = int(min(int64(size), ob.end-ob.base))
		if cap(ob.batch) < size {
			ob.batch = make([]byte, size)
		}
		ob.batch, ob.pos = ob.batch[:size], 0
		if _, err := ra.ReadAt(ob.batch, ob.base); err != nil {
			return Event{}, fmt.Errorf("reading trace: %w", err)
		}
		ob.want = size
	}
}

// less orders two open batches by their next events, then by file order
// (their windows lie inside their batches, which do not overlap).
func less(a, b *openBatch) bool {
	if a.ev.Seq != b.ev.Seq {
		return a.ev.Seq < b.ev.Seq
	}
	if a.ev.Sub != b.ev.Sub {
		return a.ev.Sub < b.ev.Sub
	}
	if a.ev.Goroutine != b.ev.Goroutine {
		return a.ev.Goroutine < b.ev.Goroutine
	}
	return a.base < b.base
}

func (o *OrderedReader) push(ob *openBatch) {
	o.open = append(o.open, ob)
	i := len(o.open) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !less(o.open[i], o.open[p]) {
			break
		}
		o.open[i], o.open[p] = o.open[p], o.open[i]
		i = p
	}
}

func (o *OrderedReader) pop() {
	n := len(o.open) - 1
	o.open[0] = o.open[n]
	o.open[n] = nil
	o.open = o.open[:n]
	if n > 0 {
		o.down(0)
	}
}

func (o *OrderedReader) down(i int) {
	n := len(o.open)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		j := l
		if r := l + 1; r < n && less(o.open[r], o.open[l]) {
			j = r
		}
		if !less(o.open[j], o.open[i]) {
			return
		}
		o.open[i], o.open[j] = o.open[j], o.open[i]
		i = j
	}
}
