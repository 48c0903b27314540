// Package handafter has a greeter whose HTTP handler, a function literal
// registered with net/http's ServeMux.HandleFunc after the server started,
// reads the greeting its owner set before registering it (connect's and
// ginkgo's shape: a function handed to a dependency that keeps it and
// runs it later on a goroutine of its own).
//
// This is a negative control: the handler runs on a connection goroutine
// that net/http started, whose creation the shim places only during the
// test's call of httptest.NewServer (the mark on its line, EvAfter),
// before the greeting was set; yet the literal's value exists only from
// its evaluation in the test, after the write, and every run of it comes
// after that. The instrumenter wraps a function literal passed to a
// package it does not instrument as precog_shim.Hand(&h, S, LIT) and the
// literal calls precog_shim.Handed(&h, S) first: the run is after the
// test's handing (EvMark, then EvAfter on the connection goroutine).
// precog test reports nothing (a race between the write and the
// handler's read before).
package handafter

import (
	"fmt"
	"net/http"
)

// Greeter answers with its greeting.
type Greeter struct {
	Greeting string
}

// Register serves the greeting at path on mux.
func (g *Greeter) Register(mux *http.ServeMux, path string) {
	mux.HandleFunc(path, func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, g.Greeting)
	})
}
