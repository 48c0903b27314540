// Package static: Static tells the functions that every goroutine of a
// context runs, reached from its entry by static calls, from those it
// reaches only through a function value.
package static

func direct() {} // want `^ctx: go statement run multi$`

func callback() {} // want `^ctx: go statement run multi dynamic$`

func run(f func()) { // want `^ctx: go statement run multi$`
	direct()
	f()
}

func Start(n int) { // want `^ctx: caller$`
	for i := 0; i < n; i++ {
		go run(callback)
	}
}
