package channels

// Callee: the work is in a function the goroutine calls before it
// closes the channel (workerpool's pacer test: go func() { p.Next();
// close(done) }(), the send in Next).
func Callee() {
	done := make(chan struct{})
	go func() {
		callee()
		close(done)
	}()
	<-done
	b("callee") // want `^callee: a before b by channel$`
}

func callee() { a("callee") }

// Negative: the callee runs after the close.
func CalleeAfter() {
	done := make(chan struct{})
	go func() {
		close(done)
		calleeAfter()
	}()
	<-done
	b("callee after") // want `^callee after: unordered$`
}

func calleeAfter() { a("callee after") }

// Negative: the goroutine's function calls itself after its send, so a
// nested call's work comes after the first send, which the receive may
// have taken.
func Recursive() {
	ch := make(chan int, 3)
	go again(ch, 2)
	<-ch
	b("recursive") // want `^recursive: unordered$`
}

func again(ch chan int, n int) {
	recursive()
	ch <- n
	if n > 0 {
		again(ch, n-1)
	}
}

func recursive() { a("recursive") }

// Deferred: the deferred call runs when the function returns, after the
// receive, which every return passes.
func Deferred() {
	done := make(chan struct{})
	defer func() {
		b("deferred") // want `^deferred: a before b by channel$`
	}()
	go func() {
		a("deferred")
		close(done)
	}()
	<-done
}

// Negative: a panic before the receive runs the deferred call first.
func DeferredPanic(fail bool) {
	done := make(chan struct{})
	go func() {
		a("deferred panic")
		close(done)
	}()
	defer func() {
		b("deferred panic") // want `^deferred panic: unordered$`
	}()
	if fail {
		panic("failed")
	}
	<-done
}

// Negative: a return before the receive.
func DeferredReturn(quit bool) {
	done := make(chan struct{})
	go func() {
		a("deferred return")
		close(done)
	}()
	defer func() {
		b("deferred return") // want `^deferred return: unordered$`
	}()
	if quit {
		return
	}
	<-done
}

// Negative: a call deferred before the goroutine starts runs when the
// function returns, after the goroutine may have run.
func DeferredBeforeGo() {
	defer func() {
		b("deferred before go") // want `^deferred before go: unordered$`
	}()
	go func() {
		a("deferred before go")
	}()
}
