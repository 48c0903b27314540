// Package mapiter is the map-iteration kernel: the Go form of a Con-Dangling
// bug whose released object is a map iterator (precog DESIGN.md, "Go's crash
// shapes", Con-Dangling: map iteration during write).
//
// A metrics registry creates counters on first use, under its lock. The
// reporter goroutine iterates the counter map to print a snapshot and forgets
// to take the lock. A request that registers a new counter while the
// reporter is in the middle of its loop grows the map under the iterator.
//
// Crashing interleaving:
//
//	reporter goroutine              request goroutine
//	for name, c := range r.counters {
//	                                r.counters["new"] = &Counter{} (locked)
//	    ... next iteration
//	fatal error: concurrent map iteration and map write
//
// The normal schedule hides the bug: counters are usually all registered by
// the first requests, long before the first report.
//
// RIGHT version in this file: r.gauges is iterated under r.mu.RLock, and
// written under r.mu.Lock.
//
// The write r.counters[name] = c against the unlocked range is also an
// unordered map access; con-map leaves map iteration to con-closed, so the
// bug gives one diagnostic, at the range statement.
package mapiter

import (
	"fmt"
	"io"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// Counter is a monotonically increasing metric.
type Counter struct{ n atomic.Int64 }

// Registry holds named metrics.
type Registry struct {
	mu       sync.RWMutex
	counters map[string]*Counter
	gauges   map[string]float64
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{counters: make(map[string]*Counter), gauges: make(map[string]float64)}
}

// Counter returns the counter called name, creating it on first use.
func (r *Registry) Counter(name string) *Counter {
	r.mu.RLock()
	c := r.counters[name]
	r.mu.RUnlock()
	if c != nil {
		return c
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if c = r.counters[name]; c == nil {
		c = &Counter{}
		r.counters[name] = c
	}
	return c
}

// SetGauge sets the gauge called name.
func (r *Registry) SetGauge(name string, v float64) {
	r.mu.Lock()
	r.gauges[name] = v
	r.mu.Unlock()
}

// Report writes one snapshot of every metric.
func (r *Registry) Report(w io.Writer) {
	var lines []string
	for name, c := range r.counters { // want `iterated here while`
		lines = append(lines, fmt.Sprintf("%s %d", name, c.n.Load()))
	}
	r.mu.RLock()
	for name, v := range r.gauges {
		lines = append(lines, fmt.Sprintf("%s %g", name, v))
	}
	r.mu.RUnlock()
	sort.Strings(lines)
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
}

// Serve handles requests while a reporter prints snapshots every period.
func Serve(w io.Writer, requests []string, period time.Duration) {
	r := NewRegistry()
	stop := make(chan struct{})
	reported := make(chan struct{})
	go func() {
		defer close(reported)
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				r.Report(w)
			}
		}
	}()
	var wg sync.WaitGroup
	for _, path := range requests {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.Counter("requests " + path).n.Add(1)
			r.SetGauge("last_path_len", float64(len(path)))
		}()
	}
	wg.Wait()
	close(stop)
	<-reported
}
