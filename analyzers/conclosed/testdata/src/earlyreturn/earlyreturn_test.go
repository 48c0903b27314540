package earlyreturn

import "testing"

// TestReturnBeforeSpawn returns early only before its goroutine starts;
// once it starts, the test waits for it.
func TestReturnBeforeSpawn(t *testing.T) {
	if testing.Short() {
		return
	}
	done := make(chan struct{})
	go func() {
		t.Log("working")
		close(done)
	}()
	<-done
}

// TestReturnAfterSpawn may return while its goroutine runs.
func TestReturnAfterSpawn(t *testing.T) {
	done := make(chan struct{})
	go func() {
		t.Log("working") // want `t.Log\("working"\) called from a goroutine that may outlive the test`
		close(done)
	}()
	if testing.Short() {
		return
	}
	<-done
}
