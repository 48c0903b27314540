// Package mysqllog is the Unicorn MysqlLog kernel (unicorn.txt Fig. 2 and
// Table III, extracted from MySQL bug 791): a single-variable atomicity
// violation, pattern P6 of Table I, W1(x) R2(x) W1(x), "a temporary result
// between local writes is not supposed to be seen by the other goroutine
// but is".
//
// NewFile rotates the binary log: it saves the log type, marks the log
// closed (S1) while it closes the old file and opens the next one, and
// restores the saved type (S3). Insert logs its transaction only if the
// log is not closed (S2). Every access is locked (LOCK_log), so go test
// -race has nothing to say; but NewFile marks the log closed and restores
// it in two critical sections, and Insert's can come between them.
//
// Failing interleaving:
//
//	rotate goroutine                 insert goroutine
//	   saved := l.logType
//	S1 l.logType = closed
//	   close the old file, open the next
//	                                 S2 if l.logType != closed { write }
//	                                    (skipped: the transaction is lost)
//	S3 l.logType = saved
//
// In the usual schedule the rotation takes microseconds and the insert
// comes later (W1 W1 R2, or R2 before the rotation: pairs that passing
// runs have too); a delay inside the rotation lets S2 see the temporary
// value.
package mysqllog

import (
	"fmt"
	"sync"
)

// LogType is the state of the binary log.
type LogType int

const (
	Closed LogType = iota
	Normal
)

type binFile struct {
	name    string
	entries []string
}

// BinLog is MySQL's binary log (MYSQL_LOG).
type BinLog struct {
	mu      sync.Mutex // LOCK_log
	logType LogType
	file    *binFile
	files   []*binFile // every file opened, in order
}

// NewBinLog returns an open binary log with its first file.
func NewBinLog() *BinLog {
	f := &binFile{name: "binlog.000001"}
	return &BinLog{logType: Normal, file: f, files: []*binFile{f}}
}

// NewFile closes the current file and opens the next (new_file).
func (l *BinLog) NewFile() {
	l.mu.Lock()
	saved := l.logType
	l.logType = Closed // S1
	n := len(l.files)
	l.mu.Unlock()
	next := &binFile{name: fmt.Sprintf("binlog.%06d", n+1)}
	l.mu.Lock()
	l.files = append(l.files, next)
	l.file = next
	l.logType = saved // S3
	l.mu.Unlock()
}

// Insert runs an insert and logs it (mysql_insert).
func (l *BinLog) Insert(tx string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.logType != Closed { // S2
		f := l.file
		f.entries = append(f.entries, tx)
	}
}

// Logged returns every transaction in the log's files, in order.
func (l *BinLog) Logged() []string {
	var all []string
	for _, f := range l.files {
		all = append(all, f.entries...)
	}
	return all
}
