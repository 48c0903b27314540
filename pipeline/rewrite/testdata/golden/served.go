package golden

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

type api struct{ hits int }

// ServeHTTP is a handler: it defers precog_shim.Served(S, w) first.
func (a *api) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.hits++
}

// notHandler has other parameters: nothing.
func notHandler(w http.ResponseWriter, r *http.Request, n int) {}

// blank cannot name its writer: nothing.
func blank(_ http.ResponseWriter, r *http.Request) {}

func servers(t *testing.T, a *api, ts *httptest.Server, srvs []*httptest.Server) {
	h := func(w http.ResponseWriter, r *http.Request) { a.hits++ } // a literal handler: Served
	_ = h
	ts.Close()                  // ServeClose
	defer ts.Close()            // deferred: ServeClose, its argument evaluated now
	t.Cleanup(ts.Close)         // a method value: ServeCloser
	srvs[0].Close()             // ServeClose: an index is pure
	newServer(a).Close()        // not pure: left alone
	ts.CloseClientConnections() // waits for no handler: left alone
	ts.Config.Close()           // net/http's Server.Close: left alone
}

func newServer(a *api) *httptest.Server { return httptest.NewServer(a) }
