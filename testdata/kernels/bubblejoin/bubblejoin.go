// Package bubblejoin is a negative control for testing/synctest bubbles at
// run time (issue 18, jrpc2's shape): a server whose configuration the
// test sets before synctest.Test and clears after it returns, and whose
// announcer goroutine, started inside the bubble, outlives the function
// passed to Test, reads the configuration and logs with the outer test's
// T. synctest.Test runs the function on a goroutine of the bubble and
// returns only once every goroutine of the bubble ended, so the set comes
// before the read, and the read and the log before the nil store and the
// test's end: no run of the test can crash. precog test sees it when the
// bubble's goroutine is ordered after its caller's events before Test and
// the caller's next event after every goroutine of the bubble.
package bubblejoin

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
	go s.announce(log)
}

// announce logs the configuration's name.
func (s *Server) announce(log func(string)) {
	log(s.Cfg.Name) // S2
}
