// Package crashpanic is the fail-like-go-test kernel of a test that panics
// in every run: a registry's Lookup indexes past the end of its table on a
// goroutine the test starts. go test fails the suite; so must precog test
// (issue 10, item 1), with the panic as a confirmed crash finding at the
// index.
package crashpanic

import "sync"

// Registry holds named handlers in registration order.
type Registry struct {
	mu    sync.Mutex
	names []string
}

// Register appends name.
func (r *Registry) Register(name string) {
	r.mu.Lock()
	r.names = append(r.names, name)
	r.mu.Unlock()
}

// Nth returns the n-th name (from 1, the bug: it should be from 0).
func (r *Registry) Nth(n int) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.names[n] // panics for n == len(r.names)
}
