// Package flagkeys: the elements of an array of flags, each a try-lock of
// its own when every index that addresses it is a constant, at the
// access or at every call of a helper that takes the index as a parameter
// (netpoll's connection locker: lock(k) swaps keychain[k] from 0 to 1,
// unlock(k) stores 0 to it, and the callers pass processing or flushing).
// Near misses, held nowhere: a helper called with an index that is not a
// constant (every element then is suspect), a helper whose value is taken
// (its callers are unknown), a deferred unlock helper, an element that is
// also set to a value that is not a constant, and a swap in a loop that
// may give up (an acquisition left unseen, which holds nothing).
package flagkeys

import (
	"runtime"
	"sync/atomic"
)

func mark() {}

type key int32

const (
	closing key = iota
	processing
	flushing
	total
)

type locker struct {
	keychain [total]int32
}

func (l *locker) lock(k key) bool {
	return atomic.CompareAndSwapInt32(&l.keychain[k], 0, 1)
}

func (l *locker) unlock(k key) {
	atomic.StoreInt32(&l.keychain[k], 0)
}

func (l *locker) status(k key) int32 {
	return atomic.LoadInt32(&l.keychain[k])
}

// closeBy sets closing to a value its caller says, so closing is no lock.
func (l *locker) closeBy(w int32) bool {
	return atomic.CompareAndSwapInt32(&l.keychain[closing], 0, w)
}

// stop takes flushing for good, or sees someone else did: it may return
// without holding it, and its swap is left unseen.
func (l *locker) stop(k key) {
	for !atomic.CompareAndSwapInt32(&l.keychain[k], 0, 2) && atomic.LoadInt32(&l.keychain[k]) != 2 {
		runtime.Gosched()
	}
}

type conn struct {
	locker
	buf []byte
}

func (c *conn) process() {
	if !c.lock(processing) {
		mark() // want `^held: none$`
		return
	}
	mark() // want `^held: locker.keychain\[1\]\(w\)$`
	c.buf = c.buf[:0]
	if c.status(closing) != 0 && c.lock(flushing) {
		mark() // want `^held: locker.keychain\[1\]\(w\), locker.keychain\[2\]\(w\)$`
		c.unlock(flushing)
	}
	c.unlock(processing)
	mark() // want `^held: none$`
}

func (c *conn) flush() {
	if c.lock(flushing) {
		mark() // want `^held: locker.keychain\[2\]\(w\)$`
		c.unlock(flushing)
	}
}

func (c *conn) close() {
	if c.closeBy(1) {
		mark() // want `^held: none$`
	}
	c.stop(flushing)
	mark() // want `^held: none$`
}

// direct addresses the elements by constant indexes, with no helper.
type direct struct {
	slots [2]uint32
}

func (d *direct) run() {
	if atomic.CompareAndSwapUint32(&d.slots[1], 0, 1) {
		mark() // want `^held: direct.slots\[1\]\(w\)$`
		atomic.StoreUint32(&d.slots[1], 0)
	}
}

// anyKey's helper is called with an index that is not a constant: every
// element may be the one it clears.
type anyKey struct {
	keys [2]int32
}

func (a *anyKey) take(k int) bool { return atomic.CompareAndSwapInt32(&a.keys[k], 0, 1) }
func (a *anyKey) give(k int)      { atomic.StoreInt32(&a.keys[k], 0) }
func (a *anyKey) giveAll(n int) {
	for i := range n {
		a.give(i)
	}
}

func (a *anyKey) run() {
	if a.take(0) {
		mark() // want `^held: none$`
		a.give(0)
	}
}

// valued's helper value is taken, so its calls are not all known.
type valued struct {
	keys [2]int32
}

func (v *valued) take(k int) bool { return atomic.CompareAndSwapInt32(&v.keys[k], 0, 1) }
func (v *valued) give(k int)      { atomic.StoreInt32(&v.keys[k], 0) }

func (v *valued) run() func(int) {
	if v.take(0) {
		mark() // want `^held: none$`
		v.give(0)
	}
	return v.give
}

// deferred's unlock helper is deferred: held until the return.
type deferred struct {
	keys [2]int32
	n    int
}

func (d *deferred) take(k int) bool { return atomic.CompareAndSwapInt32(&d.keys[k], 0, 1) }
func (d *deferred) give(k int)      { atomic.StoreInt32(&d.keys[k], 0) }

func (d *deferred) run() {
	if !d.take(1) {
		return
	}
	defer d.give(1)
	mark() // want `^held: deferred.keys\[1\]\(w\)$`
	d.n++
}

// twice's element 1 is unlocked by a deferred call and, before it, by a
// call: the deferred one clears what another goroutine may hold by then.
type twice struct {
	keys [2]int32
	n    int
}

func (t *twice) take(k int) bool { return atomic.CompareAndSwapInt32(&t.keys[k], 0, 1) }
func (t *twice) give(k int)      { atomic.StoreInt32(&t.keys[k], 0) }

func (t *twice) run() {
	if !t.take(1) {
		return
	}
	defer t.give(1)
	mark() // want `^held: none$`
	t.n++
	t.give(1)
}

// forced's element 0 is also stored a value its caller gives; element 1
// is a lock still.
type forced struct {
	keys [2]int32
}

func (f *forced) take(k int) bool    { return atomic.CompareAndSwapInt32(&f.keys[k], 0, 1) }
func (f *forced) give(k int)         { atomic.StoreInt32(&f.keys[k], 0) }
func (f *forced) set(k int, v int32) { atomic.StoreInt32(&f.keys[k], v) }

func (f *forced) run(v int32) {
	if f.take(0) {
		mark() // want `^held: none$`
		f.give(0)
	}
	if f.take(1) {
		mark() // want `^held: forced.keys\[1\]\(w\)$`
		f.give(1)
	}
	f.set(0, v)
}

// eager's helper returns true on a path that did not swap: it is no
// try-lock at its calls (nor is its swap an unlock).
type eager struct {
	keys [2]int32
}

func (e *eager) take(k int, force bool) bool {
	if force {
		return true
	}
	return atomic.CompareAndSwapInt32(&e.keys[k], 0, 1)
}

func (e *eager) give(k int) { atomic.StoreInt32(&e.keys[k], 0) }

func (e *eager) run(force bool) {
	if e.take(1, force) {
		mark() // want `^held: none$`
		e.give(1)
	}
}
