// Package subtests: a test or subtest that calls t.Parallel runs beside
// its siblings; one that does not runs on its parent's goroutine.
package subtests

// Step is the package's API: code outside it may call it on any goroutine.
func Step() {} // want `^ctx: caller$`
