package rwscript

import (
	"testing"
	"time"
)

func run(t *testing.T, load func(*Engine, *Script) int) {
	e := &Engine{}
	done := make(chan int, 2)
	go func() { done <- load(e, &Script{src: "var x = 1"}) }()
	go func() { time.Sleep(20 * time.Millisecond); e.Reset(); done <- 0 }()
	if <-done+<-done == 0 {
		t.Error("nothing compiled")
	}
}

// TestLoadReset loads a script while the page is reset 20 ms later.
func TestLoadReset(t *testing.T) { run(t, (*Engine).Load) }

// TestLoadLockedReset is TestLoadReset on the RIGHT version.
func TestLoadLockedReset(t *testing.T) { run(t, (*Engine).LoadLocked) }
