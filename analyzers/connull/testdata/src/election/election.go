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
