// Package bubblelog: goroutines of a testing/synctest bubble that log on
// the bubble's T after its function may have returned. The log goes to
// the test that called synctest.Test, which waits there for every
// goroutine of the bubble: silent. An Errorf on the bubble's T panics
// once its function has returned ("Fail in goroutine after TestX has
// completed"), and so does a log on a t.Run subtest's T once it and its
// parent are done: reported.
package bubblelog

import (
	"testing"
	"testing/synctest"
)

func TestBubbleLog(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		go func() {
			t.Logf("late %d", 1)
			t.Log("later")
		}()
	})
}

func TestBubbleError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		go func() {
			t.Log("fine")
			t.Errorf("late") // want `t.Errorf\("late"\) called from a goroutine that may outlive the test: func literal in TestBubbleError can return before it runs, and then the call panics$`
		}()
	})
}

func TestSubtestLog(t *testing.T) {
	t.Run("sub", func(t *testing.T) {
		go func() {
			t.Log("late") // want `t.Log\("late"\) called from a goroutine that may outlive the test: func literal in TestSubtestLog can return before it runs, and then the call panics$`
		}()
	})
}

// A function literal handed to synctest.Test and to t.Run: its T may be
// a subtest's.
func TestBoth(t *testing.T) {
	f := func(t *testing.T) {
		go func() {
			t.Log("both") // want `t.Log\("both"\) called from a goroutine that may outlive the test`
		}()
	}
	synctest.Test(t, f)
	t.Run("sub", f)
}
