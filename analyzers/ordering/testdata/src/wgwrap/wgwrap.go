// Package wgwrap: a goroutine's work happens before the code after a
// Wait that a dependency's wrapper makes on a WaitGroup the goroutine
// calls Done on through the same wrapper (badger's z.Closer).
package wgwrap

import (
	"sync"

	"wglib"
)

func a(string) {}
func b(string) {}

type DB struct {
	closer *wglib.Closer
}

func (db *DB) run(lc *wglib.Closer) {
	defer lc.Done()
	a("closer")
}

func Open() *DB {
	db := &DB{closer: wglib.NewCloser(1)}
	go db.run(db.closer)
	return db
}

func (db *DB) Close() {
	db.closer.SignalAndWait()
	b("closer") // want `^closer: a before b by wait$`
}

func Counted() {
	lc := wglib.NewCloser(0)
	lc.AddRunning(1)
	go func() {
		defer lc.Done()
		a("counted")
	}()
	lc.Wait()
	b("counted") // want `^counted: a before b by wait$`
}

func Handed() {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wglib.Finish(&wg)
		a("handed")
	}()
	wg.Wait()
	b("handed") // want `^handed: a before b by wait$`
}

// Negative: a wrapper that waits on some paths only.
func MaybeWaits(wait bool) {
	lc := wglib.NewCloser(1)
	go func() {
		defer lc.Done()
		a("maybe waits")
	}()
	lc.MaybeWait(wait)
	b("maybe waits") // want `^maybe waits: unordered$`
}

// Negative: the goroutine's wrapper call is no Done.
func NoDone() {
	lc := wglib.NewCloser(1)
	go func() {
		defer lc.Release()
		a("no done")
	}()
	lc.Wait()
	b("no done") // want `^no done: unordered$`
}

// Negative: the goroutine adds to the count itself, through the wrapper,
// so the Wait may return before it did.
func AddsItself(add bool) {
	lc := wglib.NewCloser(1)
	go func() {
		defer lc.Done()
		lc.MaybeAdd(add)
		a("adds itself")
	}()
	lc.Wait()
	b("adds itself") // want `^adds itself: unordered$`
}

// Negative: the work comes after the Done.
func WorkAfterDone() {
	lc := wglib.NewCloser(1)
	go func() {
		lc.Done()
		a("after done")
	}()
	lc.Wait()
	b("after done") // want `^after done: unordered$`
}
