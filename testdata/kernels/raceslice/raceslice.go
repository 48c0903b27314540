// Package raceslice is the data race kernel of slice elements: a
// progress reporter reads the results slice while the workers fill it
// (issue 10, item 2). Each worker writes its own element, so the workers do
// not race with each other; the reporter's read of every element races
// with the workers' writes.
//
// Relabel (label.go) is a captured variable stored before the go
// statement that starts its reader and stored again while it runs
// (neo4j's bookmark): a race, not an uninitialized read. RelabelUnset,
// declared without a value, is both.
package raceslice

import "sync"

// Run computes square(i) for i in [0, n) on one goroutine each and calls
// progress with the number of results done so far once, while they run.
func Run(n int, progress func(done int)) []int {
	results := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = i*i + 1 // written by worker i
		}()
	}
	done := 0
	for _, r := range results { // reads every element while the workers write
		if r != 0 {
			done++
		}
	}
	progress(done)
	wg.Wait()
	return results
}
