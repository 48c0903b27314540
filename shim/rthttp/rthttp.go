// Package rthttp holds the client side of the HTTP/1 response edge (see
// "HTTP/1 responses" in package shim): rewritten code calls it around
// net/http's client calls. It is a package of its own so that only
// programs that make HTTP requests link net/http through it.
//
//	c.Do(req)                 precog_rthttp.Done(c.Do(precog_rthttp.Trace(S, req)))
//	c.Get(url)                precog_rthttp.Done(precog_rthttp.ClientGet(S, c, url))
//	http.Get(url)             precog_rthttp.Done(precog_rthttp.Get(S, url))
//
// (Head, Post and PostForm alike.) Trace composes a ClientTrace into the
// request's context (httptrace.WithClientTrace calls the caller's own
// hooks too): GotConn keeps the connection's addresses, and
// GotFirstResponseByte takes the latest release on that connection
// (shim.RespondGroup); Done, after the call returned without an error,
// joins it (shim.Responded) and gives the caller back its own request in
// resp.Request.
//
// A request that code precog did not rewrite sends (a dependency's client,
// such as go-openapi's runtime, calling Do itself) is traced by the
// transport: when the shim records, package initialization registers on
// http.DefaultTransport, for the "http" scheme, an alternate round tripper
// (Transport.RegisterProtocol: DefaultTransport keeps its type and its
// exported fields). The transport hands it every request with that
// scheme, on the goroutine that called RoundTrip (Client.Do's); it sends
// the request traced through the same transport, which skips it for a
// request already traced, and joins after that RoundTrip returned, as
// Done does. See hook.
package rthttp

import (
	"context"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync"
	"unsafe"

	"github.com/precog-dev/precog/shim"
)

// A holder is one traced call's state.
type holder struct {
	mu     sync.Mutex
	site   uint32         // the call's
	gid    uint64         // the caller's goroutine
	orig   *http.Request  // the caller's request
	traced *http.Request  // the request sent
	local  string         // the connection of the last GotConn
	remote string         //
	grp    unsafe.Pointer // the release RespondGroup gave at the first byte
	other  bool           // a GotConn on another goroutine than the caller's
}

type holderKey struct{}

// gotConn keeps the connection's addresses. net/http's Transport calls it
// for HTTP/1 on the goroutine that called RoundTrip (Client.Do's): one
// on another goroutine (a RoundTripper that sends requests of its own
// with the request's context) makes the call give no edge, since its
// first bytes could not be told from the response's.
func (h *holder) gotConn(info httptrace.GotConnInfo) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.local, h.remote, h.grp = "", "", nil
	if shim.GoID() != h.gid {
		h.other = true
		return
	}
	if info.Conn == nil {
		return
	}
	l, r := info.Conn.LocalAddr(), info.Conn.RemoteAddr()
	if l == nil || r == nil || l.Network() != "tcp" || r.Network() != "tcp" {
		return
	}
	h.local, h.remote = l.String(), r.String()
	shim.RequestSent(h.site, h.local, h.remote)
}

// firstByte takes the latest release on the connection: the response's
// own or an earlier one, since the client sends nothing more on an
// HTTP/1 connection before this response was read.
func (h *holder) firstByte() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.local != "" {
		h.grp = shim.RespondGroup(h.local, h.remote)
	}
}

// Trace returns req with a ClientTrace of its own composed into its
// context; req itself when it is nil.
func Trace(site uint32, req *http.Request) *http.Request {
	if req == nil || !shim.Enabled() {
		return req
	}
	h := &holder{site: site, gid: shim.GoID(), orig: req}
	ctx := context.WithValue(req.Context(), holderKey{}, h)
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GotConn:              h.gotConn,
		GotFirstResponseByte: h.firstByte,
	})
	h.traced = req.WithContext(ctx)
	return h.traced
}

// Done returns its arguments, after joining the release the response's
// first byte found (see Trace).
func Done(resp *http.Response, err error) (*http.Response, error) {
	if err != nil || resp == nil || resp.Request == nil {
		return resp, err
	}
	h, _ := resp.Request.Context().Value(holderKey{}).(*holder)
	if h == nil {
		return resp, err
	}
	h.mu.Lock()
	grp, other := h.grp, h.other
	h.mu.Unlock()
	if resp.Request == h.traced {
		resp.Request = h.orig
	}
	if !other && shim.GoID() == h.gid {
		shim.Responded(h.site, grp)
	}
	return resp, err
}

// ClientGet is c.Get(url) with the request traced.
func ClientGet(site uint32, c *http.Client, url string) (*http.Response, error) {
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		return nil, err
	}
	return c.Do(Trace(site, req))
}

// ClientHead is c.Head(url) with the request traced.
func ClientHead(site uint32, c *http.Client, url string) (*http.Response, error) {
	req, err := http.NewRequest("HEAD", url, nil)
	if err != nil {
		return nil, err
	}
	return c.Do(Trace(site, req))
}

// ClientPost is c.Post(url, contentType, body) with the request traced.
func ClientPost(site uint32, c *http.Client, url, contentType string, body io.Reader) (*http.Response, error) {
	req, err := http.NewRequest("POST", url, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", contentType)
	return c.Do(Trace(site, req))
}

// ClientPostForm is c.PostForm(url, data) with the request traced.
func ClientPostForm(site uint32, c *http.Client, url string, data url.Values) (*http.Response, error) {
	return ClientPost(site, c, url, "application/x-www-form-urlencoded", strings.NewReader(data.Encode()))
}

// Get is http.Get(url) with the request traced.
func Get(site uint32, url string) (*http.Response, error) {
	return ClientGet(site, http.DefaultClient, url)
}

// Head is http.Head(url) with the request traced.
func Head(site uint32, url string) (*http.Response, error) {
	return ClientHead(site, http.DefaultClient, url)
}

// Post is http.Post(url, contentType, body) with the request traced.
func Post(site uint32, url, contentType string, body io.Reader) (*http.Response, error) {
	return ClientPost(site, http.DefaultClient, url, contentType, body)
}

// PostForm is http.PostForm(url, data) with the request traced.
func PostForm(site uint32, url string, data url.Values) (*http.Response, error) {
	return ClientPostForm(site, http.DefaultClient, url, data)
}
