// Package corpus pins the real-world modules that precog is measured on
// (see ../../../shared/BENCH.md and bench/RESULTS.md). It is its own module
// so that precog's dependencies stay clean; nothing imports it.
package corpus

import (
	_ "github.com/alitto/pond/v2"
	_ "github.com/dgraph-io/ristretto/v2"
	_ "github.com/dgraph-io/ristretto/v2/z"
	_ "github.com/hashicorp/golang-lru/v2"
	_ "github.com/panjf2000/ants/v2"
	_ "github.com/sourcegraph/conc"
	_ "github.com/sourcegraph/conc/pool"
	_ "github.com/sourcegraph/conc/stream"
	_ "go.etcd.io/bbolt"
	_ "go.etcd.io/raft/v3"
	_ "go.uber.org/zap"
	_ "golang.org/x/sync/errgroup"
	_ "golang.org/x/sync/semaphore"
	_ "golang.org/x/sync/singleflight"
	_ "golang.org/x/sync/syncmap"
)
