// Package testonly has a race that only its tests' goroutines create: the
// directive suppresses it in the analysis that sees the tests, and the
// analysis without them must not call it stale.
package testonly

// Counter counts per key.
type Counter struct{ m map[int]int }

// NewCounter returns an empty counter.
func NewCounter() *Counter { return &Counter{m: map[int]int{}} }

// Add is not safe for concurrent use.
func (c *Counter) Add(k int) {
	c.m[k]++ //precog:ignore con-map callers serialize Add; the test below does not, on purpose
}
