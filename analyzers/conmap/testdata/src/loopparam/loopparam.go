// Package loopparam: the goroutines that one call starts in a loop all get
// the same parameter of the spawner. Many starts Register on s in a loop,
// and Register writes s's map without a lock (reported; silent before,
// when only the spawner's receiver counted as the same object for all its
// goroutines). Once starts one goroutine per call (silent), and Each
// starts one per server of its slice (silent).
package loopparam

type Server struct {
	handlers map[string]func()
}

func (s *Server) Register(name string, f func()) {
	if s.handlers == nil {
		s.handlers = make(map[string]func())
	}
	s.handlers[name] = f // want `concurrent map writes: s.handlers is written here by several goroutines with no common lock`
}

func Many(s *Server) {
	for i := 0; i < 2; i++ {
		go s.Register("a", nil)
	}
}

type Single struct {
	handlers map[string]func()
}

func (s *Single) Register(name string, f func()) {
	if s.handlers == nil {
		s.handlers = make(map[string]func())
	}
	s.handlers[name] = f
}

func Once(s *Single) {
	go s.Register("a", nil)
}

type Owned struct {
	handlers map[string]func()
}

func (s *Owned) Register(name string, f func()) {
	if s.handlers == nil {
		s.handlers = make(map[string]func())
	}
	s.handlers[name] = f
}

func Each(ss []*Owned) {
	for _, s := range ss {
		go s.Register("a", nil)
	}
}
