// Package counter starts no goroutines; its external test calls it from
// several. Only the shared-location filter's rule for exported API (callers
// in other packages may run it concurrently) keeps Inc's accesses.
package counter

// Counter counts.
type Counter struct {
	n    int
	name string
}

// New returns a counter.
func New(name string) *Counter {
	c := &Counter{}
	c.name = name // local: c has not escaped yet
	return c
}

// Inc adds one.
func (c *Counter) Inc() { c.n++ }

// N returns the count.
func (c *Counter) N() int { return c.n }

// Name returns the name.
func (c *Counter) Name() string { return c.name }
