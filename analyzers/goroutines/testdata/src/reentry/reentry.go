// Package reentry: a function that only code it reaches itself calls
// back (a goroutine it starts calls it again) is entered from outside the
// package if it is exported, and runs in the caller context as a function
// nobody in the package calls does. An unexported one that nothing else
// enters never runs; an exported one that other code of the package calls
// runs where that code does.
package reentry

type Node struct{ Kids []*Node }

func Walk(n *Node) { // want `^ctx: caller, go statement Walk\$1 multi$`
	for _, k := range n.Kids {
		go func() { // want `^ctx: go statement Walk\$1 multi$`
			Walk(k)
		}()
	}
}

func walk(n *Node) { // want `^ctx: go statement walk\$1 multi$`
	for _, k := range n.Kids {
		go func() { // want `^ctx: go statement walk\$1 multi$`
			walk(k)
		}()
	}
}

// Ping and pong call each other, pong on a goroutine Ping starts.
func Ping(n int) { // want `^ctx: caller, go statement pong$`
	if n > 0 {
		go pong(n - 1)
	}
}

func pong(n int) { // want `^ctx: go statement pong$`
	Ping(n)
}

// Handle is called by the goroutine Serve starts, which it does not reach.
func Serve() { // want `^ctx: caller$`
	go loop()
}

func loop() { // want `^ctx: go statement loop$`
	Handle()
}

func Handle() {} // want `^ctx: go statement loop$`
