package golden

import (
	"fmt"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type state struct{ pending, seq int }

// conditions: testify's polled conditions. The first run is forked by
// CondFork at the call's last argument that is not a constant, when one
// follows the condition (CondBoolLate, CondWithLate); else by CondBool or
// CondWith at the condition.
func conditions(t require.TestingT, s *state, msgs []interface{}) bool {
	var pending, seq int
	require.Eventually(t, func() bool { // CondBoolLate; CondFork: seq, the last argument that is not a constant
		pending, seq = s.pending, s.seq
		return pending == 0
	}, 5*time.Second, 10*time.Millisecond, "pending=%d seq=%d", pending, seq)
	require.Eventually(t, func() bool { return s.pending == 0 }, time.Second, time.Millisecond)          // CondBool: constants only after it
	require.Eventually(t, func() bool { return s.pending == 0 }, time.Second, time.Millisecond, "msg")   // CondBool: a constant message
	require.Eventually(t, func() bool { return s.pending == 0 }, time.Second, time.Millisecond, msgs...) // CondFork: the spread slice
	wait := time.Second
	require.Eventually(t, func() bool { return s.pending == 0 }, wait, time.Millisecond)                                           // CondFork: wait
	require.Eventually(t, func() bool { return s.pending == 0 }, wait, time.Millisecond, "seq=%d", s.seq)                          // CondFork: s.seq, after its read
	require.Eventually(t, func() bool { return s.pending == 0 }, wait, time.Millisecond, fmt.Sprint(s.pending), 1)                 // CondFork: fmt.Sprint's result
	require.Eventually(t, func() bool { return s.pending == 0 }, wait, time.Millisecond, "ok", nil)                                // CondBool: a nil last, which CondFork cannot type
	require.Eventually(t, func() bool { return s.pending == 0 }, wait, time.Millisecond, "ok", seq > 0)                            // CondBool: an untyped comparison last
	require.EventuallyWithT(t, func(c *assert.CollectT) { assert.True(c, s.pending == 0) }, wait, time.Millisecond, "seq=%d", seq) // CondWithLate
	ok := assert.Eventuallyf(t, func() bool { return s.pending == 0 }, time.Second, time.Millisecond, "%d", seq)                   // CondBoolLate around a value
	a := assert.New(t)
	a.Eventually(func() bool { return s.pending == 0 }, time.Second, time.Millisecond, "seq=%d", seq) // a method: CondBoolLate
	return ok
}
