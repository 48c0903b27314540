package shim

// The wrappers are the frame between testify's goroutine and the
// condition: testify's CallerInfo lists every frame outside its assert,
// require and mock directories in an assertion's "Error Trace", so a
// failing assertion inside a condition would list this file too. The
// line directive below names the wrappers' file in a directory "assert",
// so that testify leaves them out and reports what it reports without
// precog.

//line precog/shim/testify/assert/cond.go:1

// CondBool wraps the condition of testify's Eventually or Never, about to
// be handed to the call (see api_cond.go).
func CondBool(site uint32, f func() bool) func() bool {
	if !enabled {
		return f
	}
	return condBool(newCondRuns(site, true), f)
}

// CondBoolLate is CondBool for a call whose last argument that is not a
// constant comes after the condition: CondFork there forks the first run.
func CondBoolLate(site uint32, f func() bool) func() bool {
	if !enabled {
		return f
	}
	return condBool(newCondRuns(site, false), f)
}

func condBool(c *condRuns, f func() bool) func() bool {
	return func() bool {
		if !c.begin() {
			return f()
		}
		defer c.end()
		return f()
	}
}

// CondWith is CondBool for a condition that takes an argument
// (EventuallyWithT's *assert.CollectT).
func CondWith[T any](site uint32, f func(T)) func(T) {
	if !enabled {
		return f
	}
	return condWith(newCondRuns(site, true), f)
}

// CondWithLate is CondWith for a call whose last argument that is not a
// constant comes after the condition (see CondBoolLate).
func CondWithLate[T any](site uint32, f func(T)) func(T) {
	if !enabled {
		return f
	}
	return condWith(newCondRuns(site, false), f)
}

func condWith[T any](c *condRuns, f func(T)) func(T) {
	return func(x T) {
		if !c.begin() {
			f(x)
			return
		}
		defer c.end()
		f(x)
	}
}
