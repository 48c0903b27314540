// Package txlock: a function that locks and, where it fails, unlocks and
// returns an error (buntdb's Begin) holds the lock where its caller
// found the error nil, and not on the error's branch nor where the error
// is not tested. One that checks before it locks (database/sql's
// Conn.grabConn) does not: its check is not made under the lock.
package txlock

import (
	"errors"
	"sync"
)

func mark() {}

type DB struct {
	mu     sync.RWMutex
	closed bool
	n      int
}

type Tx struct {
	db       *DB
	writable bool
	funcd    bool
}

var errClosed = errors.New("closed")

func (tx *Tx) lock() {
	if tx.writable {
		tx.db.mu.Lock()
	} else {
		tx.db.mu.RLock()
	}
}

func (tx *Tx) unlock() {
	if tx.writable {
		tx.db.mu.Unlock()
	} else {
		tx.db.mu.RUnlock()
	}
}

func (db *DB) Begin(writable bool) (*Tx, error) {
	tx := &Tx{db: db, writable: writable}
	tx.lock()
	if db.closed {
		tx.unlock()
		return nil, errClosed
	}
	return tx, nil
}

func (tx *Tx) Commit() error {
	if tx.funcd {
		panic("no")
	}
	if tx.db == nil {
		return errClosed
	}
	tx.unlock()
	tx.db = nil
	return nil
}

func (tx *Tx) Rollback() error {
	if tx.funcd {
		panic("no")
	}
	if tx.db == nil {
		return errClosed
	}
	tx.unlock()
	tx.db = nil
	return nil
}

func (db *DB) managed(writable bool, fn func(tx *Tx) error) (err error) {
	var tx *Tx
	tx, err = db.Begin(writable)
	if err != nil {
		return
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
			return
		}
		if writable {
			err = tx.Commit()
		} else {
			err = tx.Rollback()
		}
	}()
	tx.funcd = true
	defer func() {
		tx.funcd = false
	}()
	mark() // want `held: DB.mu\(r\)`
	err = fn(tx)
	return
}

func (db *DB) Update(fn func(tx *Tx) error) error { return db.managed(true, fn) }

func (db *DB) bg() {
	db.Update(func(tx *Tx) error {
		mark() // want `held: DB.mu\(r\)`
		return nil
	})
}

func (db *DB) failed() {
	tx, err := db.Begin(true)
	if err != nil {
		mark() // want `held: none`
		return
	}
	mark() // want `held: DB.mu\(r\)`
	tx.unlock()
}

func (db *DB) unchecked() {
	tx, _ := db.Begin(true)
	mark() // want `held: none`
	_ = tx
}

func (db *DB) grab() (*DB, error) {
	if db.closed {
		return nil, errClosed
	}
	db.mu.RLock()
	return db, nil
}

func (db *DB) grabbed() {
	d, err := db.grab()
	if err != nil {
		return
	}
	mark() // want `held: none`
	d.mu.RUnlock()
}
