// Package httpbefore has a greeter whose HTTP handler reads the greeting
// its owner changes while a request is in flight: httpafter's WRONG twin.
//
// The test starts the server (httptest.NewServer), sends a request from
// a goroutine of its own and sets the greeting meanwhile: the handler's
// read, on a connection goroutine that net/http started, and the test's
// write are concurrent; the response may carry either greeting. precog
// test reports the race: the shim orders the connection goroutine after
// the test's mark on NewServer's line, whose call created its ancestor,
// the server goroutine, but the write comes after that call, and the
// request's goroutine is not ordered before the write.
package httpbefore

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
