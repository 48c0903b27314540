// Package a exercises post-dominance: each call to always, loops or maybe
// says what the test analyzer must find at it (see postdom_test.go).
package a

import (
	"log"
	"os"
	"runtime"
	"testing"
)

func always() {}
func maybe()  {}

func straight() {
	always() // want "always"
	always() // want "always"
}

func branch(c bool) {
	if c {
		maybe() // want "maybe"
	} else {
		maybe() // want "maybe"
	}
	always() // want "always"
}

func earlyReturn(c bool) {
	always() // want "always"
	if c {
		return
	}
	maybe() // want "maybe"
}

func loop(n int) {
	for i := 0; i < n; i++ {
		maybe() // want "loops"
	}
	always() // want "always"
}

// lu0 is the CFP paper's Fig. 4: daxpy on every iteration of two nested
// loops.
func lu0(n int) {
	for k := 0; k < n; k++ {
		for j := k + 1; j < n; j++ {
			maybe() // want "loops"
		}
	}
}

func loopBranch(n int, c bool) {
	for i := 0; i < n; i++ {
		if c {
			maybe() // want "maybe"
		}
	}
}

func loopBreak(xs []int) {
	for _, x := range xs {
		if x < 0 {
			break
		}
		maybe() // want "maybe"
	}
}

func panics(c bool) {
	if c {
		panic("no")
	}
	maybe() // want "maybe"
}

func exits(c bool) {
	if c {
		os.Exit(2)
	}
	maybe() // want "maybe"
}

func goexits(c bool) {
	if c {
		runtime.Goexit()
	}
	maybe() // want "maybe"
}

func fatal(t *testing.T, c bool) {
	if c {
		t.Fatal("no")
	}
	maybe() // want "maybe"
}

func logFatal(c bool) {
	if c {
		log.Fatalf("no")
	}
	maybe() // want "maybe"
}

// die never returns, so calling it ends a path like os.Exit.
func die(msg string) {
	log.Print(msg)
	os.Exit(1)
}

func ownNoReturn(c bool) {
	if c {
		die("no")
	}
	maybe() // want "maybe"
}

// afterDie: go/ssa itself drops the code after a call that never
// returns, so nothing after die() is left to ask about.
func afterDie(c bool) {
	always() // want "always"
	if c {
		t := &testing.T{}
		var tb testing.TB = t
		tb.Fatal("through the interface")
	}
	maybe() // want "maybe"
}

func endless(ch chan int) {
	always() // want "always"
	for {
		always() // want "always"
		<-ch
	}
}

func endlessSelect(ch chan int, c bool) {
	if c {
		for {
			select {
			case <-ch:
				maybe() // want "maybe"
			}
		}
	}
	maybe() // want "maybe"
}

func blocksForever() {
	always() // want "always"
	select {}
}

func deferred(c bool) {
	defer always() // want "always"
	if c {
		return
	}
	maybe() // want "maybe"
}

func switches(x int) {
	switch x {
	case 1:
		maybe() // want "maybe"
	case 2:
		maybe() // want "maybe"
		fallthrough
	default:
		maybe() // want "maybe"
	}
	always() // want "always"
}

func gotoLoop(c bool) {
	i := 0
	if c {
		goto skip
	}
again:
	maybe() // want "maybe"
	i++
	if i < 3 {
		goto again
	}
skip:
	always() // want "always"
}

func gotos(c bool) {
	i := 0
again:
	always() // want "always"
	i++
	if c && i < 3 {
		goto again
	}
	always() // want "always"
}

func closure() func() {
	return func() {
		always() // want "always"
	}
}

func recovers(c bool) {
	defer func() {
		recover()
	}()
	if c {
		panic("x")
	}
	maybe() // want "maybe"
}
