// Package fig8 is the CFP paper's Fig. 8, the toy input selection, as
// three tests over five functions:
//
//	TestInput1 covers {f1,f2} {f2,f3} {f2,f4} {f4,f5}
//	TestInput2 covers {f1,f2} {f3,f4} {f3,f5}
//	TestInput3 covers {f2,f3} {f3,f4}
//
// Greedy selection picks TestInput1 with all five functions, then
// TestInput2 with f3, f4 and f5 (the pairs {f3,f4} and {f3,f5} it adds),
// and leaves TestInput3 out. Each test runs its pairs one at a time: both
// functions of a pair on goroutines of their own, joined before the next.
package fig8

import "sync"

var v1, v2, v3, v4, v5 int

func f1() { v1++ }
func f2() { v2++ }
func f3() { v3++ }
func f4() { v4++ }
func f5() { v5++ }

// Count returns how many times the functions ran.
func Count() int { return v1 + v2 + v3 + v4 + v5 }

// Both runs a and b concurrently and waits for both.
func Both(a, b func()) {
	var wg sync.WaitGroup
	wg.Add(2)
	go run(&wg, a)
	go run(&wg, b)
	wg.Wait()
}

func run(wg *sync.WaitGroup, f func()) {
	defer wg.Done()
	f()
}
