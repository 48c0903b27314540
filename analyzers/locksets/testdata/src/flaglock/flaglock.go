// Package flaglock: a flag that a CompareAndSwap from 0 takes and a Store
// of 0 gives back is a try-lock, held on the branch where the swap won,
// in a goroutine the winner hands it to, and until the store (palm's
// ptree.running: checkAndRun swaps, starts operationRunner, whose last
// call, reset, stores 0). Near misses, held nowhere: a flag that another
// function clears without having won it, one that is also set by a plain
// Store, one whose address goes to a helper, and one that a whole struct
// value overwrites.
package flaglock

import "sync/atomic"

func mark() {}

type Tree struct {
	running uint64
	cache   []int
}

func (t *Tree) Insert(x int) {
	if atomic.CompareAndSwapUint64(&t.running, 0, 1) {
		mark() // want `^held: Tree.running\(w\)$`
		t.cache = append(t.cache, x)
		if len(t.cache) > 8 {
			go t.run()
			mark() // want `^held: none$`
			return
		}
		t.run()
		mark() // want `^held: none$`
		return
	}
	mark() // want `^held: none$`
}

// run is started by a go statement and called by Insert, holding the
// flag at both.
func (t *Tree) run() {
	mark() // want `^held: Tree.running\(w\)$`
	t.reset()
}

func (t *Tree) reset() {
	mark() // want `^held: Tree.running\(w\)$`
	t.cache = t.cache[:0]
	atomic.StoreUint64(&t.running, 0)
	mark() // want `^held: none$`
}

// Busy's flag is an atomic.Bool.
type Busy struct {
	busy atomic.Bool
	n    int
}

func (b *Busy) Do() bool {
	if !b.busy.CompareAndSwap(false, true) {
		mark() // want `^held: none$`
		return false
	}
	mark() // want `^held: Busy.busy\(w\)$`
	b.n++
	b.busy.Store(false)
	mark() // want `^held: none$`
	return true
}

// Aborted's flag is also cleared by Abort, which did not win it.
type Aborted struct {
	running int32
}

func (a *Aborted) Run() {
	if atomic.CompareAndSwapInt32(&a.running, 0, 1) {
		mark() // want `^held: none$`
		atomic.StoreInt32(&a.running, 0)
	}
}

func (a *Aborted) Abort() { atomic.StoreInt32(&a.running, 0) }

// Forced's flag is also set by a plain Store.
type Forced struct {
	running uint32
}

func (f *Forced) Run() {
	if atomic.CompareAndSwapUint32(&f.running, 0, 1) {
		mark() // want `^held: none$`
		atomic.StoreUint32(&f.running, 0)
	}
}

func (f *Forced) Force() { atomic.StoreUint32(&f.running, 1) }

// Leaked's flag address goes to a helper the check does not follow.
type Leaked struct {
	running uint32
}

func (l *Leaked) Run() {
	if atomic.CompareAndSwapUint32(&l.running, 0, 1) {
		mark() // want `^held: none$`
		clear32(&l.running)
	}
}

func clear32(p *uint32) { atomic.StoreUint32(p, 0) }

// Overwritten's flag is set back to 0 by a store of the whole struct.
type Overwritten struct {
	running uint32
	n       int
}

func (o *Overwritten) Run() {
	if atomic.CompareAndSwapUint32(&o.running, 0, 1) {
		mark() // want `^held: none$`
		atomic.StoreUint32(&o.running, 0)
	}
}

func (o *Overwritten) Reset() { *o = Overwritten{} }
