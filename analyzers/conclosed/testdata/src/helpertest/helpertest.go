// Package helpertest: a helper that takes the test's t starts a goroutine
// that may call t.Errorf after the test returned; the diagnostic names the
// tests that call the helper, not the helper, as the test. A helper that
// waits for its goroutine is silent; a test body run through a function
// value (net/http's run(t, testX)) is named itself.
package helpertest

func serve() error { return nil }
