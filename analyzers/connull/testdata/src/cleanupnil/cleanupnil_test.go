// Package cleanupnil stores nil in a Cleanup, which runs once the test has
// returned: after a goroutine that the test waits for read the variable
// (silent), but not after one it never waits for, which may still run then
// (reported; the Cleanup registered before the go statement does not run
// before it).
package cleanupnil

import "testing"

type conn struct{ n int }

func TestJoined(t *testing.T) {
	c := &conn{}
	done := make(chan bool)
	t.Cleanup(func() {
		c = nil
	})
	go func() {
		_ = c.n
		done <- true
	}()
	<-done
}

func TestNeverWaits(t *testing.T) {
	c := &conn{}
	t.Cleanup(func() {
		c = nil
	})
	go func() {
		_ = c.n // want `c may be nil when dereferenced here: func literal in TestNeverWaits stores nil to it concurrently`
	}()
}
