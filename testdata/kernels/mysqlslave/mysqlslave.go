// Package mysqlslave is the Unicorn MysqlSlave kernel (unicorn.txt Table
// III, extracted from MySQL's replication slave): a multi-variable
// atomicity violation, pattern P14 of Table I, R1(x) W2(x) W2(y) R1(y).
//
// The slave's relay log info holds the name of the relay log file and the
// position within it; a position means nothing without its file. The SQL
// thread rotates to the next relay log by setting the name (S2) and the
// position (S3) in one critical section of rli.dataLock. Status (SHOW
// SLAVE STATUS) reads the name (S1) and the position (S4) each in a
// critical section of its own: every access is locked (so go test -race
// has nothing to say), but Status's two reads are not atomic.
//
// Failing interleaving (x is rli.logName, y is rli.logPos):
//
//	status goroutine                 SQL goroutine
//	S1 name := rli.logName
//	                                 S2 rli.logName = next
//	                                 S3 rli.logPos = 4
//	S4 pos := rli.logPos   (the old file's name with the new file's position)
//
// In the usual schedule the status is read within microseconds and the
// rotation comes later (or earlier): the pairs R1(x) W2(x) and W2(y)
// R1(y) each occur in passing runs, only their combination fails.
package mysqlslave

import (
	"fmt"
	"sync"
)

// RelayLogInfo is the slave's position in its relay logs (RELAY_LOG_INFO).
type RelayLogInfo struct {
	dataLock sync.Mutex
	logName  string
	logPos   int
	running  bool
}

// NewRelayLogInfo returns the position pos in relay log name.
func NewRelayLogInfo(name string, pos int) *RelayLogInfo {
	return &RelayLogInfo{logName: name, logPos: pos, running: true}
}

// Rotate moves to the start of relay log next (the SQL thread reaching a
// Rotate event).
func (rli *RelayLogInfo) Rotate(next string) {
	rli.dataLock.Lock()
	defer rli.dataLock.Unlock()
	rli.logName = next // S2
	rli.logPos = 4     // S3: the first event after the file header
}

// Status returns the relay log position as SHOW SLAVE STATUS prints it.
func (rli *RelayLogInfo) Status() string {
	rli.dataLock.Lock()
	name := rli.logName // S1
	rli.dataLock.Unlock()
	state := "No"
	rli.dataLock.Lock()
	if rli.running {
		state = "Yes"
	}
	rli.dataLock.Unlock()
	rli.dataLock.Lock()
	pos := rli.logPos // S4
	rli.dataLock.Unlock()
	return fmt.Sprintf("Relay_Log_File: %s Relay_Log_Pos: %d Slave_SQL_Running: %s", name, pos, state)
}
