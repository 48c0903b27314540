// Package deadcode: accesses behind an if whose condition is a false
// constant never run and are not collected; those behind a true constant,
// or a variable, are.
package deadcode

const debug = false

const always = true

var trace bool

var counter int

var last map[int]int

func Put(k int) {
	if debug {
		last[k] = k // dead: not collected
		counter++
	}
	if always {
		counter = 1 // want `^write counter: shared$`
	} else {
		counter = 2 // dead: the else of a true constant
	}
	if trace { // want `^read trace: shared$`
		counter = 3 // want `^write counter: shared$`
	}
	if !debug {
		counter = 4 // want `^write counter: shared$`
	}
}
