// Package spawn: what runs before a go statement, or a library call that
// starts a goroutine, happens before everything the goroutine does; what
// runs after it does not.
package spawn

import (
	"sync"

	"golang.org/x/sync/errgroup"
)

func a(string) {}
func b(string) {}

func Start() {
	a("before go")
	go func() {
		b("before go") // want `^before go: a before b by goroutine start$`
		a("after go")
	}()
	b("after go") // want `^after go: unordered$`
}

func prepare() {
	a("helper")
}

func Helper() {
	prepare()
	go func() {
		b("helper") // want `^helper: a before b by goroutine start$`
	}()
}

func Nested() {
	a("nested")
	go func() {
		go func() {
			b("nested") // want `^nested: a before b by goroutine start$`
		}()
	}()
}

func Library() error {
	var wg sync.WaitGroup
	a("wg.Go")
	wg.Go(func() {
		b("wg.Go") // want `^wg.Go: a before b by goroutine start$`
	})
	wg.Wait()

	var g errgroup.Group
	a("errgroup")
	g.Go(func() error {
		b("errgroup") // want `^errgroup: a before b by goroutine start$`
		return nil
	})
	return g.Wait()
}

// What runs before a loop that calls a function literal to start each
// goroutine happens before every one of them: the literal repeats, the
// code before the loop does not.
func StartFromLiteral() {
	a("start from literal")
	for range 3 {
		func() {
			go func() {
				b("start from literal") // want `^start from literal: a before b by goroutine start$`
			}()
		}()
	}
}
