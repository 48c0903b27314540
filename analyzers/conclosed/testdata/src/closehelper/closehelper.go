// Package closehelper: a close on the branch where a helper returned its
// CompareAndSwap of a flag that is never reset runs on the one goroutine
// that won it (goleveldb's `if !db.setClosed() { return ErrClosed }`
// before close(db.closeC)); a helper that returns a plain read decides
// nothing.
package closehelper

import "sync/atomic"

type DB struct {
	closed uint32
	closeC chan struct{}
}

func (db *DB) setClosed() bool { return atomic.CompareAndSwapUint32(&db.closed, 0, 1) }

func (db *DB) Close() {
	if !db.setClosed() {
		return
	}
	close(db.closeC)
}

func UseDB(db *DB) {
	go db.Close()
	db.Close()
}

type Log struct {
	closed bool
	closeC chan struct{}
}

func (l *Log) open() bool { return !l.closed }

func (l *Log) Close() {
	if !l.open() {
		return
	}
	l.closed = true
	close(l.closeC) // want `close of closed channel: l.closeC may also be closed by \(\*Log\).Close`
}

func UseLog(l *Log) {
	go l.Close()
	l.Close()
}
