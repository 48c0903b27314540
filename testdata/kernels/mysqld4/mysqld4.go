// Package mysqld4 is the execution-suppression paper's mysqld-4
// (execution-suppression.txt §4, Tables I and II: MySQL 3.23.56, an
// uninitialized read): LOAD DATA with no database selected dereferences a
// nil session database. Not a concurrency bug, though two goroutines are
// involved: the nil is stored by one and read by the other, with proper
// synchronization between them.
//
// The connection goroutine selects the session's database (USE) by
// storing the server's entry for the name in thd.db, a nil pointer when no
// database by that name exists (the bug: USE should refuse the name), and
// hands the session's LOAD DATA to the loader goroutine over a channel. The
// loader resolves the target table through thd.db:
//
//	connection goroutine                 loader goroutine
//	S1 thd.db = s.databases[name]   (nil: no database "")
//	   s.loads <- load                   load := <-s.loads
//	                                     S2 thd.db.table(load.table)
//	panic: runtime error: invalid memory address or nil pointer dereference
//
// Every run crashes: the channel orders S1 before S2, there is no other
// interleaving. 20 of 20 runs of go test -count=1 fail.
//
// Root cause (explain file): the definition at S1. As in the paper: the
// nil dereferenced at S2 was last defined at S1; there are no earlier
// accesses to thd.db from another goroutine (no WAR or WAW race, no
// W1R2W1 or R1W2W1 pattern), the read at S2 is ordered after S1 by the
// channel (no RAW race) and is the only one (no R1W2R1 or W1W2R1 pattern).
// Suppressing S1 and what depends on it leaves no failure: the nil store is
// reported, in two executions (1+1+0+0 in Table II's terms). The test
// asserts only on a second session, which selected a database: requiring an
// error from the first LOAD DATA would fail again once the crash is
// suppressed (the loader then reports success, control-dependent on nothing
// suppressed), a failure that reveals the missing check but no corrupted
// value.
package mysqld4

import "errors"

// Database is a database of the server.
type Database struct {
	name   string
	tables map[string][]string
}

// THD is a session's state (sql_class.h's THD).
type THD struct {
	db *Database // the selected database, nil if none
}

// A Load is a LOAD DATA statement of a session.
type Load struct {
	thd   *THD
	table string
	rows  []string
	done  chan error
}

// Server is the database server.
type Server struct {
	databases map[string]*Database
	loads     chan *Load
}

// NewServer returns a server with one database, test, and starts its
// loader goroutine.
func NewServer() *Server {
	s := &Server{
		databases: map[string]*Database{"test": {name: "test", tables: map[string][]string{"t1": nil}}},
		loads:     make(chan *Load),
	}
	go s.loader()
	return s
}

// Use selects the session's database (USE name).
func (s *Server) Use(thd *THD, name string) {
	thd.db = s.databases[name] // S1: nil for an unknown name
}

// LoadData runs LOAD DATA INFILE into table on the loader goroutine.
func (s *Server) LoadData(thd *THD, table string, rows []string) error {
	l := &Load{thd: thd, table: table, rows: rows, done: make(chan error)}
	s.loads <- l
	return <-l.done
}

// Close stops the loader.
func (s *Server) Close() { close(s.loads) }

func (s *Server) loader() {
	for l := range s.loads {
		dst, ok := l.thd.db.tables[l.table] // S2: the crash when no database is selected
		if !ok {
			l.done <- errors.New("no table " + l.table)
			continue
		}
		l.thd.db.tables[l.table] = append(dst, l.rows...)
		l.done <- nil
	}
}
