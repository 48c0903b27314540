package mysql2am

import (
	"testing"
	"time"
)

// TestUpdateLog runs two updates of the row from two sessions; the second
// normally starts 2 ms after the first has finished.
func TestUpdateLog(t *testing.T) {
	db := &DB{}
	done := make(chan bool)
	go func() {
		db.Update(1)
		done <- true
	}()
	go func() {
		time.Sleep(2 * time.Millisecond)
		db.Update(2)
		done <- true
	}()
	<-done
	<-done
	if !db.Replayed() {
		t.Errorf("binary log does not replay to the row's value")
	}
}
