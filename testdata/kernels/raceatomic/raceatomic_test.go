package raceatomic

import (
	"testing"
	"time"
)

func TestClose(t *testing.T) {
	c := &Conn{}
	go c.Close()
	time.Sleep(5 * time.Millisecond)
	if !c.Closed() {
		t.Log("not closed yet")
	}
}
