// Package httphandlerarg has a greeter configured by options, whose
// handler a test builds in the argument of httptest.NewServer, as
// gofakes3's tests do (ts.server = httptest.NewServer(ts.GoFakeS3.Server()),
// held-out rehearsal 46).
//
// This is a negative control: the handler's read of the greeting runs on
// a connection goroutine that net/http started during the test's call of
// NewServer, after New's option wrote it. The request goes out through an
// interface, as a client library's would (the AWS SDK's, in gofakes3),
// so no recorded send orders the handler after the test: only the mark
// on NewServer's line does (see httpafter). The instrumenter marks such a
// call after its arguments (MarkV), unless a call in them runs on the
// same line: a goroutine that Handler's call created there could not be
// told from NewServer's. It then marks the function value (MarkF),
// before the arguments: precog test reports nothing (a race between the
// option's write and the handler's read when the call was not marked).
package httphandlerarg

import (
	"fmt"
	"net/http"
)

// Greeter answers every request with its greeting.
type Greeter struct {
	greeting string
}

// An Option configures a greeter.
type Option func(*Greeter)

// WithGreeting sets the greeting.
func WithGreeting(greeting string) Option {
	return func(g *Greeter) { g.greeting = greeting }
}

// New returns a greeter configured by opts.
func New(opts ...Option) *Greeter {
	g := &Greeter{}
	for _, opt := range opts {
		opt(g)
	}
	return g
}

// Handler returns the greeter's handler.
func (g *Greeter) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, g.greeting)
	})
}
