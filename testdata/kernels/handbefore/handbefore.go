// Package handbefore is handafter's WRONG twin: the greeting is set after
// the handler was registered, while a request is in flight, so the
// handler's read races with the write. The handing orders the handler
// only after what the test did before it: reported.
package handbefore

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
