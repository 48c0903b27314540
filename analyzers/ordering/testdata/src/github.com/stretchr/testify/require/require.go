// Package require is the part of testify's require (v1.12.1) that the
// eventually fixture uses.
package require

import (
	"time"

	"github.com/stretchr/testify/assert"
)

// TestingT is an interface wrapper around *testing.T.
type TestingT interface {
	Errorf(format string, args ...interface{})
	FailNow()
}

type tHelper interface{ Helper() }

// Eventually asserts that given condition will be met in waitFor time,
// periodically checking target function each tick.
func Eventually(t TestingT, condition func() bool, waitFor time.Duration, tick time.Duration, msgAndArgs ...interface{}) {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	if assert.Eventually(t, condition, waitFor, tick, msgAndArgs...) {
		return
	}
	t.FailNow()
}

// Assertions provides assertion methods around the TestingT interface.
type Assertions struct{ t TestingT }

// New makes a new Assertions object for the specified TestingT.
func New(t TestingT) *Assertions { return &Assertions{t: t} }

// Eventually asserts that given condition will be met in waitFor time.
func (a *Assertions) Eventually(condition func() bool, waitFor time.Duration, tick time.Duration, msgAndArgs ...interface{}) {
	Eventually(a.t, condition, waitFor, tick, msgAndArgs...)
}

// CollectT implements the TestingT interface and collects all errors.
type CollectT = assert.CollectT

// EventuallyWithT asserts that given condition will be met in waitFor
// time, periodically checking target function each tick.
func EventuallyWithT(t TestingT, condition func(collect *assert.CollectT), waitFor time.Duration, tick time.Duration, msgAndArgs ...interface{}) {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	if assert.EventuallyWithT(t, condition, waitFor, tick, msgAndArgs...) {
		return
	}
	t.FailNow()
}

// Never asserts that the given condition doesn't satisfy in waitFor
// time, periodically checking the target function each tick.
func Never(t TestingT, condition func() bool, waitFor time.Duration, tick time.Duration, msgAndArgs ...interface{}) {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	if assert.Never(t, condition, waitFor, tick, msgAndArgs...) {
		return
	}
	t.FailNow()
}
