// Package httpafter has a greeter whose HTTP handler reads the greeting
// its owner set before starting the server, as zipkin-go's tests do
// (baggage_test.go: the server goroutine writes srv.s.Addr, then calls
// srv.s.Serve(ln), whose connection goroutines run the handler that reads
// it).
//
// This is a negative control: the handler runs on a connection goroutine
// that net/http started, inside the server goroutine that
// httptest.NewServer started, both created during the test's call of
// NewServer, after the greeting was set. precog test reports nothing. No
// go statement precog records starts either goroutine: the shim adopts
// the connection goroutine at the handler's first read, and EvBelow
// orders it only after its nearest recorded ancestor, the test's
// goroutine, began; the write of the greeting before NewServer raced
// with the handler's read. The instrumenter marks the call of NewServer
// (a function that may start goroutines, in a package precog does not
// instrument), and the runtime's stack of the connection goroutine
// (GODEBUG=tracebackancestors, which precog sets) shows the test's frame
// on that line when the server goroutine was created: the shim records
// EvAfter, and the handler comes after the mark (issue 18,
// held-out rehearsal 18's zipkin-go).
package httpafter

import (
	"fmt"
	"net/http"
)

// Greeter answers every request with its greeting.
type Greeter struct {
	Greeting string
}

// ServeHTTP writes the greeting.
func (g *Greeter) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	fmt.Fprint(w, g.Greeting)
}
