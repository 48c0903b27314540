// Package mysqldelete is the Unicorn MysqlDelete kernel (unicorn.txt Fig. 3
// and Table III, extracted from MySQL bug 169): a multi-variable atomicity
// violation, pattern P9 of Table I, W1(x) W2(x) W2(y) W1(y), "the final
// values of x and y are inconsistent".
//
// The binary log must record the table's updates in the order they were
// made. Insert (mysql_insert) inserts a row under LOCK_open (S2) and logs
// it under LOCK_log (S3) before it releases LOCK_open. Delete
// (generate_table) removes the row under LOCK_open (S1) but releases it
// before it logs the removal under LOCK_log (S4): each step is locked, the
// two together are not.
//
// Failing interleaving (x is the table, y is the log):
//
//	delete goroutine                 insert goroutine
//	S1 delete(db.table, k)
//	                                 S2 db.table[k] = v
//	                                 S3 db.log = append(db.log, insert)
//	S4 db.log = append(db.log, delete)
//
// The table ends with the row, and replaying the log ends without it. In
// the usual schedule the delete takes microseconds and the insert comes
// later; a delay between the delete's two critical sections lets the
// insert run whole in between.
package mysqldelete

import (
	"fmt"
	"maps"
	"sync"
)

// DB is a table with its binary log.
type DB struct {
	openMu sync.Mutex // LOCK_open
	table  map[int]string

	logMu sync.Mutex // LOCK_log
	log   []string
}

// NewDB returns a database holding rows.
func NewDB(rows map[int]string) *DB {
	return &DB{table: maps.Clone(rows)}
}

// Delete removes row k (generate_table: DELETE FROM t by re-creating it).
func (db *DB) Delete(k int) {
	db.openMu.Lock()
	delete(db.table, k) // S1
	db.openMu.Unlock()
	db.logMu.Lock()
	db.log = append(db.log, fmt.Sprintf("delete %d", k)) // S4
	db.logMu.Unlock()
}

// Insert inserts row k (mysql_insert), holding LOCK_open until it is
// logged.
func (db *DB) Insert(k int, v string) {
	db.openMu.Lock()
	defer db.openMu.Unlock()
	db.table[k] = v // S2
	db.logMu.Lock()
	db.log = append(db.log, fmt.Sprintf("insert %d %s", k, v)) // S3
	db.logMu.Unlock()
}

// Replay applies the log to rows and returns the result, as a replica
// would.
func (db *DB) Replay(rows map[int]string) map[int]string {
	db.logMu.Lock()
	defer db.logMu.Unlock()
	out := maps.Clone(rows)
	for _, rec := range db.log {
		var k int
		var v string
		if _, err := fmt.Sscanf(rec, "delete %d", &k); err == nil {
			delete(out, k)
		} else if _, err := fmt.Sscanf(rec, "insert %d %s", &k, &v); err == nil {
			out[k] = v
		}
	}
	return out
}

// Table returns a copy of the table.
func (db *DB) Table() map[int]string {
	db.openMu.Lock()
	defer db.openMu.Unlock()
	return maps.Clone(db.table)
}
