// Package callerfresh: a test helper makes a new agent, fills its steps
// and then calls the agent's method that starts the goroutine serving it,
// which indexes the steps under the agent's lock; two tests run the helper
// one after the other, and the first test's goroutine may still run
// during the second. Each run of the helper fills its own agent before
// the call that starts that agent's goroutine, so the write of the second
// run touches another agent than the first run's goroutine: silent,
// whether the go statement is in the method the helper calls or in a
// method that one calls. Near misses, reported: the steps written after
// the call, the agent a package variable that every run fills again, and
// one agent filled and started in each turn of a loop.
package callerfresh
