// Package fig2 is the CFP paper's Fig. 2: foo1 takes lock L, calls foo2,
// releases L and goes on; another goroutine takes L, calls bar and releases
// it. foo1 and bar run concurrently (bar can run while foo1 is past its
// critical section); foo2 and bar never do (both run under L).
package fig2

import "sync"

var (
	mu      sync.Mutex
	counted int
	after   int
	seen    int
)

func foo1() {
	mu.Lock()
	foo2()
	mu.Unlock()
	after++
}

func foo2() {
	counted++
}

func bar() {
	seen++
}

// Run runs foo1 and bar on two goroutines.
func Run() int {
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		foo1()
	}()
	go func() {
		defer wg.Done()
		mu.Lock()
		bar()
		mu.Unlock()
	}()
	wg.Wait()
	return seen + after
}
