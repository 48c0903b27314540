// Package loops: a context is Multi when its go statement may run more
// than once (in a loop, in a function called in a loop or recursively)
// or runs on a goroutine of a Multi context.
package loops

func each() {} // want `^ctx: go statement each multi$`

func once() {} // want `^ctx: go statement once$`

func Fanout(n int) { // want `^ctx: caller$`
	for i := 0; i < n; i++ {
		go each()
	}
	go once()
}

func nested() {} // want `^ctx: go statement nested multi$`

func spawn() { // want `^ctx: caller$`
	go nested()
}

func Repeat(n int) { // want `^ctx: caller$`
	for i := 0; i < n; i++ {
		spawn()
	}
}

func inner() {} // want `^ctx: go statement inner multi$`

func Outer(n int) { // want `^ctx: caller$`
	for i := 0; i < n; i++ {
		go func() { // want `^ctx: go statement Outer\$1 multi$`
			go inner()
		}()
	}
}

type node struct{ next *node }

func visit(n *node) {} // want `^ctx: go statement visit multi$`

func walk(n *node) { // want `^ctx: caller$`
	if n == nil {
		return
	}
	go visit(n)
	walk(n.next)
}

func Walk(n *node) { // want `^ctx: caller$`
	walk(n)
}

func ranged() {} // want `^ctx: go statement ranged multi$`

// Ranged's loop body is a yield function that the iterator, whose code
// nobody sees here, calls once per element.
func Ranged(seq func(yield func(int) bool)) { // want `^ctx: caller$`
	for range seq { // want `^ctx: caller$`
		go ranged()
		spawnRanged()
	}
}

func rangedInner() {} // want `^ctx: go statement rangedInner multi$`

func spawnRanged() { // want `^ctx: caller$`
	go rangedInner()
}
