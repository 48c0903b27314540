// Package mapwrites is the concurrent-map-writes kernel (precog
// DESIGN.md, "Go's crash shapes", the Go-only row; the Go runtime's map
// write check).
//
// A resolver caches lookups in a map. Request goroutines read the cache under
// the read lock, but on a miss they store the result without the write lock.
// Two misses that finish at the same time write the map concurrently.
//
// Crashing interleaving (the two writes overlap):
//
//	request goroutine A             request goroutine B
//	r.cache["a.example"] = addrs    r.cache["b.example"] = addrs
//	fatal error: concurrent map writes
//
// (A store that overlaps another request's read under RLock dies with "fatal
// error: concurrent map read and map write".) This is a fatal error, not a
// panic: recover cannot stop it. The runtime notices only writes that
// overlap in time, so no order of the two writes crashes by itself: the
// crash needs both inside the map assignment at once. The test's normal
// schedule hides the bug: the two lookups take 1 ms and 3 ms, so the stores
// come 2 ms apart.
package mapwrites

import (
	"strings"
	"sync"
)

// Resolver resolves host names through a slow lookup function.
type Resolver struct {
	lookup func(host string) ([]string, error)

	mu    sync.RWMutex
	cache map[string][]string
}

// NewResolver returns a resolver with an empty cache.
func NewResolver(lookup func(string) ([]string, error)) *Resolver {
	return &Resolver{lookup: lookup, cache: make(map[string][]string)}
}

// Resolve returns the addresses of host.
func (r *Resolver) Resolve(host string) ([]string, error) {
	host = strings.ToLower(host)
	r.mu.RLock()
	addrs, ok := r.cache[host] // S1: read under the read lock
	r.mu.RUnlock()
	if ok {
		return addrs, nil
	}
	addrs, err := r.lookup(host)
	if err != nil {
		return nil, err
	}
	r.cache[host] = addrs // S2: written with no lock; should hold r.mu.Lock // want `concurrent map`
	return addrs, nil
}

// ResolveAll resolves hosts on one goroutine per host.
func ResolveAll(r *Resolver, hosts []string) [][]string {
	results := make([][]string, len(hosts))
	var wg sync.WaitGroup
	for i, h := range hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], _ = r.Resolve(h)
		}()
	}
	wg.Wait()
	return results
}
