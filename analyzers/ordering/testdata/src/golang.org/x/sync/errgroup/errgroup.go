// Package errgroup is a stand-in with the API shape of
// golang.org/x/sync/errgroup.
package errgroup

import "sync"

type Group struct {
	wg  sync.WaitGroup
	err error
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
	return g.err
}
