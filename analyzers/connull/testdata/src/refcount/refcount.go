// Package refcount is a memtable with a reference count (goleveldb's
// memDB): the goroutine whose decrement brings the count to 0 clears the
// fields, and every reader holds a reference it took from a getter that
// increments the count under the lock guarding db.mem. The readers
// holding one, and the reads on the zero branch itself, are silent; a
// read after the reader dropped or handed away its reference, or through
// a getter that takes none or reloads the field after the unlock, is
// reported, and so is one through a getter that increments the old value
// and returns the new one it stored. So for a reference kept in a variable of the caller by a
// closure it calls (goleveldb's flush): read back, it is still held,
// unless a closure that drops it ran in between.
package refcount

import (
	"sync"
	"sync/atomic"
)

type buf struct{ data []byte }

func (b *buf) Len() int { return len(b.data) }

type mem struct {
	db  *DB
	buf *buf
	ref int32
}

func (m *mem) incref() { atomic.AddInt32(&m.ref, 1) }

func (m *mem) decref() {
	if ref := atomic.AddInt32(&m.ref, -1); ref == 0 {
		m.db.pool <- m.buf // the last holder alone runs this branch
		m.db = nil
		m.buf = nil
	} else if ref < 0 {
		panic("negative ref")
	}
}

type DB struct {
	mu   sync.RWMutex
	mem  *mem
	pool chan *buf
}

func Open() *DB {
	db := &DB{pool: make(chan *buf, 1)}
	db.mem = &mem{db: db, buf: &buf{}, ref: 1}
	for range 2 {
		go db.readLoop()
	}
	return db
}

// readLoop runs the readers on goroutines of their own.
func (db *DB) readLoop() {
	for {
		db.Get()
		db.GetAfterDrop()
		db.GetHanded()
		db.Peek()
		db.GetLoose()
		db.GetRetry()
		db.GetRetryDropped()
		db.GetSwap()
	}
}

// Rotate replaces the memtable and drops db.mem's reference to the old
// one.
func (db *DB) Rotate() {
	m := &mem{db: db, buf: &buf{}, ref: 1}
	db.mu.Lock()
	old := db.mem
	db.mem = m
	db.mu.Unlock()
	old.decref()
}

// getMem returns db.mem with a reference taken for the caller, or nil.
func (db *DB) getMem() *mem {
	db.mu.RLock()
	defer db.mu.RUnlock()
	if db.mem != nil {
		db.mem.incref()
	}
	return db.mem
}

// Get reads under the reference it took.
func (db *DB) Get() int {
	m := db.getMem()
	if m == nil {
		return 0
	}
	defer m.decref()
	return m.buf.Len()
}

// GetAfterDrop reads after it dropped its reference.
func (db *DB) GetAfterDrop() int {
	m := db.getMem()
	if m == nil {
		return 0
	}
	m.decref()
	return m.buf.Len() // want `m.buf may be nil when used to call \(\*buf\).Len here: \(\*mem\).decref stores nil to it concurrently`
}

// GetHanded reads after it handed its reference to a goroutine that
// drops it.
func (db *DB) GetHanded() int {
	m := db.getMem()
	if m == nil {
		return 0
	}
	go m.decref()
	return m.buf.Len() // want `m.buf may be nil when used to call \(\*buf\).Len here: \(\*mem\).decref stores nil to it concurrently`
}

// peek takes no reference.
func (db *DB) peek() *mem {
	db.mu.RLock()
	defer db.mu.RUnlock()
	return db.mem
}

func (db *DB) Peek() int {
	return db.peek().buf.Len() // want `buf may be nil when used to call \(\*buf\).Len here: \(\*mem\).decref stores nil to it concurrently`
}

// getMemLoose reloads db.mem after the unlock, when rotate may have
// replaced it and dropped the last reference to the new value's object.
func (db *DB) getMemLoose() *mem {
	db.mu.RLock()
	if db.mem != nil {
		db.mem.incref()
	}
	db.mu.RUnlock()
	return db.mem
}

func (db *DB) GetLoose() int {
	m := db.getMemLoose()
	if m == nil {
		return 0
	}
	defer m.decref()
	return m.buf.Len() // want `m.buf may be nil when used to call \(\*buf\).Len here: \(\*mem\).decref stores nil to it concurrently`
}

// GetRetry keeps its reference in a variable of its own that a closure
// it calls sets and reads back.
func (db *DB) GetRetry() (n int) {
	var m *mem
	try := func() bool {
		m = db.getMem()
		if m == nil {
			return false
		}
		n = m.buf.Len()
		return true
	}
	for !try() {
	}
	m.decref()
	return n
}

// GetRetryDropped reads the variable back after a closure dropped the
// reference it holds.
func (db *DB) GetRetryDropped() (n int) {
	var m *mem
	try := func() bool {
		m = db.getMem()
		if m == nil {
			return false
		}
		drop := func() { m.decref() }
		drop()
		n = m.buf.Len() // want `m.buf may be nil when used to call \(\*buf\).Len here: \(\*mem\).decref stores nil to it concurrently`
		return true
	}
	for !try() {
	}
	return n
}

// getMemSwap increments the value it found and returns the one it stored.
func (db *DB) getMemSwap(fresh *mem) *mem {
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.mem != nil {
		db.mem.incref()
	}
	db.mem = fresh
	return db.mem
}

func (db *DB) GetSwap() int {
	m := db.getMemSwap(&mem{db: db, buf: &buf{}, ref: 1})
	defer m.decref()
	return m.buf.Len() // want `m.buf may be nil when used to call \(\*buf\).Len here: \(\*mem\).decref stores nil to it concurrently`
}
