// Package bindings: a helper that calls its function parameter runs, on
// each goroutine, only the functions that goroutine gave it, also when
// the parameter is passed down through another helper; the helper itself
// runs on both goroutines.
package bindings

func with(f func()) { // want `^ctx: go statement Start\$1, go statement Start\$2$`
	f()
}

func through(f func()) { // want `^ctx: go statement Start\$1, go statement Start\$2$`
	with(f)
}

func reader() {} // want `^ctx: go statement Start\$1 dynamic$`

func writer() {} // want `^ctx: go statement Start\$2 dynamic$`

func Start() { // want `^ctx: caller$`
	go func() { // want `^ctx: go statement Start\$1$`
		with(func() {}) // want `^ctx: go statement Start\$1 dynamic$`
		through(reader)
	}()
	go func() { // want `^ctx: go statement Start\$2$`
		with(func() {}) // want `^ctx: go statement Start\$2 dynamic$`
		through(writer)
	}()
}
