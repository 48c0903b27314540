// Package mapwrites is the concurrent-map-writes kernel (precog DESIGN.md,
// "Go's crash shapes", the Go-only row; the Go runtime's map write check).
//
// A resolver caches lookups in a map. Request goroutines read the cache under
// the read lock, but on a miss they store the result without the write lock.
// Two misses at once write the map concurrently.
//
// Crashing interleaving:
//
//	request goroutine A             request goroutine B
//	r.cache["a.example"] = addrs    r.cache["b.example"] = addrs
//	fatal error: concurrent map writes
//
// (A miss that writes while another request reads under RLock dies with
// "fatal error: concurrent map read and map write".) This is a fatal error,
// not a panic: recover cannot stop it. The normal schedule often hides the
// bug: a warm cache has few misses, and two at the same instant are rare.
//
// RIGHT version in this file: r.failed, the negative cache, is written under
// r.mu.Lock and read under r.mu.RLock.
package mapwrites

import (
	"strings"
	"sync"
)

// Resolver resolves host names through a slow lookup function.
type Resolver struct {
	lookup func(host string) ([]string, error)

	mu     sync.RWMutex
	cache  map[string][]string
	failed map[string]error
}

// NewResolver returns a resolver with empty caches.
func NewResolver(lookup func(string) ([]string, error)) *Resolver {
	return &Resolver{
		lookup: lookup,
		cache:  make(map[string][]string),
		failed: make(map[string]error),
	}
}

// Resolve returns the addresses of host.
func (r *Resolver) Resolve(host string) ([]string, error) {
	host = strings.ToLower(host)
	r.mu.RLock()
	addrs, ok := r.cache[host]
	err := r.failed[host]
	r.mu.RUnlock()
	if ok {
		return addrs, nil
	}
	if err != nil {
		return nil, err
	}

	addrs, err = r.lookup(host)
	if err != nil {
		r.mu.Lock()
		r.failed[host] = err
		r.mu.Unlock()
		return nil, err
	}
	r.cache[host] = addrs // want `concurrent map`
	return addrs, nil
}

// ResolveAll resolves hosts on one goroutine per host.
func ResolveAll(r *Resolver, hosts []string) map[string][]string {
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
	out := make(map[string][]string, len(hosts))
	for i, h := range hosts {
		out[h] = results[i]
	}
	return out
}
