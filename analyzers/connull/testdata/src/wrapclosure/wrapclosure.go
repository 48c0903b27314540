// Package wrapclosure: a `go` statement's closure that also calls a
// function parameter of its spawner runs on the new goroutine, and its own
// accesses are checked: in the context rooted where the spawner is called
// (Start, called by Run), or in a Go context of its own when nothing in
// the package calls the spawner (Serve).
package wrapclosure

type Config struct{ Name string }

type Server struct{ Cfg *Config }

// Start's goroutine dereferences s.Cfg, which Run clears after Start
// returned, while the goroutine may not have run yet.
func (s *Server) Start(log func(string)) {
	go func() {
		log(s.Cfg.Name) // want `s.Cfg may be nil when dereferenced here: Run stores nil to it concurrently`
	}()
}

func Run(s *Server) {
	s.Start(func(string) {})
	s.Cfg = nil
}

// Serve is called only from outside the package, and clears the
// configuration its goroutine reads once it started it.
func (s *Server) Serve(log func(string)) {
	go func() {
		log(s.Cfg.Name) // want `s.Cfg may be nil when dereferenced here: \(\*Server\).Serve stores nil to it concurrently`
	}()
	s.Cfg = nil
}

// Quiet's goroutine logs without touching the configuration that Stop
// clears: silent.
type Quiet struct{ Cfg *Config }

func (q *Quiet) Start(log func(string)) {
	name := q.Cfg.Name
	go func() {
		log(name)
	}()
}

func (q *Quiet) Stop() { q.Cfg = nil }

func RunQuiet(q *Quiet) {
	q.Start(func(string) {})
	q.Stop()
}
