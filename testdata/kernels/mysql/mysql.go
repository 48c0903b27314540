// Package mysql is the MySQL-1 kernel (ConMem, conmem.txt Fig. 3a;
// MySQL 4.0.19): a Con-NULL atomicity violation.
//
// A session goroutine publishes what its statement is doing in thd.procInfo
// and stores nil there when the statement ends. SHOW PROCESSLIST, running on
// another session's goroutine, checks thd.procInfo for nil and then reads it
// a second time to print it. Only the server's thread list is locked;
// procInfo is not.
//
// Crashing interleaving (S1, S3, S2 in the paper):
//
//	show goroutine                    session goroutine
//	                                  thd.procInfo = &state
//	S1 if thd.procInfo != nil {
//	                                  S3 thd.procInfo = nil
//	S2     ... *thd.procInfo
//	panic: runtime error: invalid memory address or nil pointer dereference
//
// The call between S1 and S2 keeps the compiler from reusing S1's load for
// S2. The test's normal schedule hides the bug: SHOW PROCESSLIST runs while
// the statement executes, and the statement runs for milliseconds after S2
// before it reaches S3.
package mysql

import (
	"fmt"
	"io"
	"sync"
)

// THD is one client session (MySQL's class THD).
type THD struct {
	id       int
	procInfo *string // state of the running statement; written without a lock
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

// Dispatch runs one statement on the session's own goroutine
// (dispatch_command); execute does the work.
func (thd *THD) Dispatch(query string, execute func(query string)) {
	state := "executing"
	thd.procInfo = &state
	execute(query)
	thd.procInfo = nil // S3: statement done
}

// ShowProcessList prints one line per session (mysqld_list_processes).
func (s *Server) ShowProcessList(w io.Writer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, thd := range s.threads {
		fmt.Fprintf(w, "%d", thd.id)
		if thd.procInfo != nil { // S1
			io.WriteString(w, "\t")
			io.WriteString(w, *thd.procInfo) // S2 // want `may be nil when`
		}
		io.WriteString(w, "\n")
	}
}
