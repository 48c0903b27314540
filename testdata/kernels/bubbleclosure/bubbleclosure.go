// Package bubbleclosure is bubbleoutside with the announcer written as
// the go statement's closure, which calls the log function Start was
// handed (issue 18: a goroutine context for a spawner's own closure).
// Like bubbleoutside, bubblejoin's WRONG twin: the
// configuration is cleared by a goroutine that the test started outside
// the synctest bubble, 200 ms of real time later, and that synctest.Test
// does not wait for. The announcer reads the configuration before the nil
// store in a run that is not descheduled for 200 ms; nothing orders the
// two, and an announcer held back for longer dereferences nil:
//
//	outside goroutine             announcer (in the bubble)
//	S1 s.Cfg = nil
//	                              S2 s.Cfg.Name
//	                              panic: runtime error: invalid memory
//	                              address or nil pointer dereference
package bubbleclosure

// Config is a server's configuration.
type Config struct{ Name string }

// Server announces its configuration's name once it started.
type Server struct {
	Cfg *Config
}

// Start starts the announcer, a goroutine that logs the configuration's
// name with log. Start does not wait for it, and in most runs it runs
// after the function passed to synctest.Test returned (a goroutine of the
// bubble still runnable then, not durably blocked, which Test waits for).
func (s *Server) Start(log func(string)) {
	go func() {
		log(s.Cfg.Name) // S2
	}()
}
