// Package laterstart holds tests that receive a worker goroutine's one
// send on a done channel before they read what the worker set, while
// other function literals of the test hold the channel too: a Cleanup
// that closes it (run only after the test returned), a second worker
// started only after the receive, or an earlier one whose own send a
// receive took before the worker started. Silent, however deep in calls
// the worker's write is (gue's TestNewWorker_GracefulShutdown:
// TestDeepWorker and TestTwoWorkers). TestEarlierSend is silent by
// counting its two sends and two receives too. Reported: a read before
// the receive, a second sender started before it (the receive may take
// its send), an earlier goroutine that closes the channel (every later
// receive returns at once), and a close in a literal the test calls
// itself.
package laterstart

import "testing"

// Worker runs a job's function through a chain of calls, as a job
// queue's worker does: deeper than ordering follows a write to the send
// after it.
type Worker struct {
	wm map[string]func()
}

func (w *Worker) Run()     { runLocked(w.runLoop) }
func runLocked(f func())   { f() }
func (w *Worker) runLoop() { w.workOne() }
func (w *Worker) workOne() { w.wm["job"]() }

func TestDeepWorker(t *testing.T) {
	var cancelled bool
	done := make(chan bool)
	t.Cleanup(func() {
		close(done)
	})
	w := &Worker{wm: map[string]func(){"job": func() { cancelled = true }}}
	go func() {
		w.Run()
		done <- true
	}()
	<-done
	mustBe(t, cancelled, true)
}

func TestTwoWorkers(t *testing.T) {
	var cancelled bool
	done := make(chan bool)
	t.Cleanup(func() {
		close(done)
	})
	go func() {
		cancelled = true
		done <- true
	}()
	<-done
	mustBe(t, cancelled, true)
	go func() {
		cancelled = false
		done <- true
	}()
	<-done
	mustBe(t, cancelled, false)
}

func TestEarlierSend(t *testing.T) {
	var n int
	done := make(chan bool)
	go func() {
		done <- true
	}()
	<-done
	go func() {
		n = 1
		done <- true
	}()
	<-done
	use(n)
}

func TestReadFirst(t *testing.T) {
	var n int
	done := make(chan bool)
	t.Cleanup(func() {
		close(done)
	})
	go func() {
		n = 1
		done <- true
	}()
	use(n) // want `n may be read before it is set`
	<-done
}

func TestStartedBefore(t *testing.T) {
	var n int
	done := make(chan bool)
	go func() {
		n = 1
		done <- true
	}()
	go func() {
		done <- true
	}()
	<-done
	use(n) // want `n may be read before it is set`
	<-done
}

func TestEarlierClose(t *testing.T) {
	var n int
	done := make(chan bool)
	go func() {
		close(done)
	}()
	<-done
	go func() {
		n = 1
		done <- true
	}()
	<-done
	use(n) // want `n may be read before it is set`
}

func TestCalledClose(t *testing.T) {
	var n int
	done := make(chan bool)
	stop := func() { close(done) }
	go func() {
		n = 1
		done <- true
	}()
	stop()
	<-done
	use(n) // want `n may be read before it is set`
}

func mustBe(t *testing.T, got, want bool) {
	if got != want {
		t.Fatal(got)
	}
}

func use(n int) {}
