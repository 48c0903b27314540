// Package logswitch is MysqlLog's single-variable atomicity violation
// (unicorn.txt Fig. 2, pattern P6 of Table I: W1(x) R2(x) W1(x)) with its
// goroutines milliseconds apart, the shape random delays do not reach
// (issue 9, targeted perturbation).
//
// Switch moves the binary log to a new file: it saves the log's state,
// marks it closed (S1), opens the new file (a couple of milliseconds),
// then restores the state (S3), each in a critical section of its own.
// Insert logs a transaction only if the log is not closed (S2). Every
// access is locked, but Switch's two writes are not atomic: an Insert in
// between finds the log closed and its transaction goes unlogged.
//
// Failing interleaving (x is l.state):
//
//	switch goroutine                 insert goroutine
//	S1 l.state = closed
//	   (opens the new file, ms)
//	                                 S2 l.state == closed: not logged
//	S3 l.state = saved
//
// In the test the insert comes several milliseconds after the switch
// began, long after it ended; reversing the pair S3 then S2 fails it.
package logswitch

import (
	"sync"
	"time"
)

// The log's states.
const (
	open = iota + 1
	closed
)

// Log is a binary log.
type Log struct {
	mu      sync.Mutex
	state   int
	entries []string
}

// NewLog returns an open log.
func NewLog() *Log { return &Log{state: open} }

// Switch moves the log to a new file, which takes opening for.
func (l *Log) Switch(opening time.Duration) {
	l.mu.Lock()
	saved := l.state
	l.state = closed // S1
	l.mu.Unlock()
	time.Sleep(opening) // opens the new file
	l.mu.Lock()
	l.state = saved // S3
	l.mu.Unlock()
}

// Insert logs transaction tx, unless the log is closed.
func (l *Log) Insert(tx string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.state == closed { // S2
		return
	}
	l.entries = append(l.entries, tx)
}

// Entries returns the logged transactions.
func (l *Log) Entries() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.entries
}
