// Package helperjoin: a helper that takes the test's t starts a goroutine
// and returns a function that waits for it (gowarc's drainErrChan returns
// `func() { wg.Wait() }`); a test that calls the returned function on
// every path to its return does not return before the goroutine's
// t.Errorf. The controls: a test that may return without calling it, a
// helper called twice whose second result is never called, a returned
// function that waits on another WaitGroup, and one that does not always
// wait.
package helperjoin

func serve() error { return nil }
