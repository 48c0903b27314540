// Package successsend is go-kit's transport tests: a helper's goroutine
// calls t.Error and returns when its request fails, and otherwise sends
// the response, which the test receives before it returns; on the error
// path the test waits forever (a hang, not a call after its end). Silent:
// that shape, through a helper or in the test itself. Reported: a test
// that may return without receiving, a goroutine that sends before its
// t.Error, a helper that may end the test before it returns the channel,
// and a goroutine started in a loop.
package successsend

import (
	"errors"
	"testing"
)

var errFailed = errors.New("failed")

func get(n int) (int, error) {
	if n < 0 {
		return 0, errFailed
	}
	return n, nil
}

// testServer starts the request and returns its response channel.
func testServer(t *testing.T, n int) (step func(), resp <-chan int) {
	var (
		stepch   = make(chan bool, 1)
		response = make(chan int)
	)
	go func() {
		resp, err := get(n)
		if err != nil {
			t.Error(err)
			return
		}
		response <- resp
	}()
	return func() { stepch <- true }, response
}

func TestHappyPath(t *testing.T) {
	step, response := testServer(t, 1)
	step()
	if r := <-response; r != 1 {
		t.Errorf("got %d", r)
	}
}

func TestOwnGoroutine(t *testing.T) {
	response := make(chan int)
	go func() {
		resp, err := get(2)
		if err != nil {
			t.Error(err)
			return
		}
		response <- resp
	}()
	<-response
}

// TestMayReturn returns without receiving in short mode.
func TestMayReturn(t *testing.T) {
	response := make(chan int)
	go func() {
		resp, err := get(3)
		if err != nil {
			t.Error(err) // want `t.Error\(err\) called from a goroutine that may outlive the test`
			return
		}
		response <- resp
	}()
	if testing.Short() {
		return
	}
	<-response
}

// TestSendFirst's goroutine sends, and then reports: the test may have
// returned by then.
func TestSendFirst(t *testing.T) {
	response := make(chan int)
	go func() {
		resp, err := get(4)
		response <- resp
		if err != nil {
			t.Error(err) // want `t.Error\(err\) called from a goroutine that may outlive the test`
		}
	}()
	<-response
}

// testFatalServer may end the test after it started the goroutine.
func testFatalServer(t *testing.T, n int) chan int {
	response := make(chan int)
	go func() {
		resp, err := get(n)
		if err != nil {
			t.Error(err) // want `t.Error\(err\) called from a goroutine that may outlive the test`
			return
		}
		response <- resp
	}()
	if n > 100 {
		t.Fatal("too large")
	}
	return response
}

func TestFatalServer(t *testing.T) {
	<-testFatalServer(t, 5)
}

// TestLoop starts two goroutines on one channel and receives once.
func TestLoop(t *testing.T) {
	response := make(chan int)
	for i := range 2 {
		go func() {
			resp, err := get(i)
			if err != nil {
				t.Error(err) // want `t.Error\(err\) called from a goroutine that may outlive the test`
				return
			}
			response <- resp
		}()
	}
	<-response
}
