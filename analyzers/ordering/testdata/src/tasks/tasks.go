// Package tasks: a task given to errgroup or sync.WaitGroup.Go happens
// before the Wait on the same receiver returns, and a function given to a
// helper that waits for it happens before the helper returns.
package tasks

import (
	"context"
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

// A Group from errgroup.WithContext, allocated in errgroup: the Wait is
// found on the very value the tasks were started on.
func WithContext(ctx context.Context, n int) error {
	g, _ := errgroup.WithContext(ctx)
	for i := 0; i < n; i++ {
		g.Go(func() error {
			a("with context")
			return nil
		})
	}
	err := g.Wait()
	b("with context") // want `^with context: a before b by wait$`
	return err
}

// Another group's Wait does not join these tasks.
func WithContextOther(ctx context.Context) error {
	g, _ := errgroup.WithContext(ctx)
	h, _ := errgroup.WithContext(ctx)
	g.Go(func() error {
		a("other group")
		return nil
	})
	err := h.Wait()
	b("other group") // want `^other group: unordered$`
	return err
}

// A Wait before the task starts does not join it.
func WithContextWaitFirst(ctx context.Context) {
	g, _ := errgroup.WithContext(ctx)
	_ = g.Wait()
	g.Go(func() error {
		a("context wait first")
		return nil
	})
	b("context wait first") // want `^context wait first: unordered$`
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

// A batch of tasks and its Wait in each round of a loop: every task
// is joined before the code after the loop.
func WaitGroupGoRounds(rounds, n int) {
	for range rounds {
		var wg sync.WaitGroup
		for i := 0; i < n; i++ {
			wg.Go(func() {
				a("wg.Go rounds")
			})
		}
		wg.Wait()
	}
	b("wg.Go rounds") // want `^wg.Go rounds: a before b by wait$`
}

// The Wait of each round comes before its tasks: the last round's tasks
// may still run after the loop.
func WaitGroupGoWaitFirst(rounds int) {
	var wg sync.WaitGroup
	for range rounds {
		wg.Wait()
		wg.Go(func() {
			a("wait first")
		})
	}
	b("wait first") // want `^wait first: unordered$`
}

// A round may skip its Wait: that round's task is not joined.
func WaitGroupGoSkippedWait(rounds int, skip bool) {
	for range rounds {
		var g errgroup.Group
		g.Go(func() error {
			a("skipped wait")
			return nil
		})
		if skip {
			continue
		}
		_ = g.Wait()
	}
	b("skipped wait") // want `^skipped wait: unordered$`
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
