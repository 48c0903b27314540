package timerarm

import (
	"testing"
	"time"
)

// TestArm arms a timer of 20 ms and waits for its callback, which
// finds the timer fired.
func TestArm(t *testing.T) {
	c := &Conn{}
	c.Arm(20 * time.Millisecond)
	if <-c.fired {
		t.Error("the callback stopped a pending timer")
	}
}

// TestArmLocked is TestArm on the RIGHT version.
func TestArmLocked(t *testing.T) {
	c := &LockedConn{}
	c.Arm(20 * time.Millisecond)
	if <-c.fired {
		t.Error("the callback stopped a pending timer")
	}
}
