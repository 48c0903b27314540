// Package tasks: a task given to errgroup or sync.WaitGroup.Go happens
// before the Wait on the same receiver returns, and a function given to a
// helper that waits for it happens before the helper returns.
package tasks

import (
	"sync"

	"golang.org/x/sync/errgroup"
)

func a(string) {}
func b(string) {}

func Errgroup() error {
	var g errgroup.Group
	g.Go(func() error {
		a("errgroup")
		return nil
	})
	err := g.Wait()
	b("errgroup") // want `^errgroup: a before b by wait$`
	return err
}

func WaitGroupGo(n int) {
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Go(func() {
			a("wg.Go")
		})
	}
	wg.Wait()
	b("wg.Go") // want `^wg.Go: a before b by wait$`
}

func StartedAfterWait() error {
	var g errgroup.Group
	err := g.Wait()
	g.Go(func() error {
		a("after wait")
		return nil
	})
	b("after wait") // want `^after wait: unordered$`
	return err
}

// both runs f and g on goroutines of their own and waits for them.
func both(f, g func()) {
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		f()
	}()
	go func() {
		defer wg.Done()
		g()
	}()
	wg.Wait()
}

func Both() {
	both(func() {
		a("joining helper")
	}, func() {})
	b("joining helper") // want `^joining helper: a before b by wait$`
}
