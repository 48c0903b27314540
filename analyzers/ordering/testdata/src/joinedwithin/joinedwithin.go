// Package joinedwithin: tasks given to a group that a function makes
// live within one call of it when every path from the start to a return
// passes a Wait on that group, and no path comes back to the group's
// allocation (a new group) before one; goroutines counted on a WaitGroup
// field of the object their `go` statement passes live within one call
// when the same field of the same value is Added to before each start and
// waited on before every return.
package joinedwithin

import (
	"sync"

	"golang.org/x/sync/errgroup"
)

func work() {}

// Scan waits for both tasks of its group before it returns.
func Scan() error {
	var group errgroup.Group
	group.Go(func() error { work(); return nil }) // want `^joined within Scan$`
	group.Go(func() error { work(); return nil }) // want `^joined within Scan$`
	return group.Wait()
}

// Each starts a task per item on one group and waits after the loop.
func Each(items []int) {
	wg := new(sync.WaitGroup)
	for range items {
		wg.Go(work) // want `^joined within Each$`
	}
	wg.Wait()
}

// Early returns before the Wait on one path.
func Early(quick bool) error {
	var group errgroup.Group
	group.Go(func() error { work(); return nil }) // want `^not joined$`
	if quick {
		return nil
	}
	return group.Wait()
}

// Retry makes a new group each round and waits only for the last
// round's: the tasks of the rounds before may outlive the call.
func Retry(done func(int) bool) {
	for i := 0; ; i++ {
		wg := new(sync.WaitGroup)
		wg.Go(work) // want `^not joined$`
		if done(i) {
			wg.Wait()
			return
		}
	}
}

// Param's group is its caller's: taken as not joined, as a WaitGroup in
// a field is.
func Param(wg *sync.WaitGroup) {
	wg.Go(work) // want `^not joined$`
	wg.Wait()
}

// Deferred waits in a deferred call, which is not taken for a join.
func Deferred() {
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(work) // want `^not joined$`
}

// A worker counted on a WaitGroup field of the object its `go` statement
// passes it, which defers Done on that field of its receiver.
type worker struct {
	wg    sync.WaitGroup
	other sync.WaitGroup
}

func (w *worker) run() {
	defer w.wg.Done()
	work()
}

// Run adds before each start and waits on the same field before it
// returns.
func (w *worker) Run(n int) {
	for range n {
		w.wg.Add(1)
		go w.run() // want `^joined within Run$`
	}
	w.wg.Wait()
}

// RunOther waits on another field of the object.
func (w *worker) RunOther() {
	w.wg.Add(1)
	go w.run() // want `^not joined$`
	w.other.Wait()
}

// RunElse waits on the same field of another object.
func (w *worker) RunElse(v *worker) {
	w.wg.Add(1)
	go w.run() // want `^not joined$`
	v.wg.Wait()
}

// RunEarly returns before the Wait on one path.
func (w *worker) RunEarly(quick bool) {
	w.wg.Add(1)
	go w.run() // want `^not joined$`
	if quick {
		return
	}
	w.wg.Wait()
}

// looper defers its Done in a loop: it may Done more than once.
type looper struct{ wg sync.WaitGroup }

func (l *looper) run(n int) {
	for range n {
		defer l.wg.Done()
	}
}

// Run waits, but a goroutine's extra Dones may take another's count.
func (l *looper) Run() {
	l.wg.Add(1)
	go l.run(2) // want `^not joined$`
	l.wg.Wait()
}
