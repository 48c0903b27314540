// Package batchflag: a tree that runs its batches one at a time under a
// try-lock made of a flag (Workiva/go-datastructures' palm ptree): the
// caller that wins CompareAndSwap(&running, 0, 1) fills the cache and
// hands the flag to the goroutine it starts, whose reset clears the cache,
// stores 0 and looks for the next batch. The cache is replaced and
// indexed only with the flag held: silent. Reported beside it: the same
// tree whose Abort also clears the flag without having won it, so that
// two batches may run at once.
package batchflag

import "sync/atomic"

type Tree struct {
	running uint64
	cache   []int
}

func (t *Tree) Insert(x int) { t.checkAndRun(x) }

func (t *Tree) checkAndRun(x int) {
	if atomic.CompareAndSwapUint64(&t.running, 0, 1) {
		t.cache = append(t.cache, x)
		go t.run()
	}
}

func (t *Tree) run() { t.reset() }

func (t *Tree) reset() {
	for i := range t.cache {
		t.cache[i] = 0
	}
	t.cache = t.cache[:0]
	atomic.StoreUint64(&t.running, 0)
	t.checkAndRun(0)
}

type Aborted struct {
	running uint64
	cache   []int
}

func (t *Aborted) Insert(x int) { t.checkAndRun(x) }

func (t *Aborted) Abort() { atomic.StoreUint64(&t.running, 0) }

func (t *Aborted) checkAndRun(x int) {
	if atomic.CompareAndSwapUint64(&t.running, 0, 1) {
		t.cache = append(t.cache, x)
		go t.run()
	}
}

func (t *Aborted) run() { t.reset() }

func (t *Aborted) reset() {
	for i := range t.cache {
		t.cache[i] = 0 // want `t.cache\[i\] may be out of range: t.cache is replaced concurrently by \(\*Aborted\).checkAndRun`
	}
	t.cache = t.cache[:0]
	atomic.StoreUint64(&t.running, 0)
	t.checkAndRun(0)
}
