// Package loopvar is the kernel of a range variable captured by goroutines
// in a module whose go.mod says go 1.21 (issue 10, item 3): before go1.22
// a loop has one variable for all its iterations, so each goroutine reads
// the variable that the loop goes on writing (go vet's loopclosure
// warning; go test -race reports the race). It is a module of its own,
// since the kernel corpus's module is at go1.23, where each iteration has
// its own variable and the same code is correct.
package loopvar

import "sync"

// Notify calls send for each address on a goroutine of its own.
func Notify(addrs []string, send func(string)) {
	var wg sync.WaitGroup
	for _, addr := range addrs { // the loop writes addr
		wg.Add(1)
		go func() {
			defer wg.Done()
			send(addr) // reads the loop's one addr
		}()
	}
	wg.Wait()
}
