package golden

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

type store struct{ last string }

// A handler: Served(S, Serving(S, w)) deferred first; every call handed w
// or calling one of its methods first passes w through Respond.
func (s *store) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.last = r.URL.Path
	w.Header().Set("Content-Type", "text/plain") // Respond: harmless, the header is not out
	w.WriteHeader(http.StatusCreated)            // Respond
	fmt.Fprintf(w, "%s", s.last)                 // Respond on the argument
	json.NewEncoder(w).Encode(s.last)            // Respond on NewEncoder's argument
	w.(http.Flusher).Flush()                     // Respond on the asserted operand
	io.WriteString(w, "done")                    // Respond
}

// wrapped calls the writer it wraps: Respond on the field.
type wrapped struct{ w http.ResponseWriter }

func (x *wrapped) WriteHeader(code int) { x.w.WriteHeader(code) }

func clients(c *http.Client, req *http.Request, u string, v url.Values) {
	resp, err := c.Do(req) // Done(c.Do(Trace(S, req)))
	_, _ = resp, err
	c.Get(u)                                        // Done(ClientGet(S, c, u))
	c.Head(u)                                       // Done(ClientHead(S, c, u))
	c.Post(u, "text/plain", strings.NewReader("x")) // Done(ClientPost(S, c, ...))
	c.PostForm(u, v)                                // Done(ClientPostForm(S, c, u, v))
	http.Get(u)                                     // Done(Get(S, u))
	http.Post(u, "text/plain", nil)                 // Done(Post(S, ...))
	go c.Do(req)                                    // a go statement: left alone
	defer http.Get(u)                               // deferred: left alone
	do := c.Do                                      // a method value: left alone
	do(req)
	var val http.Client
	val.Get(u) // not a pointer: left alone
}
