// Package corpus pins the real-world modules that precog is measured on
// (see ../../../shared/BENCH.md and bench/RESULTS.md). It is its own module
// so that precog's dependencies stay clean; nothing imports it.
package corpus

import (
	_ "github.com/sourcegraph/conc"
	_ "github.com/sourcegraph/conc/pool"
	_ "github.com/sourcegraph/conc/stream"
	_ "golang.org/x/sync/errgroup"
	_ "golang.org/x/sync/semaphore"
	_ "golang.org/x/sync/singleflight"
	_ "golang.org/x/sync/syncmap"
)
