// Package relayjoin: tests that wait for their workers through a
// goroutine that waits on the workers' WaitGroup and then closes a
// channel: the channel the test ranges over (a fan-in), or a done channel
// it selects on before it closes the workers' results channel. The close
// relays the join: the range ends, and the select's case is taken, only
// after every worker is done. A closer that does not wait, or waits on
// another WaitGroup, relays nothing: reported (the second's test waits for
// the workers itself, after the range: its sends may meet the close).
package relayjoin

import (
	"errors"
	"sync"
	"testing"
	"time"
)

func work(i int) (int, error) {
	if i < 0 {
		return 0, errors.New("negative")
	}
	return i, nil
}

func TestFanIn(t *testing.T) {
	ch := make(chan int)
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			v, err := work(i)
			if err != nil {
				t.Error(err)
				return
			}
			ch <- v
		})
	}
	go func() {
		wg.Wait()
		close(ch)
	}()
	for range ch {
	}
}

func TestFanInNoWait(t *testing.T) {
	ch := make(chan int)
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			v, err := work(i)
			if err != nil {
				t.Error(err) // want `t.Error\(err\) called from a goroutine that may outlive the test`
				return
			}
			ch <- v // want `send on closed channel: ch may be closed concurrently by func literal in TestFanInNoWait`
		})
	}
	go func() {
		time.Sleep(time.Millisecond)
		close(ch)
	}()
	for range ch {
	}
}

func TestFanInOtherGroup(t *testing.T) {
	ch := make(chan int)
	var wg, other sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			v, err := work(i)
			if err != nil {
				t.Error(err)
				return
			}
			ch <- v // want `send on closed channel: ch may be closed concurrently by func literal in TestFanInOtherGroup`
		})
	}
	go func() {
		other.Wait()
		close(ch)
	}()
	for range ch {
	}
	wg.Wait()
}

func TestSelectDone(t *testing.T) {
	ch := make(chan int, 5)
	var wg sync.WaitGroup
	for i := range 5 {
		wg.Go(func() {
			ch <- i
		})
	}
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("timed out")
	}
	close(ch)
}

func TestSelectNoWait(t *testing.T) {
	ch := make(chan int, 5)
	var wg sync.WaitGroup
	for i := range 5 {
		wg.Go(func() {
			ch <- i // want `send on closed channel: ch may be closed concurrently by TestSelectNoWait`
		})
	}
	done := make(chan struct{})
	go func() {
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("timed out")
	}
	close(ch)
	wg.Wait()
}
