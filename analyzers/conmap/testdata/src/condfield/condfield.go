// Package condfield: river's riverdbtest cache of test schemas (held-out
// 29's shape R1). The lock is taken under `if !opts.NoShare` and the map
// written under a later `if !opts.NoShare`, each test loading the field
// afresh, nothing between writing it: the write holds the lock, silent.
// The same with the field set between the tests (Racy) is reported.
package condfield

import "sync"

type Opts struct {
	NoShare bool
	Helper  bool
}

var (
	cache = make(map[string]string)
	mu    sync.RWMutex
)

func compute(k string, reuse bool, skip int) string {
	if reuse {
		return k + "!"
	}
	return k + string(rune('0'+skip))
}

func Get(k string, opts *Opts) string {
	if opts == nil {
		opts = &Opts{}
	}
	var s string
	if !opts.NoShare {
		mu.RLock()
		s := cache[k]
		mu.RUnlock()
		if s != "" {
			return s
		}
		mu.Lock()
		defer mu.Unlock()
		if s = cache[k]; s != "" {
			return s
		}
	}
	skip := 2
	if opts.Helper {
		skip += 2
	}
	s = compute(k, !opts.NoShare, skip)
	if !opts.NoShare {
		cache[k] = s
	}
	return s
}

func Start() {
	go Get("a", nil)
	go Get("b", &Opts{Helper: true})
}

// Racy's field is set between its two tests: the write may run without
// the lock.
type RacyOpts struct{ NoShare bool }

var (
	racy   = make(map[string]string)
	racyMu sync.Mutex
)

func Racy(k string, opts *RacyOpts) {
	if !opts.NoShare {
		racyMu.Lock()
		defer racyMu.Unlock()
		if racy[k] != "" {
			return
		}
	}
	opts.NoShare = len(k) > 3
	if !opts.NoShare {
		racy[k] = k // want `concurrent map read and map write: racy is written here`
	}
}

func StartRacy() {
	go Racy("a", &RacyOpts{})
	go Racy("b", &RacyOpts{})
}
