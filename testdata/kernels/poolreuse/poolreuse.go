// Package poolreuse is the negative control of poolentry (issue 18):
// zap's pooled CheckedEntry (go.uber.org/zap, zapcore/entry.go) taken from
// a sync.Pool, filled, written to its cores and then put back (write.go);
// the next owner's Get resets it. One owner's use is ordered before the
// next owner's reset by the pool itself: a Put happens before the Get that
// returns the same object. precog test reports nothing here (before
// sync.Pool's Put and Get were events, it reported the reset against the
// use, as in zap: 7 false con-index reports there).
package poolreuse

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
