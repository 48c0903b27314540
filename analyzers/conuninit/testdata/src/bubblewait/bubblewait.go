// Package bubblewait holds reads, after testing/synctest.Wait, of what a
// goroutine of the bubble sets. Wait returns once every other goroutine
// of the bubble is durably blocked or has ended: silent when nothing
// that may block durably comes before the write on the goroutine (the
// example of synctest's documentation); reported when the goroutine may
// be blocked before the write when Wait returns (a time.Sleep first: the
// read then finds nil), and when nothing waits.
package bubblewait

import (
	"testing"
	"testing/synctest"
	"time"
)

type result struct{ n int }

func compute(n int) *result { return &result{n: n * 2} }

// Done: the goroutine cannot block before it sets res.
func Done(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var res *result
		go func() {
			res = compute(1)
		}()
		synctest.Wait()
		t.Log(res.n)
	})
}

// Slept: the goroutine sleeps first, and time advances only once every
// goroutine, the test's too, is blocked: Wait returns with it asleep.
func Slept(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var res *result
		go func() {
			time.Sleep(time.Second)
			res = compute(2)
		}()
		synctest.Wait()
		t.Log(res.n) // want `res may be read before it is set`
	})
}

// NoWait: nothing waits for the goroutine.
func NoWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var res *result
		go func() {
			res = compute(3)
		}()
		t.Log(res.n) // want `res may be read before it is set`
	})
}
