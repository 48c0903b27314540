// Package channels: code before every send on (or close of) a channel
// happens before code that follows a receive from it, for unbuffered and
// buffered channels alike.
package channels

func a(string) {}
func b(string) {}

func Close() {
	done := make(chan struct{})
	go func() {
		a("close")
		close(done)
	}()
	<-done
	b("close") // want `^close: a before b by channel$`
}

func Unbuffered() {
	res := make(chan int)
	go func() {
		a("unbuffered")
		res <- 1
	}()
	v := <-res
	_ = v
	b("unbuffered") // want `^unbuffered: a before b by channel$`
}

func Buffered() {
	res := make(chan int, 1)
	go func() {
		a("buffered")
		res <- 1
	}()
	<-res
	b("buffered") // want `^buffered: a before b by channel$`
}

func Range() {
	ch := make(chan int)
	go func() {
		a("range")
		ch <- 1
		close(ch)
	}()
	for range ch {
		b("range") // want `^range: a before b by channel$`
	}
}

func SendFirst() {
	ch := make(chan int)
	go func() {
		ch <- 1
		a("send first")
	}()
	<-ch
	b("send first") // want `^send first: unordered$`
}

func MaybeReceive(wait bool) {
	ch := make(chan int, 1)
	go func() {
		a("maybe")
		ch <- 1
	}()
	if wait {
		<-ch
	}
	b("maybe") // want `^maybe: unordered$`
}

func OtherSender() {
	ch := make(chan int, 2)
	go func() {
		a("other sender")
		ch <- 1
	}()
	go func() {
		ch <- 2
	}()
	<-ch
	b("other sender") // want `^other sender: unordered$`
}

// DeferredClose: the entry defers a closure that closes the channel,
// which runs when the entry returns, after the entry's own work
// (go-workflows' activity executor: its deferred closure recovers a panic,
// then closes done).
func DeferredClose() {
	done := make(chan struct{})
	go func() {
		defer func() {
			recover()
			close(done)
		}()
		a("deferred close")
	}()
	<-done
	b("deferred close") // want `^deferred close: a before b by channel$`
}

// Negative: the closure that closes the channel is called before the
// work.
func CalledClose() {
	done := make(chan struct{})
	go func() {
		finish := func() { close(done) }
		finish()
		a("called close")
	}()
	<-done
	b("called close") // want `^called close: unordered$`
}

// Negative: the entry calls itself, so the inner call's deferred send
// comes before the outer call's work, and the receive may take it.
func RecursiveDeferred() {
	ch := make(chan int, 3)
	go deferAgain(ch, 2)
	<-ch
	b("recursive deferred") // want `^recursive deferred: unordered$`
}

func deferAgain(ch chan int, n int) {
	defer func() { ch <- n }()
	if n > 0 {
		deferAgain(ch, n-1)
	}
	a("recursive deferred")
}

// RangeEnd: a range over a channel ends only on a receive that finds it
// closed, and the close happens before that receive, whatever was sent
// before the work (pion/transport's stress test: the writer sends every
// message, sends its result, then closes; the reader's loop ends, then it
// closes the result channel).
func RangeEnd() {
	bufs := make(chan int, 4)
	go func() {
		for i := 0; i < 3; i++ {
			bufs <- i
		}
		a("range end")
		close(bufs)
	}()
	for v := range bufs {
		_ = v
	}
	b("range end") // want `^range end: a before b by channel$`
}

// ClosedOK: the branch of a comma-ok receive that found the channel
// closed.
func ClosedOK() {
	ch := make(chan int, 1)
	go func() {
		ch <- 1
		a("closed ok")
		close(ch)
	}()
	for {
		v, ok := <-ch
		if !ok {
			b("closed ok") // want `^closed ok: a before b by channel$`
			return
		}
		_ = v
	}
}

// Negative: the loop also ends by a break, after a value sent before the
// work.
func RangeBreak() {
	bufs := make(chan int, 4)
	go func() {
		bufs <- 1
		a("range break")
		close(bufs)
	}()
	for v := range bufs {
		if v == 1 {
			break
		}
	}
	b("range break") // want `^range break: unordered$`
}

// Negative: the branch that received a value sent before the work.
func OKBranch() {
	ch := make(chan int, 1)
	go func() {
		ch <- 1
		a("ok branch")
		close(ch)
	}()
	if _, ok := <-ch; ok {
		b("ok branch") // want `^ok branch: unordered$`
	}
}

// Negative: the close comes before the work.
func CloseFirst() {
	bufs := make(chan int, 4)
	go func() {
		bufs <- 1
		close(bufs)
		a("close first")
	}()
	for range bufs {
	}
	b("close first") // want `^close first: unordered$`
}

// Negative: another goroutine may be the one that closes the channel.
func OtherCloser(stop bool) {
	bufs := make(chan int, 4)
	go func() {
		bufs <- 1
		a("other closer")
		close(bufs)
	}()
	go func() {
		if stop {
			close(bufs)
		}
	}()
	for range bufs {
	}
	b("other closer") // want `^other closer: unordered$`
}

// Handshake: a goroutine sends on an unbuffered channel, then receives
// from it (lz4's `c <- nil; <-c`). It never receives its own send (the
// send completes only with another goroutine's receive), so its receive
// takes the other goroutine's send, after a.
func Handshake() {
	c := make(chan int)
	go func() {
		<-c
		a("handshake")
		c <- 1
	}()
	done := make(chan bool)
	go func() {
		c <- 0
		<-c
		b("handshake") // want `^handshake: a before b by channel$`
		done <- true
	}()
	<-done
}

// HandshakeVar: the channel is kept in a variable that is only ever set
// to unbuffered channels.
func HandshakeVar(other bool) {
	var c chan int
	if other {
		c = make(chan int)
	} else {
		c = make(chan int, 0)
	}
	go func() {
		<-c
		a("handshakevar")
		c <- 1
	}()
	go func() {
		c <- 0
		<-c
		b("handshakevar") // want `^handshakevar: a before b by channel$`
	}()
}

// HandshakeBuffered: with a buffer the goroutine may take back its own
// send, before the other goroutine has done anything.
func HandshakeBuffered() {
	c := make(chan int, 1)
	go func() {
		<-c
		a("handbuf")
		c <- 1
	}()
	go func() {
		c <- 0
		<-c
		b("handbuf") // want `^handbuf: unordered$`
	}()
}

// HandshakeMaybeBuffered: one of the channels the variable may hold is
// buffered.
func HandshakeMaybeBuffered(n int) {
	c := make(chan int)
	if n > 0 {
		c = make(chan int, n)
	}
	go func() {
		<-c
		a("handmaybe")
		c <- 1
	}()
	go func() {
		c <- 0
		<-c
		b("handmaybe") // want `^handmaybe: unordered$`
	}()
}

// HandshakeMany: the receiver's context has several goroutines at once,
// one of which may take another's send.
func HandshakeMany() {
	c := make(chan int)
	go func() {
		<-c
		a("handmany")
		c <- 1
	}()
	for i := 0; i < 2; i++ {
		go func() {
			c <- 0
			<-c
			b("handmany") // want `^handmany: unordered$`
		}()
	}
}
