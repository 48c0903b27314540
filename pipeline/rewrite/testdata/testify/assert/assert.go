// Package assert declares the part of testify's assert (v1.11.1) that the
// rewriter's tests call, with testify's signatures, so that the tests
// type-check without testify in precog's module.
package assert

import "time"

type TestingT interface {
	Errorf(format string, args ...interface{})
}

type CollectT struct{ errors []error }

func (c *CollectT) Errorf(format string, args ...interface{}) {}

func Eventually(t TestingT, condition func() bool, waitFor time.Duration, tick time.Duration, msgAndArgs ...interface{}) bool {
	return condition()
}

func Eventuallyf(t TestingT, condition func() bool, waitFor time.Duration, tick time.Duration, msg string, args ...interface{}) bool {
	return condition()
}

func EventuallyWithT(t TestingT, condition func(collect *CollectT), waitFor time.Duration, tick time.Duration, msgAndArgs ...interface{}) bool {
	condition(new(CollectT))
	return true
}

func Never(t TestingT, condition func() bool, waitFor time.Duration, tick time.Duration, msgAndArgs ...interface{}) bool {
	return !condition()
}

func True(t TestingT, value bool, msgAndArgs ...interface{}) bool { return value }

type Assertions struct{ t TestingT }

func New(t TestingT) *Assertions { return &Assertions{t} }

func (a *Assertions) Eventually(condition func() bool, waitFor time.Duration, tick time.Duration, msgAndArgs ...interface{}) bool {
	return Eventually(a.t, condition, waitFor, tick, msgAndArgs...)
}
