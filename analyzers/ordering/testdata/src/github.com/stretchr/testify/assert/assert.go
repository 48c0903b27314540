// Package assert is the part of testify's assert (v1.12.1) that the
// eventually fixture uses, its Eventually as testify writes it.
package assert

import "time"

// TestingT is an interface wrapper around *testing.T.
type TestingT interface {
	Errorf(format string, args ...interface{})
}

type tHelper interface{ Helper() }

// Fail reports a failure through t.
func Fail(t TestingT, failureMessage string, msgAndArgs ...interface{}) bool {
	t.Errorf("%s", failureMessage)
	return false
}

// Eventually asserts that given condition will be met in waitFor time,
// periodically checking target function each tick.
func Eventually(t TestingT, condition func() bool, waitFor time.Duration, tick time.Duration, msgAndArgs ...interface{}) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}

	ch := make(chan bool, 1)
	checkCond := func() { ch <- condition() }

	timer := time.NewTimer(waitFor)
	defer timer.Stop()

	ticker := time.NewTicker(tick)
	defer ticker.Stop()

	var tickC <-chan time.Time

	// Check the condition once first on the initial call.
	go checkCond()

	for {
		select {
		case <-timer.C:
			return Fail(t, "Condition never satisfied", msgAndArgs...)
		case <-tickC:
			tickC = nil
			go checkCond()
		case v := <-ch:
			if v {
				return true
			}
			tickC = ticker.C
		}
	}
}

// Assertions provides assertion methods around the TestingT interface.
type Assertions struct{ t TestingT }

// New makes a new Assertions object for the specified TestingT.
func New(t TestingT) *Assertions { return &Assertions{t: t} }

// Eventually asserts that given condition will be met in waitFor time.
func (a *Assertions) Eventually(condition func() bool, waitFor time.Duration, tick time.Duration, msgAndArgs ...interface{}) bool {
	return Eventually(a.t, condition, waitFor, tick, msgAndArgs...)
}
