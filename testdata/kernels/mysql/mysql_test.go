package mysql

import (
	"strings"
	"testing"
	"time"
)

// TestProcInfo runs one statement on session 1 while session 2 runs SHOW
// PROCESSLIST once. The statement executes for 20 ms after it has started, so
// SHOW PROCESSLIST normally checks and prints procInfo long before the
// session stores nil to it.
func TestProcInfo(t *testing.T) {
	s := NewServer()
	thd := s.Connect(1)
	running := make(chan struct{})
	finished := make(chan struct{})
	shown := make(chan string)
	go func() { // session 1
		defer close(finished)
		thd.Dispatch("SELECT SLEEP(0.02)", func(string) {
			close(running)
			time.Sleep(20 * time.Millisecond)
		})
	}()
	go func() { // session 2
		<-running
		var out strings.Builder
		s.ShowProcessList(&out)
		shown <- out.String()
	}()
	got := <-shown
	<-finished
	if !strings.HasPrefix(got, "1") {
		t.Errorf("SHOW PROCESSLIST = %q, want a row for session 1", got)
	}
}
