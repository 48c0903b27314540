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
