// Package joinedcaller: a tree whose Add starts a goroutine per key and
// waits for them all before it returns (go-datastructures' immutable
// Tr.add), and whose Commit clears the context the goroutines read. The
// caller runs Add and Commit one after the other, so the goroutines never
// meet Commit: silent. Reported beside it: an Add that may return before
// its Wait, one whose WaitGroup is a field (another call's goroutines may
// still count on it), one that commits between the go statements and the
// Wait, and one that also runs on a goroutine of the package.
package joinedcaller

import "sync"

type context struct{ n int }

type Tr struct{ ctx *context }

func (t *Tr) Add(keys []int) {
	var wg sync.WaitGroup
	wg.Add(len(keys))
	for range keys {
		go func() {
			defer wg.Done()
			_ = t.ctx.n
		}()
	}
	wg.Wait()
}

func (t *Tr) Commit() { t.ctx = nil }

// Early may return while its goroutines run.
type Early struct{ ctx *context }

func (t *Early) Add(keys []int, quick bool) {
	var wg sync.WaitGroup
	wg.Add(len(keys))
	for range keys {
		go func() {
			defer wg.Done()
			_ = t.ctx.n // want `t.ctx may be nil when dereferenced here: \(\*Early\).Commit stores nil to it concurrently`
		}()
	}
	if quick {
		return
	}
	wg.Wait()
}

func (t *Early) Commit() { t.ctx = nil }

// Shared's WaitGroup is a field, one for every call.
type Shared struct {
	ctx *context
	wg  sync.WaitGroup
}

func (t *Shared) Add(keys []int) {
	t.wg.Add(len(keys))
	for range keys {
		go func() {
			defer t.wg.Done()
			_ = t.ctx.n // want `t.ctx may be nil when dereferenced here: \(\*Shared\).Commit stores nil to it concurrently`
		}()
	}
	t.wg.Wait()
}

func (t *Shared) Commit() { t.ctx = nil }

// Inside commits while its goroutines run.
type Inside struct{ ctx *context }

func (t *Inside) Add(keys []int) {
	var wg sync.WaitGroup
	wg.Add(len(keys))
	for range keys {
		go func() {
			defer wg.Done()
			_ = t.ctx.n // want `t.ctx may be nil when dereferenced here: \(\*Inside\).commit stores nil to it concurrently`
		}()
	}
	t.commit()
	wg.Wait()
}

func (t *Inside) commit() { t.ctx = nil }

func (t *Inside) Commit() { t.commit() }

// Background's Add also runs on a goroutine that AddAll starts.
type Background struct{ ctx *context }

func (t *Background) Add(keys []int) {
	var wg sync.WaitGroup
	wg.Add(len(keys))
	for range keys {
		go func() {
			defer wg.Done()
			_ = t.ctx.n // want `t.ctx may be nil when dereferenced here: \(\*Background\).Commit stores nil to it concurrently`
		}()
	}
	wg.Wait()
}

func (t *Background) Commit() { t.ctx = nil }

var (
	background = &Background{ctx: &context{}}
	tr         = &Tr{ctx: &context{}}
	early      = &Early{ctx: &context{}}
	shared     = &Shared{ctx: &context{}}
	inside     = &Inside{ctx: &context{}}
)

func AddAll(keys []int) {
	tr.Add(keys)
	early.Add(keys, true)
	shared.Add(keys)
	inside.Add(keys)
	background.Add(keys)
	go background.Add(keys)
}

func CommitAll() {
	tr.Commit()
	early.Commit()
	shared.Commit()
	inside.Commit()
	background.Commit()
}
