// Package gostmt: each go statement roots a context of its own, and the
// functions it calls run in it; the code that calls into the package runs
// in the caller context.
package gostmt

type server struct{}

func (s *server) loop() {} // want `^ctx: go statement loop$`

func worker() {} // want `^ctx: go statement worker$`

func helper() {} // want `^ctx: caller, go statement Start\$1$`

func Start(s *server) { // want `^ctx: caller$`
	go worker()
	go func() { // want `^ctx: go statement Start\$1$`
		helper()
	}()
	go s.loop()
	helper()
}

func unused() {} // want `^ctx: caller$`
