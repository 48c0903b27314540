// Package crashfail is the fail-like-go-test kernel of a test that
// t.Fatal's in every run: Add counts one too many. The worker's writes and
// the test's read are ordered by a channel, so there is no race to report,
// only the failure: go test fails, and precog test must report it as a
// finding at the t.Fatalf (issue 10, item 1).
package crashfail

// Counter counts events.
type Counter struct{ n int }

// Add adds d, but one too many (the bug).
func (c *Counter) Add(d int) { c.n += d + 1 }

// N returns the count.
func (c *Counter) N() int { return c.n }
