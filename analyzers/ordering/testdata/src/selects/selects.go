// Package selects: a receive in a select case orders the case's body, and
// only that case's, after the sends and closes of its channel.
package selects

func a(string) {}
func b(string) {}

func work() {}

func Select() {
	in, out, quit := make(chan int), make(chan int), make(chan struct{})
	go func() {
		a("quit")
		a("other case")
		close(quit)
	}()
	go func() { in <- 1 }()
	go func() { <-out }()
	for {
		select {
		case out <- 1:
			work()
			b("other case") // want `^other case: unordered$`
		case <-in:
			work()
			b("other case") // want `^other case: unordered$`
		case <-quit:
			work()
			b("quit") // want `^quit: a before b by channel$`
			return
		}
	}
}

func Default() {
	quit := make(chan struct{})
	go func() {
		a("default")
		close(quit)
	}()
	select {
	case <-quit:
		work()
		b("default") // want `^default: a before b by channel$`
	default:
		b("default") // want `^default: unordered$`
	}
}

// The case's first instruction is the code asked about: it still runs
// after the receive.
func FirstInCase() int {
	errc := make(chan struct{})
	var err int
	go func() {
		err = 1
		a("first in case")
		close(errc)
	}()
	select {
	case <-errc:
		b("first in case") // want `^first in case: a before b by channel$`
		return err
	default:
		return 0
	}
}
