// Package mysql2 is the MySQL-2 kernel (ConMem, conmem.txt Tables
// VII-IX; MySQL 5.1.28): a Con-NULL atomicity violation through a different
// field than MySQL-1, with the check under a lock and the use outside it.
//
// KILL <id>, run on another client's goroutine, calls Awake on the victim
// session: under LOCK_thd_data it checks thd.mysysVar (the victim's wait
// state, MySQL's st_my_thread_var) for nil, releases the lock to shut the
// session's socket down, then reads thd.mysysVar again to raise the abort
// flag. The victim's own goroutine clears thd.mysysVar when the session
// ends (my_thread_end), under the same lock: the lock makes each access
// atomic but not the check and the use together.
//
// Crashing interleaving:
//
//	KILL goroutine                        session goroutine
//	lock; S1 ok := thd.mysysVar != nil; unlock
//	thd.closeVio()
//	                                      lock; S3 thd.mysysVar = nil; unlock
//	S2 thd.mysysVar.abort = true
//	panic: runtime error: invalid memory address or nil pointer dereference
//
// The test's normal schedule hides the bug: KILL lands while the session
// is still running its statement, which takes 2 ms after KILL was sent
// before the session ends.
package mysql2

import "sync"

// threadVar is a session goroutine's wait state (st_my_thread_var).
type threadVar struct {
	abort bool // checked between rows
}

// THD is one client session.
type THD struct {
	id       int
	mu       sync.Mutex // LOCK_thd_data
	mysysVar *threadVar
	vioShut  bool
}

// Begin is my_thread_init: the session's goroutine publishes its wait state.
func (thd *THD) Begin() {
	thd.mu.Lock()
	thd.mysysVar = &threadVar{}
	thd.mu.Unlock()
}

// End is my_thread_end.
func (thd *THD) End() {
	thd.mu.Lock()
	thd.mysysVar = nil // S3
	thd.mu.Unlock()
}

// Awake is THD::awake, called by another session's KILL.
func (thd *THD) Awake() {
	thd.mu.Lock()
	ok := thd.mysysVar != nil // S1
	thd.mu.Unlock()
	if ok {
		thd.closeVio()
		thd.mysysVar.abort = true // S2 // want `may be nil when`
	}
}

// closeVio shuts the session's socket down, under LOCK_thd_data.
func (thd *THD) closeVio() {
	thd.mu.Lock()
	thd.vioShut = true
	thd.mu.Unlock()
}
