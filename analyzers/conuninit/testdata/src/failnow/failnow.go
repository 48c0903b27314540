// Package failnow holds reads, after a select, of what a goroutine sets
// before it closes the done channel one case receives from, while the
// other case, a timeout, fails the test: silent when the timeout calls
// testify's require.Fail or FailNow (function or *require.Assertions
// method), which never return on a *testing.T, as t.Fatal does not;
// reported when the timeout only logs, calls assert-style code that
// returns, or a require check that returns when its condition holds.
package failnow

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func work() error { return errors.New("refused") }

// FailNow: the read comes after <-done on every path that reaches it.
func FailNow(t *testing.T) {
	done := make(chan struct{})
	var err error
	go func() {
		err = work()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(time.Second):
		require.FailNow(t, "work did not return")
	}
	t.Log(err.Error())
}

// Fail: require.Fail stops the test too.
func Fail(t *testing.T) {
	done := make(chan struct{})
	var err error
	go func() {
		err = work()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(time.Second):
		require.Fail(t, "work did not return")
	}
	t.Log(err.Error())
}

// Method: the *require.Assertions method of the same name.
func Method(t *testing.T) {
	r := require.New(t)
	done := make(chan struct{})
	var err error
	go func() {
		err = work()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(time.Second):
		r.FailNow("work did not return")
	}
	t.Log(err.Error())
}

// Logged: the timeout only logs, and the read follows it.
func Logged(t *testing.T) {
	done := make(chan struct{})
	var err error
	go func() {
		err = work()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(time.Second):
		t.Log("work did not return")
	}
	t.Log(err.Error()) // want `err may be read before it is set`
}

// Checked: require.Error returns when its argument is not nil, so the
// timeout's path reaches the read.
func Checked(t *testing.T) {
	done := make(chan struct{})
	var err error
	go func() {
		err = work()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(time.Second):
		require.Error(t, errors.New("timeout"))
	}
	t.Log(err.Error()) // want `err may be read before it is set`
}
