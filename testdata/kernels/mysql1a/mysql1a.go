// Package mysql1a is the MySQL1-A kernel (OSCS, oscs.txt Table 2): a
// non-race atomicity violation on the binary log's status.
//
// Rotating the binary log closes the current file and opens the next one.
// Rotate moves l.status to logClosed in one critical section and to
// logOpened in a later one (MYSQL_LOG::new_file); Append, on a session
// goroutine, logs a statement only if l.status is logOpened and otherwise
// drops it, as a log that is being shut down does. Every access holds l.mu,
// so there is no data race, but a remote goroutine can read the
// intermediate status.
//
// Failing interleaving:
//
//	rotate goroutine                     session goroutine
//	S1 l.status = logClosed
//	                                     S3 if l.status == logOpened: false,
//	                                        the statement is not logged
//	S2 l.status = logOpened
//	the log misses a committed statement: a replica built from it differs
//
// The test's normal schedule hides the bug: the session commits 2 ms after
// the rotation has finished.
package mysql1a

import "sync"

const (
	logOpened = iota + 1
	logClosed
)

// Log is the binary log.
type Log struct {
	mu     sync.Mutex
	status int
	file   int // the number of the current file
	events []string
}

// NewLog returns an open log.
func NewLog() *Log { return &Log{status: logOpened, file: 1} }

// Rotate closes the current file and opens the next one.
func (l *Log) Rotate() {
	l.mu.Lock()
	l.status = logClosed // S1
	l.mu.Unlock()

	next := flush(l)

	l.mu.Lock()
	l.file = next
	l.status = logOpened // S2
	l.mu.Unlock()
}

// flush stands for writing and closing the old file, outside the lock.
func flush(l *Log) int { return 2 }

// Append logs a committed statement, unless the log is not open.
func (l *Log) Append(stmt string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.status != logOpened { // S3
		return false
	}
	l.events = append(l.events, stmt)
	return true
}
