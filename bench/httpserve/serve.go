// Package httpserve is a server whose handler reads its configuration.
package httpserve

import (
	"fmt"
	"net/http"
)

// Server answers with its greeting and counts the requests it saw.
type Server struct {
	Greeting string
	Seen     int
}

// Configure sets the greeting.
func (s *Server) Configure(greeting string) { s.Greeting = greeting }

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	fmt.Fprintf(w, "%s %d", s.Greeting, s.Seen)
}
