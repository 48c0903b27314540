package shim

import (
	"reflect"
	"sync"
	"unsafe"

	"github.com/precog-dev/precog/shim/trace"
)

// HTTP/1 responses. A client's Do (Get, Post, ...) returns once the final
// response's header has arrived, and an HTTP/1 server (net/http's
// (*conn).serve, one goroutine per connection) writes that header only
// when the handler's buffered response is flushed: never before the
// response's chunkWriter has written it (chunkWriter.wroteHeader; a 1xx
// header, 100 Continue included, goes out by another path and ends no
// Do). So what the connection's goroutine did while the header was not yet
// written comes before the Do that got that response. net/http is not
// instrumented; the edge is modelled with the task-group edge (no event of
// its own):
//
//   - the release (Respond, called by the rewriter before each call that
//     is handed an http.ResponseWriter or calls one of its methods, and by
//     Served at the handler's return): when w is net/http's HTTP/1
//     response whose connection is not hijacked and whose final header is
//     not written yet, on the connection's goroutine (so the header state
//     read is its own), a task of a fresh group that begins and ends at
//     once (EvTaskGo), the group kept as the latest of the connection's
//     TCP 4-tuple;
//   - the acquire (rt/rthttp: a ClientTrace composed into the request's
//     context): at the response's first byte (GotFirstResponseByte, on
//     the transport's reading goroutine) the latest group of the 4-tuple
//     of the request's connection (GotConn) is taken, and after Do
//     returned the caller joins it (EvTaskWait). A request no rewritten
//     call traced (a dependency's client) is traced by http.DefaultTransport's
//     alternate round tripper for "http" that rthttp registers, whose
//     join follows the transport's RoundTrip.
//
// The request is ordered the same way the other way round: the client's
// GotConn (on the goroutine that called Do, before the request is written
// on the connection) releases into a fresh group kept as the latest of the
// 4-tuple (RequestSent), and the handler's entry on the connection's
// goroutine (Serving, which the rewriter evaluates in Served's defer),
// while the response's header is not written, joins the latest group of
// its 4-tuple: the request's own release or an earlier one, since the
// client takes a connection for its next request only once this
// request's response was read, which is after its header was written.
//
// Sound because HTTP/1 on one connection is serial: net/http's client
// sends a connection's next request only after this response was read,
// so the latest group at the first byte is this response's release or an
// earlier one on the same connection (or on an earlier connection with the
// same 4-tuple, whose server socket closed before this one could open).
// Nothing is released for HTTP/2 (its ResponseWriter is not *http.response),
// a hijacked connection, a connection that is not TCP (a unix socket's
// client end is unnamed), or a writer that wraps the response; a
// connection to another process has no release here: no edge.

// respondGroups maps a connection's 4-tuple (server local address, then
// remote) to the group of its latest release. Each group is a fresh
// allocation kept alive in keep, so that no later group reuses its
// address within the run.
var respondGroups struct {
	mu       sync.Mutex
	latest   map[string]unsafe.Pointer
	requests map[string]unsafe.Pointer // the clients' releases, by the server's 4-tuple
	keep     []*[8]byte
}

// Respond returns w after releasing, when w is an HTTP/1 response whose
// header is not written yet, what the connection's goroutine did so far
// for the Do that gets the response (see "HTTP/1 responses").
func Respond[W any](site uint32, w W) W {
	if enabled {
		respond(site, any(w))
	}
	return w
}

func respond(site uint32, w any) {
	key := respondKey(w)
	if key == "" || !inConnServe() {
		return
	}
	releaseTuple(site, key, false)
}

// releaseTuple forks a task of a fresh group that begins and ends at once,
// then keeps the group as the latest release of the 4-tuple key: a
// response's (the server's) or a request's (the client's).
func releaseTuple(site uint32, key string, request bool) {
	grp := unsafe.Pointer(new([8]byte))
	respondGroups.mu.Lock()
	respondGroups.keep = append(respondGroups.keep, (*[8]byte)(grp))
	respondGroups.mu.Unlock()
	endedTask(site, grp)
	// Published after the task ended: who takes the group joins a task
	// already ended.
	respondGroups.mu.Lock()
	m := &respondGroups.latest
	if request {
		m = &respondGroups.requests
	}
	if *m == nil {
		*m = make(map[string]unsafe.Pointer)
	}
	(*m)[key] = grp
	respondGroups.mu.Unlock()
}

// Serving returns w after joining, at an HTTP handler's entry on an HTTP/1
// connection's goroutine, the latest request release of the connection's
// 4-tuple (see "HTTP/1 responses"). The rewriter evaluates it as the
// argument of the handler's deferred Served: at the entry.
func Serving(site uint32, w any) any {
	if !enabled {
		return w
	}
	// Only while the response's header is not written: once it is, the
	// client may have read the whole response and sent its next request
	// on the connection, whose release a later entry (a handler the
	// handler calls) must not join.
	key := respondKey(w)
	if key == "" || !inConnServe() {
		return w
	}
	respondGroups.mu.Lock()
	grp := respondGroups.requests[key]
	respondGroups.mu.Unlock()
	if grp != nil {
		syncBefore(site, trace.EvTaskWait, grp, 0)
	}
	return w
}

// RequestSent releases, on the goroutine that got an HTTP/1 connection
// for a request (httptrace's GotConn, before the request is written),
// what it did so far for the handler of the request on the TCP connection
// whose local address (the client's end) is local and remote address
// remote (see "HTTP/1 responses").
func RequestSent(site uint32, local, remote string) {
	if enabled {
		releaseTuple(site, remote+"|"+local, true)
	}
}

// respondKey returns the 4-tuple of w's connection, "local|remote", when w
// is net/http's HTTP/1 response on a TCP connection that is not hijacked
// and whose final header is not written; "" otherwise.
func respondKey(w any) string {
	v := reflect.ValueOf(w)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Type().String() != "*http.response" || v.Type().Elem().PkgPath() != "net/http" {
		return ""
	}
	cw := v.Elem().FieldByName("cw")
	if cw.Kind() != reflect.Struct {
		return ""
	}
	if wrote := cw.FieldByName("wroteHeader"); wrote.Kind() != reflect.Bool || wrote.Bool() {
		return ""
	}
	c := v.Elem().FieldByName("conn")
	if c.Kind() != reflect.Pointer || c.IsNil() {
		return ""
	}
	if h := c.Elem().FieldByName("hijackedv"); h.Kind() != reflect.Bool || h.Bool() {
		return ""
	}
	rwc := c.Elem().FieldByName("rwc")
	if rwc.Kind() != reflect.Interface || rwc.IsNil() {
		return ""
	}
	// Unexported field: its methods are reached through an addressable
	// copy of the interface value.
	conn := reflect.NewAt(rwc.Type(), unsafe.Pointer(rwc.UnsafeAddr())).Elem()
	local, ok1 := tcpAddr(conn, "LocalAddr")
	remote, ok2 := tcpAddr(conn, "RemoteAddr")
	if !ok1 || !ok2 {
		return ""
	}
	return local + "|" + remote
}

// tcpAddr calls the method (LocalAddr or RemoteAddr) of the net.Conn conn
// and returns the address when it is a TCP one.
func tcpAddr(conn reflect.Value, method string) (string, bool) {
	m := conn.MethodByName(method)
	if !m.IsValid() || m.Type().NumIn() != 0 || m.Type().NumOut() != 1 {
		return "", false
	}
	a := m.Call(nil)[0]
	if a.Kind() != reflect.Interface && a.Kind() != reflect.Pointer || a.IsNil() {
		return "", false
	}
	s, ok := a.Interface().(interface {
		Network() string
		String() string
	})
	if !ok || s.Network() != "tcp" {
		return "", false
	}
	return s.String(), true
}

// RespondGroup returns the group of the latest release on the TCP
// connection whose local address (the client's end) is local and remote
// address remote, nil if none (see "HTTP/1 responses").
func RespondGroup(local, remote string) unsafe.Pointer {
	if !enabled {
		return nil
	}
	respondGroups.mu.Lock()
	defer respondGroups.mu.Unlock()
	return respondGroups.latest[remote+"|"+local]
}

// Responded joins, after a client's Do returned, the group RespondGroup
// gave at the response's first byte; nothing when grp is nil.
func Responded(site uint32, grp unsafe.Pointer) {
	if enabled && grp != nil {
		syncBefore(site, trace.EvTaskWait, grp, 0)
	}
}

// GoID returns the running goroutine's runtime id.
func GoID() uint64 { return goid() }

// Enabled reports whether the shim records.
func Enabled() bool { return enabled }

// ConnSent releases, before a write on a TCP connection or an io.Pipe
// sends its bytes, what the goroutine did so far for the read of the
// other end that gets them (packages rtnet and rtpipe): a PoolPut of the write's token into the
// connection's direction d, which hb pairs with the PoolGet of the same
// token (ConnReceived).
func ConnSent(site uint32, d unsafe.Pointer, token uint64) {
	if enabled {
		syncBefore(site, trace.EvPoolPut, d, token)
	}
}

// ConnReceived joins, after a read on a TCP connection or an io.Pipe got
// a byte of the write whose token is token, what that write released
// (ConnSent).
func ConnReceived(site uint32, d unsafe.Pointer, token uint64) {
	if enabled {
		syncBefore(site, trace.EvPoolGet, d, token)
	}
}
