package mysql2

import (
	"sync"
	"testing"
	"time"
)

// TestKill kills session 7 while its statement runs. The statement runs
// for 2 ms after the session has started; KILL normally takes microseconds.
func TestKill(t *testing.T) {
	thd := &THD{id: 7}
	running := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { // session 7
		defer wg.Done()
		thd.Begin()
		close(running)
		time.Sleep(2 * time.Millisecond) // the statement
		thd.End()
	}()
	go func() { // another client: KILL 7
		defer wg.Done()
		<-running
		thd.Awake()
	}()
	wg.Wait()
	if !thd.vioShut {
		t.Error("KILL did not shut the session's connection down")
	}
}
