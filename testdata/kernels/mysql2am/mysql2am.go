// Package mysql2am is the MySQL2-AM kernel (OSCS, oscs.txt Table 2): a
// non-race multi-variable atomicity violation between a table and its
// binary log.
//
// Update stores a row's new value in one critical section and appends the
// statement to the binary log in a later one (the table handler and the
// log take the lock separately). Two sessions update the same row. Every
// access holds db.mu, so there is no data race, but the table and the log
// are not updated together: the last logged value can differ from the row.
//
// Failing interleaving:
//
//	session 1                            session 2
//	S1 db.row = 1
//	                                     S2 db.row = 2
//	                                     db.binlog = append(db.binlog, 2)
//	db.binlog = append(db.binlog, 1)
//	the row holds 2 and the log replays to 1: a replica diverges
//
// The test's normal schedule hides the bug: session 2 updates 2 ms after
// session 1 has finished.
package mysql2am

import "sync"

// DB is a one-row table with its binary log.
type DB struct {
	mu     sync.Mutex
	row    int
	binlog []int
}

// Update sets the row to v and logs it.
func (db *DB) Update(v int) {
	db.mu.Lock()
	db.row = v // S1 S2
	db.mu.Unlock()

	db.mu.Lock()
	db.binlog = append(db.binlog, v)
	db.mu.Unlock()
}

// Replayed reports whether replaying the log gives the row's value.
func (db *DB) Replayed() bool {
	db.mu.Lock()
	defer db.mu.Unlock()
	return len(db.binlog) > 0 && db.binlog[len(db.binlog)-1] == db.row
}
