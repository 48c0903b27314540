// Package loopsend: a goroutine that, in a loop, sets a variable and
// then sends, read after a receive (netpoll's accept loop in
// shard_queue_test.go): the write of the next turn comes after the first
// send, but the send whose value the receive took ran after some write
// on the sender's goroutine, so the read never sees the zero value:
// silent, for a captured variable and for a field of a captured pointer
// set only before the go statement. Reported: a send before the write in
// the turn, a send on a path that skips the write, and a write through an
// address each turn computes anew (a field of the turn's element).
package loopsend

type conn struct{ id int }

func accept(i int) *conn { return &conn{id: i} }

// Accepted is the shape: write, then send, in a loop.
func Accepted(stop chan int) int {
	var c *conn
	accepted := make(chan struct{})
	go func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			c = accept(i)
			accepted <- struct{}{}
		}
	}()
	<-accepted
	return c.id
}

// Field writes a field of a struct the goroutine captured, each turn.
type server struct{ last *conn }

func Field(s *server) int {
	accepted := make(chan bool)
	go func() {
		for i := 0; i < 10; i++ {
			s.last = accept(i)
			accepted <- true
		}
	}()
	<-accepted
	return s.last.id
}

// SendFirst sends before it writes in each turn: the first send comes
// before any write.
func SendFirst() int {
	var c *conn
	ready := make(chan struct{})
	go func() {
		for i := 0; ; i++ {
			ready <- struct{}{}
			c = accept(i)
		}
	}()
	<-ready
	return c.id // want `c may be read before it is set`
}

// Skipped sends on a path that skips the write.
func Skipped(ok func() bool) int {
	var c *conn
	ready := make(chan struct{})
	go func() {
		for i := 0; ; i++ {
			if ok() {
				c = accept(i)
			}
			ready <- struct{}{}
		}
	}()
	<-ready
	return c.id // want `c may be read before it is set`
}

// Indexed writes the field of a different element each turn: the send
// the receive took followed the write of element 0 only.
type holder struct{ c *conn }

func Indexed() int {
	hs := make([]holder, 10)
	ready := make(chan struct{})
	go func() {
		for i := range hs {
			hs[i].c = accept(i)
			ready <- struct{}{}
		}
	}()
	<-ready
	return hs[3].c.id // want `hs\[3\].c may be read before it is set`
}
