// Package atomics is a negative control: goroutines share state only through
// sync/atomic (the atomic types and the older functions). No check may report
// anything here.
//
// Why each shape is safe:
//   - con-null: b.cfg is an atomic.Pointer; every reader Loads it once into
//     a local and checks that local for nil before using it, and Invalidate's
//     Store(nil) cannot change the local.
//   - con-uninit: the health checker may start before Start stores the first
//     config (atomic Store after the go statement); it Loads atomically and
//     skips a nil config.
//   - con-index: Pick indexes b.backends, which is set before any goroutine
//     starts and never written again, with an index computed from an atomic
//     Add modulo its length.
//   - con-map: b.routes holds a map that is never written after it is
//     published: SetRoute copies it, writes the copy, and Stores the copy.
package atomics

import (
	"sync"
	"sync/atomic"
	"time"
)

// Config is an immutable balancer configuration.
type Config struct {
	Timeout time.Duration
	Weights []int
}

// Balancer spreads requests over backends.
type Balancer struct {
	backends []string
	next     atomic.Uint32
	cfg      atomic.Pointer[Config]
	routes   atomic.Value // map[string]string, copy on write
	routesMu sync.Mutex   // serializes SetRoute's copy
	closed   atomic.Bool
	served   int64 // atomic.AddInt64
	checks   int64 // atomic.AddInt64
}

// NewBalancer returns a balancer over backends.
func NewBalancer(backends []string) *Balancer {
	b := &Balancer{backends: backends}
	b.routes.Store(map[string]string{})
	return b
}

// Pick returns the next backend, round robin.
func (b *Balancer) Pick() string {
	i := b.next.Add(1) % uint32(len(b.backends))
	atomic.AddInt64(&b.served, 1)
	return b.backends[i]
}

// Timeout returns the configured timeout, or a default.
func (b *Balancer) Timeout() time.Duration {
	if cfg := b.cfg.Load(); cfg != nil {
		return cfg.Timeout
	}
	return time.Second
}

// Invalidate drops the current config.
func (b *Balancer) Invalidate() { b.cfg.Store(nil) }

// Route returns the backend pinned for path, if any.
func (b *Balancer) Route(path string) (string, bool) {
	m := b.routes.Load().(map[string]string)
	be, ok := m[path]
	return be, ok
}

// SetRoute pins path to a backend.
func (b *Balancer) SetRoute(path, backend string) {
	b.routesMu.Lock()
	defer b.routesMu.Unlock()
	old := b.routes.Load().(map[string]string)
	m := make(map[string]string, len(old)+1)
	for k, v := range old {
		m[k] = v
	}
	m[path] = backend
	b.routes.Store(m)
}

func (b *Balancer) healthCheck(period time.Duration) {
	for !b.closed.Load() {
		if cfg := b.cfg.Load(); cfg != nil && len(cfg.Weights) > 0 {
			atomic.AddInt64(&b.checks, int64(cfg.Weights[0]))
		}
		time.Sleep(period)
	}
}

// Start runs the health checker, then publishes the first config.
func (b *Balancer) Start(cfg *Config) {
	go b.healthCheck(10 * time.Millisecond)
	b.cfg.Store(cfg)
}

// Close stops the health checker.
func (b *Balancer) Close() { b.closed.Store(true) }

// Run serves requests on several goroutines while routes and configs change.
func Run(backends, paths []string) int64 {
	b := NewBalancer(backends)
	b.Start(&Config{Timeout: time.Second, Weights: []int{1}})
	var wg sync.WaitGroup
	for _, p := range paths {
		wg.Add(2)
		go func() {
			defer wg.Done()
			if _, ok := b.Route(p); !ok {
				b.SetRoute(p, b.Pick())
			}
			_ = b.Timeout()
		}()
		go func() {
			defer wg.Done()
			b.Invalidate()
			b.cfg.Store(&Config{Timeout: 2 * time.Second})
		}()
	}
	wg.Wait()
	b.Close()
	return atomic.LoadInt64(&b.served)
}
