// Package tiny imports nothing, so that the tests of the cache, which do
// not care what is instrumented, load it fast.
package tiny

var x int

// F writes x on two goroutines.
func F() {
	go func() { x = 1 }()
	x = 2
}
