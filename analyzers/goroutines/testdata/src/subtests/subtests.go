// Package subtests: a test or subtest that calls t.Parallel runs beside
// its siblings; one that does not runs on its parent's goroutine.
package subtests
