// Package mysql1 is the MySQL-1 kernel (ConMem, conmem.txt Fig. 3a; MySQL
// 4.0.19): a Con-NULL atomicity violation.
//
// A session goroutine publishes what it is doing in thd.procInfo and clears it
// with nil when the statement ends. SHOW PROCESSLIST, running in another
// session's goroutine, checks thd.procInfo for nil and then reads it a second
// time to print it. Only the Server's thread list is locked; procInfo is not.
//
// Crashing interleaving (S1, S3, S2 in the paper):
//
//	show goroutine                    session goroutine
//	S1 if thd.procInfo != nil {
//	                                  S3 thd.procInfo = nil
//	S2     ... *thd.procInfo          panic: runtime error: invalid memory
//	                                  address or nil pointer dereference
//
// The row is written column by column, as MySQL does; the call between S1
// and S2 also keeps the compiler from reusing S1's load for S2.
//
// The normal schedule hides the bug: the window between S1 and S2 is a few
// instructions wide, and the session usually clears procInfo long before or
// after SHOW PROCESSLIST looks at it.
//
// RIGHT versions in this file: thd.query is set and cleared under the
// per-session lock thd.dataMu (MySQL's LOCK_thd_data), which SHOW PROCESSLIST
// also holds across its check and its use; thd.db is read once into a local,
// and only the checked local is dereferenced (the way MySQL copies the pointer
// before testing it).
package mysql1

import (
	"fmt"
	"io"
	"sync"
)

// THD is one client session (MySQL's class THD).
type THD struct {
	id       int
	procInfo *string // state of the running statement; written without a lock
	db       *string // current database; written without a lock

	dataMu sync.Mutex // LOCK_thd_data: guards query
	query  *string    // text of the running statement
}

// Server holds the list of sessions.
type Server struct {
	mu      sync.Mutex // LOCK_thread_count: guards threads, not their fields
	threads []*THD
}

// NewServer returns a server with no sessions.
func NewServer() *Server { return &Server{} }

// Connect registers a new session.
func (s *Server) Connect(id int) *THD {
	thd := &THD{id: id}
	s.mu.Lock()
	s.threads = append(s.threads, thd)
	s.mu.Unlock()
	return thd
}

// Dispatch runs statements on the session's own goroutine (do_command).
func (thd *THD) Dispatch(db string, queries []string) {
	thd.db = &db
	for _, q := range queries {
		thd.dataMu.Lock()
		thd.query = &q
		thd.dataMu.Unlock()

		state := "executing"
		thd.procInfo = &state
		thd.procInfo = nil // S3: statement done

		thd.dataMu.Lock()
		thd.query = nil
		thd.dataMu.Unlock()
	}
	thd.db = nil
}

// ShowProcessList prints one line per session (mysqld_list_processes).
func (s *Server) ShowProcessList(w io.Writer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, thd := range s.threads {
		fmt.Fprintf(w, "%d", thd.id)
		if db := thd.db; db != nil {
			io.WriteString(w, "\t")
			io.WriteString(w, *db)
		}
		if thd.procInfo != nil { // S1
			io.WriteString(w, "\t")
			io.WriteString(w, *thd.procInfo) // want `may be nil when`
		}
		thd.dataMu.Lock()
		if thd.query != nil {
			io.WriteString(w, "\t")
			io.WriteString(w, *thd.query)
		}
		thd.dataMu.Unlock()
		io.WriteString(w, "\n")
	}
}

// Run serves one session while another session runs SHOW PROCESSLIST.
func Run(w io.Writer, queries []string) {
	s := NewServer()
	thd := s.Connect(1)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		thd.Dispatch("test", queries)
	}()
	go func() {
		defer wg.Done()
		s.ShowProcessList(w)
	}()
	wg.Wait()
}
