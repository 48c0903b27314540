// Package deferstop: a test defers the Stop that closes a pacer's gate and
// waits for its goroutine, which sends on the gate inside Next, to close
// done (gammazero/workerpool's pacer tests; the pacers are in the test
// file, since only the test variant has goroutines). The deferred Stop
// runs when the test returns, after the wait: silent, even with a t.Fatal
// in a select case that received done. A t.Fatal, or a helper handed t
// (as testing.TB, as an interface with FailNow, or in a struct), before
// the wait lets the deferred Stop run while the goroutine may still be in
// Next: reported (a crash on the test's failure path).
package deferstop
