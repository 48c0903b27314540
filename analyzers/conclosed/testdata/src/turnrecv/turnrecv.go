// Package turnrecv: a loop that starts one goroutine per turn and, before
// the next start, receives that goroutine's one send (or finds the
// channel closed and returns) lets one goroutine at a time send or close
// (golang-queue's worker loop): silent. A receive that a select's timeout
// may skip, a receive that does not stop at a close, and a goroutine
// that may send twice are reported.
package turnrecv

import "time"

func request() *int { return nil }

func Loop() {
	tasks := make(chan *int, 1)
	for {
		go func() {
			if t := request(); t != nil {
				tasks <- t
				return
			}
			close(tasks)
		}()
		t, ok := <-tasks
		if !ok {
			return
		}
		_ = t
	}
}

func Timeout() {
	tasks := make(chan *int, 1)
	for {
		go func() {
			if t := request(); t != nil {
				tasks <- t // want `send on closed channel: tasks may be closed concurrently by func literal in Timeout`
				return
			}
			close(tasks) // want `close of closed channel: tasks may also be closed by func literal in Timeout`
		}()
		select {
		case t, ok := <-tasks:
			if !ok {
				return
			}
			_ = t
		case <-time.After(time.Second):
		}
	}
}

func NoStop() {
	tasks := make(chan *int, 1)
	for i := 0; i < 3; i++ {
		go func() {
			if t := request(); t != nil {
				tasks <- t // want `send on closed channel: tasks may be closed concurrently by func literal in NoStop`
				return
			}
			close(tasks) // want `close of closed channel: tasks may also be closed by func literal in NoStop`
		}()
		t := <-tasks
		_ = t
	}
}

func Twice() {
	tasks := make(chan *int, 1)
	for {
		go func() {
			for range 2 {
				if t := request(); t != nil {
					tasks <- t // want `send on closed channel: tasks may be closed concurrently by func literal in Twice`
				}
			}
			close(tasks) // want `close of closed channel: tasks may also be closed by func literal in Twice`
		}()
		t, ok := <-tasks
		if !ok {
			return
		}
		_ = t
	}
}
