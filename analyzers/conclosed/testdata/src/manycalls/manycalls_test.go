package manycalls

import "testing"

// TestManyCalls's goroutine makes three testing calls after the test may
// have returned: one diagnostic, at the first, names the other two.
func TestManyCalls(t *testing.T) {
	errs := make(chan error)
	go func() {
		for err := range errs {
			if err == nil {
				t.Log("ok") // want `t.Log\("ok"\) called from a goroutine that may outlive the test: TestManyCalls can return before it runs, and then the call panics \(as would 2 more testing calls of this goroutine\)`
				continue
			}
			t.Errorf("got %v", err)
			t.Logf("after %v", err)
		}
	}()
	errs <- nil
}

// TestTwoGoroutines's goroutines each get their own diagnostic.
func TestTwoGoroutines(t *testing.T) {
	go func() {
		t.Log("one") // want `t.Log\("one"\) called from a goroutine that may outlive the test: TestTwoGoroutines can return before it runs, and then the call panics$`
	}()
	go func() {
		t.Log("two") // want `t.Log\("two"\) called from a goroutine`
	}()
}
