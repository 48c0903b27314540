package misc

import "testing"

// Test code is the suite's input, never logged.
func TestWork(t *testing.T) { // want `TestWork: test`
	Work(2)
	if total < 0 {
		t.Fatal("negative")
	}
}
