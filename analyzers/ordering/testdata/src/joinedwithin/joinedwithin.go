// Package joinedwithin: tasks given to a group that a function makes
// live within one call of it when every path from the start to a return
// passes a Wait on that group, and no path comes back to the group's
// allocation (a new group) before one.
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
