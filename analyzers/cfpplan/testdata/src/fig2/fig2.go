// Package fig2 is the CFP paper's Fig. 2: foo1 calls foo2 under L, so foo2
// cannot inherit from foo1 (foo1 synchronizes), and bar runs under L on
// another goroutine.
package fig2

import "sync"

var (
	mu    sync.Mutex
	x, y  int
	ready = make(chan bool)
)

func foo1() { // want `foo1: logged spawned`
	mu.Lock()
	foo2()
	mu.Unlock()
	x++
}

func foo2() { // want `foo2: logged spawned`
	y++
}

func bar() { // want `bar: logged spawned`
	mu.Lock()
	y--
	mu.Unlock()
}

// Main runs foo1 and bar at once.
func Main() { // want `Main: logged`
	go foo1()
	go bar()
	<-ready
}
