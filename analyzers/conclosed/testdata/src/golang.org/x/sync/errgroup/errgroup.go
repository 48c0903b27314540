// Package errgroup is a stand-in with the API shape of
// golang.org/x/sync/errgroup.
package errgroup

import (
	"context"
	"sync"
)

type Group struct {
	wg     sync.WaitGroup
	err    error
	cancel func()
}

// WithContext allocates the Group here, in the dependency, as the real
// one does: its callers' Group has no object of their own.
func WithContext(ctx context.Context) (*Group, context.Context) {
	ctx, cancel := context.WithCancel(ctx)
	return &Group{cancel: cancel}, ctx
}

func (g *Group) Go(f func() error) {
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		if err := f(); err != nil {
			g.err = err
		}
	}()
}

func (g *Group) TryGo(f func() error) bool {
	g.Go(f)
	return true
}

func (g *Group) Wait() error {
	g.wg.Wait()
	if g.cancel != nil {
		g.cancel()
	}
	return g.err
}
