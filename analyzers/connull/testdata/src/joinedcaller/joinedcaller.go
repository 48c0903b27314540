// Package joinedcaller: a tree whose Add starts a goroutine per key and
// waits for them all before it returns (go-datastructures' immutable
// Tr.add), and whose Commit clears the context the goroutines read. The
// caller runs Add and Commit one after the other, so the goroutines never
// meet Commit: silent. Reported beside it: an Add that may return before
// its Wait, one whose WaitGroup is a field (another call's goroutines may
// still count on it), one that commits between the go statements and the
// Wait, and one that also runs on a goroutine of the package.
//
// The same with a done channel (go-milter's backend.makeDecision, held-out
// rehearsal 42's V1): Decide waits for its goroutine in a select loop, in
// the case that receives from done or by a receive after a cancel, and
// Validate clears the context after the join within the call: silent.
// Reported beside them: a select that may return without the receive, a
// clear between the go statement and the receive, a done channel that
// also leaves the function, a literal that also runs on the caller, and a
// goroutine that signals before it works.
package joinedcaller

import (
	"sync"
	"time"
)

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

// Decide waits for its goroutine in a select loop.
type Decide struct{ ctx *context }

func (t *Decide) Run(progress func() error) {
	ticker := time.NewTicker(time.Second)
	defer ticker.Stop()
	done := make(chan struct{})
	go func() {
		_ = t.ctx.n
		done <- struct{}{}
	}()
	for {
		select {
		case <-done:
			return
		case <-ticker.C:
			if progress() != nil {
				<-done
				return
			}
		}
	}
}

func (t *Decide) Commit() { t.ctx = nil }

// Validate clears the context itself, after the join.
type Validate struct{ ctx *context }

func (t *Validate) Run(tick <-chan time.Time) {
	done := make(chan error, 1)
	go func() {
		_ = t.ctx.n
		close(done)
	}()
	for {
		select {
		case err := <-done:
			if err != nil {
				t.Commit()
			}
			return
		case <-tick:
		}
	}
}

func (t *Validate) Commit() { t.ctx = nil }

// Impatient may give up on its goroutine.
type Impatient struct{ ctx *context }

func (t *Impatient) Run(tick <-chan time.Time) {
	done := make(chan struct{})
	go func() {
		_ = t.ctx.n // want `t.ctx may be nil when dereferenced here: \(\*Impatient\).Commit stores nil to it concurrently`
		done <- struct{}{}
	}()
	select {
	case <-done:
	case <-tick:
		return
	}
}

func (t *Impatient) Commit() { t.ctx = nil }

// Meanwhile clears the context while its goroutine may run.
type Meanwhile struct{ ctx *context }

func (t *Meanwhile) Run(tick <-chan time.Time) {
	done := make(chan struct{})
	go func() {
		_ = t.ctx.n // want `t.ctx may be nil when dereferenced here: \(\*Meanwhile\).commit stores nil to it concurrently`
		done <- struct{}{}
	}()
	for {
		select {
		case <-done:
			return
		case <-tick:
			t.commit()
		}
	}
}

func (t *Meanwhile) commit() { t.ctx = nil }

func (t *Meanwhile) Commit() { t.commit() }

// Escaping hands its done channel on: another receive may take the signal.
type Escaping struct {
	ctx  *context
	last chan struct{}
}

func (t *Escaping) Run() {
	done := make(chan struct{}, 1)
	t.last = done
	go func() {
		_ = t.ctx.n // want `t.ctx may be nil when dereferenced here: \(\*Escaping\).Commit stores nil to it concurrently`
		done <- struct{}{}
	}()
	<-done
}

func (t *Escaping) Commit() { t.ctx = nil }

// Twice runs its goroutine's literal a second time itself: the receive may
// take that run's signal.
type Twice struct{ ctx *context }

func (t *Twice) Run() {
	done := make(chan struct{}, 2)
	f := func() {
		_ = t.ctx.n // want `t.ctx may be nil when dereferenced here: \(\*Twice\).Commit stores nil to it concurrently`
		done <- struct{}{}
	}
	go f()
	f()
	<-done
}

func (t *Twice) Commit() { t.ctx = nil }

// Eager signals before its goroutine works.
type Eager struct{ ctx *context }

func (t *Eager) Run() {
	done := make(chan struct{})
	go func() {
		done <- struct{}{}
		_ = t.ctx.n // want `t.ctx may be nil when dereferenced here: \(\*Eager\).Commit stores nil to it concurrently`
	}()
	<-done
}

func (t *Eager) Commit() { t.ctx = nil }

var (
	decide    = &Decide{ctx: &context{}}
	validate  = &Validate{ctx: &context{}}
	impatient = &Impatient{ctx: &context{}}
	meanwhile = &Meanwhile{ctx: &context{}}
	escaping  = &Escaping{ctx: &context{}}
	eager     = &Eager{ctx: &context{}}
	twice     = &Twice{ctx: &context{}}
)

func RunAll(tick <-chan time.Time, progress func() error) {
	decide.Run(progress)
	validate.Run(tick)
	impatient.Run(tick)
	meanwhile.Run(tick)
	escaping.Run()
	eager.Run()
	twice.Run()
}

func CommitEach() {
	decide.Commit()
	validate.Commit()
	impatient.Commit()
	meanwhile.Commit()
	escaping.Commit()
	eager.Commit()
	twice.Commit()
}

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
