// Package upstream is a crash whose root cause is a wrong value computed
// upstream, two goroutines away, in code with no data race
// (execution-suppression.txt §2: the chain of suppressions ends at the
// first corrupted definition; the paper's Fig. 6 without its race).
//
// A record store lays out fixed-size pages in one buffer, in a pipeline of
// three goroutines that hand the layout on over channels, each working
// under its lock. configure computes the page size (S1: 2 << shift, where
// 1 << shift was meant: 8 bytes instead of 4), plan computes each record's
// offset from it (S2), store writes each record at its offset (S3) and then
// checks the page size against the limit (S4):
//
//	configure goroutine   plan goroutine           store goroutine
//	S1 l.pageSize = 2 << shift   (8)
//	   -> planned
//	                      S2 l.offsets[i] = i * l.pageSize   (0, 8, 16)
//	                         -> laid out
//	                                               S3 l.buf[l.offsets[i]] = r   (i 2: 16)
//	panic: runtime error: index out of range [16] with length 12
//
// Every run crashes: the channels order the three stages, there is no
// other interleaving. 20 of 20 runs of go test -count=1 fail.
//
// Root cause (explain file): the definition S1. Execution suppression: S3's
// index l.offsets[2] was last defined at S2 (ordered after S1 by a channel
// and the lock, no other goroutine touches it: no race, no violation), so
// S2's instance and what depends on it are suppressed; the run then fails
// at S4's check, whose value l.pageSize was last defined at S1 (no race or
// violation either); suppressing S1 suppresses everything computed from
// the page size, and the run ends with no failure. The crash is two
// goroutines and two definitions away from its cause; no data race is
// involved anywhere, so the answer cannot be a race next to the crash.
package upstream

import (
	"fmt"
	"sync"
)

const (
	shift   = 2 // pages of 1 << shift bytes
	maxPage = 1 << shift
)

// Layout is the layout of the record store's buffer.
type Layout struct {
	mu       sync.Mutex
	pageSize int
	offsets  []int
	buf      []byte
}

// Store writes recs, one per page, through a pipeline of three goroutines,
// and returns the layout when the last stage is done.
func Store(recs []byte) *Layout {
	l := &Layout{offsets: make([]int, len(recs)), buf: make([]byte, len(recs)*maxPage)}
	planned, laidOut, done := make(chan bool), make(chan bool), make(chan bool)
	go func() {
		l.configure()
		planned <- true
	}()
	go func() {
		<-planned
		l.plan()
		laidOut <- true
	}()
	go func() {
		<-laidOut
		l.store(recs)
		done <- true
	}()
	<-done
	return l
}

func (l *Layout) configure() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pageSize = 2 << shift // S1: the root cause (1 << shift was meant)
}

func (l *Layout) plan() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := range l.offsets {
		l.offsets[i] = i * l.pageSize // S2
	}
}

func (l *Layout) store(recs []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, r := range recs {
		l.buf[l.offsets[i]] = r // S3: the crash
	}
	if l.pageSize > maxPage {
		panic(fmt.Sprintf("page size %d over %d", l.pageSize, maxPage)) // S4
	}
}
