// Package stackreuse is a data race beside a negative control that only an
// address could confuse with it. Tally counts on a counter every worker
// shares, without a lock: a race. Count gives each worker a counter of its
// own, on the worker's stack (it never escapes): no race, although the
// workers' ends are not ordered before the next worker's start, and the
// runtime hands an ended worker's g and stack to the next worker, whose
// counter then sits at the same address. Recording that address made the
// counter of two workers one location, and precog reported and
// "confirmed" a race on it.
package stackreuse

type counter struct{ n int }

func (c *counter) inc() { c.n++ }

func (c *counter) get() int { return c.n }

// Count counts to 2 on a counter of its own and sends the result.
func Count(done chan<- int) {
	var c counter
	c.inc()
	c.inc()
	done <- c.get()
}

// Tally counts on the shared counter c and says when it is done.
func Tally(c *counter, done chan<- int) {
	c.inc()
	done <- 0
}
