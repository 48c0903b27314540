// Package tasks: functions handed to sync.WaitGroup.Go, errgroup and conc
// run as tasks, each a context of its own that the receiver's Wait joins.
package tasks

import (
	"sync"

	"github.com/sourcegraph/conc"
	"github.com/sourcegraph/conc/pool"
	"golang.org/x/sync/errgroup"
)

func fetch() error { return nil } // want `^ctx: task fetch join \(\*golang.org/x/sync/errgroup.Group\).Wait$`

func Run(n int) error { // want `^ctx: caller$`
	var wg sync.WaitGroup
	wg.Go(func() {}) // want `^ctx: task Run\$1 join \(\*sync.WaitGroup\).Wait$`
	for i := 0; i < n; i++ {
		wg.Go(func() {}) // want `^ctx: task Run\$2 multi join \(\*sync.WaitGroup\).Wait$`
	}
	wg.Wait()

	var g errgroup.Group
	g.Go(fetch)
	g.TryGo(func() error { return nil }) // want `^ctx: task Run\$3 join \(\*golang.org/x/sync/errgroup.Group\).Wait$`

	var c conc.WaitGroup
	c.Go(func() {}) // want `^ctx: task Run\$4 join \(\*github.com/sourcegraph/conc.WaitGroup\).Wait$`
	c.Wait()

	p := pool.New()
	p.Go(func() {}) // want `^ctx: task Run\$5 join \(\*github.com/sourcegraph/conc/pool.Pool\).Wait$`
	p.Wait()
	return g.Wait()
}
