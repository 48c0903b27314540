// Package require declares the part of testify's require (v1.11.1) that
// the rewriter's tests call, with testify's signatures.
package require

import (
	"time"

	"github.com/stretchr/testify/assert"
)

type TestingT interface {
	Errorf(format string, args ...interface{})
	FailNow()
}

func Eventually(t TestingT, condition func() bool, waitFor time.Duration, tick time.Duration, msgAndArgs ...interface{}) {
	if !assert.Eventually(t, condition, waitFor, tick, msgAndArgs...) {
		t.FailNow()
	}
}

func EventuallyWithT(t TestingT, condition func(collect *assert.CollectT), waitFor time.Duration, tick time.Duration, msgAndArgs ...interface{}) {
	if !assert.EventuallyWithT(t, condition, waitFor, tick, msgAndArgs...) {
		t.FailNow()
	}
}

type Assertions struct{ t TestingT }

func New(t TestingT) *Assertions { return &Assertions{t} }

func (a *Assertions) Never(condition func() bool, waitFor time.Duration, tick time.Duration, msgAndArgs ...interface{}) {
	if assert.Eventually(a.t, condition, waitFor, tick, msgAndArgs...) {
		a.t.FailNow()
	}
}
