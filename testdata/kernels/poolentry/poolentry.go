// Package poolentry is zap's pooled CheckedEntry (go.uber.org/zap,
// zapcore/entry.go): a log entry taken from a sync.Pool, filled with the
// cores that accept it, written to them and put back. The next owner's
// Get resets it (ce.cores = ce.cores[:0]) and fills it again.
//
// One owner's use of an entry is ordered before the next owner's reset
// by the pool itself: a Put happens before the Get that returns the same
// object (the Go memory model's rule for sync.Pool). right.go uses the
// entry and then puts it back; no interleaving crashes, and precog test
// reports nothing there (before sync.Pool's Put and Get were events, it
// reported the reset against the use: zap's 7 false con-index reports).
//
// The bug, WriteAndRelease: the entry is put back before its last use.
// The next owner may get it and reset it while the old owner indexes it:
//
//	old owner                         next owner
//	Put(ce)
//	for i := range ce.cores (len 2)
//	                                  ce := Get(); ce.cores = ce.cores[:0]
//	ce.cores[i]
//	panic: runtime error: index out of range [0] with length 0
//
// The test's normal schedule hides it: the next owner logs 5 ms later.
package poolentry

import "sync"

// Core is a destination of entries.
type Core struct {
	Name    string
	Written int
}

// Entry is zapcore.CheckedEntry: a message and the cores to write it to.
type Entry struct {
	Message string
	cores   []*Core
}

var entries = sync.Pool{New: func() any { return new(Entry) }}

// Get takes an entry from the pool and resets it (getCheckedEntry).
func Get(msg string) *Entry {
	ce := entries.Get().(*Entry)
	ce.cores = ce.cores[:0]
	ce.Message = msg
	return ce
}

// AddCore adds a core that accepts the entry (CheckedEntry.AddCore).
func (ce *Entry) AddCore(c *Core) { ce.cores = append(ce.cores, c) }

// WriteAndRelease puts the entry back, then writes it: a use after Put.
func (ce *Entry) WriteAndRelease() {
	entries.Put(ce)
	for i := range ce.cores {
		ce.cores[i].Written++
	}
}
