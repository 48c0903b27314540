// Package tree is the shape TestTree checks: a diamond, and functions that
// do or do not return.
package tree

import (
	"log"
	"os"
)

func branch(c bool) int {
	x := 1
	if c {
		x = 2
	} else {
		x = 3
	}
	return x
}

func die(msg string) {
	log.Print(msg)
	os.Exit(1)
}

func dieLater(c bool) {
	if !c {
		die("no")
	}
	die("later")
}

func sometimes(c bool) {
	if c {
		die("no")
	}
}

func blocksForever() {
	select {}
}

func endless(ch chan int) {
	for {
		<-ch
	}
}

func recovers() {
	defer func() { recover() }()
	panic("x")
}
