package rthttp

import (
	"net/http"

	"github.com/precog-dev/precog/shim"
)

// hook is the alternate round tripper of the "http" scheme that init
// registers on http.DefaultTransport (see the package comment). Its site
// is 0, never a plan's point: its events are not control's to stop.
//
// Assumptions: nothing else registers "http" on DefaultTransport (one
// registered before init is kept, and the hook is not; one after panics,
// as a second RegisterProtocol of a scheme does); a transport cloned from
// DefaultTransport (Clone does not copy the registrations) or made
// otherwise has no hook, and its requests give an edge only where
// rewritten code sent them. A request with a body comes to an alternate
// round tripper as the transport's shallow copy (setupRewindBody), which
// is then the response's Request, as it is for HTTP/2's.
type hook struct{ t *http.Transport }

func init() {
	if t, ok := http.DefaultTransport.(*http.Transport); ok {
		Hook(t)
	}
}

// Hook registers on t, when the shim records, the alternate round tripper
// of the "http" scheme that traces the requests t sends (see the package
// comment), unless t has one already. init calls it for
// http.DefaultTransport. (Without recording, Trace would leave a request
// untraced, and the hook would be handed it again.)
func Hook(t *http.Transport) {
	if !shim.Enabled() {
		return
	}
	defer func() { _ = recover() }() // "http" registered already: no hook
	t.RegisterProtocol("http", hook{t})
}

// RoundTrip sends req traced through the transport and joins, after the
// response's header arrived, the release its first byte found (Done); a
// request traced already (Trace's, or this hook's own) is the
// transport's (http.ErrSkipAltProtocol).
func (h hook) RoundTrip(req *http.Request) (*http.Response, error) {
	if _, traced := req.Context().Value(holderKey{}).(*holder); traced {
		return nil, http.ErrSkipAltProtocol
	}
	// Done gives the response back req, the one the transport gave the
	// hook, as the response's Request.
	return Done(h.t.RoundTrip(Trace(0, req)))
}
