// Package wrapped: a `go` statement's closure that calls a function
// parameter of its spawner runs on the new goroutine itself, so it (and
// what it calls besides the parameter) is in a context: the contexts
// rooted where the spawner is called, or, when nothing in the package
// stands for its goroutines, a Go context of its own.
package wrapped

type Config struct{ Name string }

type Server struct{ Cfg *Config }

func (s *Server) name() string { // want `^ctx: detached function Use\$1, go statement Run\$1, go statement Two\$1$`
	return s.Cfg.Name
}

// Start is called in the package: its closure runs in the context rooted
// at the call, not in one of its own.
func (s *Server) Start(log func(string)) { // want `^ctx: caller$`
	go func() { // want `^ctx: detached function Use\$1$`
		log(s.name())
	}()
}

// Run has no caller in the package: its closure is a Go context.
func (s *Server) Run(log func(string)) { // want `^ctx: caller$`
	go func() { // want `^ctx: go statement Run\$1$`
		log(s.name())
	}()
}

// Two starts two goroutines that run parameters (no single Wrapper): each
// closure is a Go context, and the functions handed to Two run only in
// the contexts rooted at its caller, not in the closures' too.
func (s *Server) Two(a, b func(string)) { // want `^ctx: caller$`
	go func() { // want `^ctx: go statement Two\$1$`
		a(s.name())
	}()
	go func() { // want `^ctx: go statement Two\$2$`
		b("x")
	}()
}

// Direct runs the parameter itself: the goroutine runs only the
// functions handed to it.
func Direct(f func()) { // want `^ctx: caller$`
	go f()
}

func Use(s *Server) { // want `^ctx: caller$`
	s.Start(func(string) {})                // want `^ctx: detached function Use\$1$`
	s.Two(func(string) {}, func(string) {}) // want `^ctx: detached function Use\$2$` `^ctx: detached function Use\$3$`
	Direct(func() {})                       // want `^ctx: detached function Use\$4$`
}
