package mysql1a

import (
	"testing"
	"time"
)

// TestRotateAppend rotates the log while a session commits a statement. The
// commit normally comes 2 ms after the rotation.
func TestRotateAppend(t *testing.T) {
	l := NewLog()
	rotated := make(chan struct{})
	logged := make(chan bool)
	go func() {
		defer close(rotated)
		l.Rotate()
	}()
	go func() {
		time.Sleep(2 * time.Millisecond)
		logged <- l.Append("INSERT INTO t VALUES (1)")
	}()
	ok := <-logged
	<-rotated
	if !ok {
		t.Errorf("committed statement missing from the binary log")
	}
}
