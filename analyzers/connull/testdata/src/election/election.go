// Package election: a CompareAndSwap from false to true on a flag that is
// never reset elects one goroutine per object; what only the winner does
// (a read, a nil store in a helper it calls) never meets on two
// goroutines.
package election

import "sync/atomic"

type Conn struct{ n int }

type Tx struct {
	done atomic.Bool
	conn *Conn
}

func (tx *Tx) Commit() int {
	if !tx.done.CompareAndSwap(false, true) {
		return 0
	}
	n := 0
	with(func() { n = tx.conn.n }) // elected through the closure: silent
	tx.close()
	return n
}

func (tx *Tx) Rollback() {
	if !tx.done.CompareAndSwap(false, true) {
		return
	}
	tx.close()
}

func (tx *Tx) close() { tx.conn = nil }

func with(f func()) { f() }

func Use(tx *Tx) {
	go tx.Rollback()
	tx.Commit()
}

// Abort stores nil without winning the flag: it may meet the winner's read.
type Stmt struct {
	done atomic.Bool
	conn *Conn
}

func (s *Stmt) Exec() int {
	if !s.done.CompareAndSwap(false, true) {
		return 0
	}
	return s.conn.n // want `s.conn may be nil when dereferenced here: \(\*Stmt\).Abort stores nil to it concurrently`
}

func (s *Stmt) Abort() { s.conn = nil }

func UseStmt(s *Stmt) {
	go s.Abort()
	s.Exec()
}

// A flag that is reset can be won twice: no election. Nor is it a
// try-lock (see locksets), since Free clears it without having won it.
type Pool struct {
	busy atomic.Bool
	conn *Conn
}

func (p *Pool) Get() int {
	if !p.busy.CompareAndSwap(false, true) {
		return 0
	}
	n := p.conn.n // want `p.conn may be nil when dereferenced here: \(\*Pool\).Drop stores nil to it concurrently`
	p.busy.Store(false)
	return n
}

func (p *Pool) Drop() {
	if !p.busy.CompareAndSwap(false, true) {
		return
	}
	p.conn = nil
}

func (p *Pool) Free() { p.busy.Store(false) }

func UsePool(p *Pool) {
	go p.Drop()
	go p.Free()
	p.Get()
}

// A helper that returns the CompareAndSwap elects as the CompareAndSwap
// does (goleveldb's DB.Close: `if !db.setClosed() { return ErrClosed }`):
// two Closes never both read and clear the journal.
type DB struct {
	closed  uint32
	journal *Conn
}

func (db *DB) setClosed() bool { return atomic.CompareAndSwapUint32(&db.closed, 0, 1) }

func (db *DB) isClosed() bool { return atomic.LoadUint32(&db.closed) != 0 }

func (db *DB) Close() int {
	if !db.setClosed() {
		return 0
	}
	n := db.journal.n
	db.journal = nil
	return n
}

func UseDB(db *DB) {
	go db.Close()
	if !db.isClosed() { // a load of the flag: still won only once
		db.Close()
	}
}

// A helper that may also return true without winning elects nobody.
type Log struct {
	closed  uint32
	force   bool
	journal *Conn
}

func (l *Log) setClosed() bool {
	if l.force {
		return true
	}
	return atomic.CompareAndSwapUint32(&l.closed, 0, 1)
}

func (l *Log) Close() int {
	if !l.setClosed() {
		return 0
	}
	n := l.journal.n // want `l.journal may be nil when dereferenced here: \(\*Log\).Close stores nil to it concurrently`
	l.journal = nil
	return n
}

func UseLog(l *Log) {
	go l.Close()
	l.Close()
}
