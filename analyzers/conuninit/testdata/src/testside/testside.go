// Package testside: a listener whose Listen goroutine sets its address,
// and a producer that sets a result before it closes an io.Pipe's
// writer, each started by a test that reads the result after the go
// statement (testside_test.go). The other checks take a pair of test
// code and the package's goroutines to rest on the test's timing; here
// the test's own code reads after its go statement, so the listener's
// report carries no assumption even under -all (the test runs with it),
// and the producer's only the pipe's. The same shapes in the package's
// own code, Start and Run, are reported at the default confidence too.
package testside

import "io"

// Server sets its address once it serves.
type Server struct{ addr *string }

// Serve sets the address.
func (s *Server) Serve() {
	a := "127.0.0.1:0"
	s.addr = &a
}

// Listener is Server for the test.
type Listener struct{ addr *string }

// Listen sets the address.
func (l *Listener) Listen() {
	a := "127.0.0.1:0"
	l.addr = &a
}

// Start starts a server and reads its address at once.
func Start() string {
	s := &Server{}
	go s.Serve()
	return *s.addr // want `s.addr may be read before it is set: \(\*Server\).Serve sets it on the goroutine started at line \d+, which may not have run yet$`
}

// Config is a loop's configuration.
type Config struct{ every int }

func newConfig() *Config { return &Config{every: 1} }

// Loop reads its configuration.
type Loop struct{ cfg *Config }

func (l *Loop) run() int {
	return l.cfg.every // want `l.cfg may be read before it is set: the goroutine started at line \d+ can run before Run sets it$`
}

// Run starts the loop before it sets the configuration.
func Run() {
	l := &Loop{}
	go l.run()
	l.cfg = newConfig()
}

// Result is what Produce records.
type Result struct{ n int }

// Produce writes data into pw, records its length and closes pw.
func Produce(pw *io.PipeWriter, res *Result, data []byte) {
	_, _ = pw.Write(data)
	res.n = len(data)
	_ = pw.Close()
}

// Sink consumes a stream.
type Sink interface {
	Write(r io.Reader) error
}
