package spawn

import (
	"strconv"
	"testing"
)

// What a test does before a loop that starts parallel subtests through a
// function literal it calls each turn happens before every subtest, as
// when the loop calls t.Run itself (go-control-plane's
// TestLinearConcurrentSetWatch).
func TestSubtestsFromLiteral(t *testing.T) {
	a("subtests from literal")
	for i := range 3 {
		func(i int) {
			t.Run(strconv.Itoa(i), func(t *testing.T) {
				t.Parallel()
				b("subtests from literal") // want `^subtests from literal: a before b by goroutine start$`
			})
		}(i)
	}
}

// The same with a go statement in a helper literal called in the loop.
func TestGoFromLiteral(t *testing.T) {
	a("go from literal")
	for range 3 {
		start := func() {
			go func() {
				b("go from literal") // want `^go from literal: a before b by goroutine start$`
			}()
		}
		start()
	}
}

// Negative: the literal itself does a before its start, so the next
// turn's a runs while the last turn's goroutine does b.
func TestRerunInLiteral(t *testing.T) {
	for range 3 {
		func() {
			a("rerun in literal")
			go func() {
				b("rerun in literal") // want `^rerun in literal: unordered$`
			}()
		}()
	}
}

// Negative: a in the loop, before the literal's call, runs again after
// the last turn's start.
func TestRerunInLoop(t *testing.T) {
	for range 3 {
		a("rerun in loop")
		func() {
			go func() {
				b("rerun in loop") // want `^rerun in loop: unordered$`
			}()
		}()
	}
}

// Negative: a after the loop.
func TestAfterLoop(t *testing.T) {
	for range 3 {
		func() {
			go func() {
				b("after loop") // want `^after loop: unordered$`
			}()
		}()
	}
	a("after loop")
}

// A subtest that does not call t.Parallel runs on the test's goroutine.
func TestSerialSubtest(t *testing.T) {
	a("serial subtest")
	for i := range 3 {
		func(i int) {
			t.Run(strconv.Itoa(i), func(t *testing.T) {
				b("serial subtest") // want `^serial subtest: same goroutine$`
			})
		}(i)
	}
}
