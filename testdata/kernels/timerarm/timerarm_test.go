package timerarm

import (
	"testing"
	"time"
)

// TestArm arms a timer of 100 ms and waits for its callback, which
// finds the timer fired. (With 20 ms, a loaded machine can deschedule Arm
// between AfterFunc and its store for longer: the recorded run crashes.)
func TestArm(t *testing.T) {
	c := &Conn{}
	c.Arm(100 * time.Millisecond)
	if <-c.fired {
		t.Error("the callback stopped a pending timer")
	}
}

// TestArmLocked is TestArm on the RIGHT version, whose timer fires twice.
func TestArmLocked(t *testing.T) {
	c := &LockedConn{}
	c.Arm(100 * time.Millisecond)
	if <-c.fired {
		t.Error("the callback stopped a pending timer")
	}
}
