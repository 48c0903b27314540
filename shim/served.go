package shim

import (
	"reflect"
	"runtime"
	"strings"
	"sync/atomic"
	"unsafe"

	"github.com/precog-dev/precog/shim/trace"
)

// Served handlers. httptest.Server.Close blocks until every connection
// the server tracks has closed or been hijacked (its ConnState hook counts
// them in a WaitGroup from StateNew to StateClosed or StateHijacked). An
// HTTP/1 connection runs its handlers on its own goroutine, net/http's
// (*conn).serve, and reaches StateClosed only after its last handler
// returned: so a handler's events on that goroutine come before Close
// returns, unless the handler hijacked the connection (StateHijacked is
// set at the hijack, while the handler still runs). HTTP/2 runs handlers
// on goroutines of their own that nothing waits for: not modelled.
// CloseClientConnections waits for nothing.
//
// net/http is not instrumented, so that wait is not in the trace. The
// rewriter makes an instrumented function whose parameters are
// (w http.ResponseWriter, r *http.Request) defer Served(S, w) first, and
// replaces a call or method value of (*httptest.Server).Close by
// ServeClose(S, ts). Served, when w is net/http's HTTP/1
// response whose connection is not hijacked and the running goroutine is
// in (*conn).serve, forks a task of the group named by the connection's
// *http.Server (EvTaskGo) that begins and ends at once: its end is the
// handler's return. ServeClose, after Close returned, joins that group
// (EvTaskWait), so what every such handler did comes before. A handler
// run by other code (a ServeHTTP called by hand, a goroutine the handler
// started, a wrapped ResponseWriter) gives nothing: order is lost, never
// invented. The fields read (response.conn, conn.server, conn.hijackedv)
// are Go's; without them Served gives nothing. Served gives nothing
// either when the server's ConnState hook is not httptest's (wrap's
// closure): a plain http.Server, or a hook a test replaced after Start,
// whose connections Close does not count.

// Served records the return of a handler on its HTTP/1 connection's
// goroutine (see "Served handlers"); deferred first in the handler.
func Served(site uint32, w any) {
	if !enabled {
		return
	}
	// A handler that wrote nothing: its response's header goes out after
	// its return (see "HTTP/1 responses").
	respond(site, w)
	srv := servedBy(w)
	if srv == nil || !inConnServe() {
		return
	}
	endedTask(site, srv)
}

// endedTask forks a task of group grp (EvTaskGo) that begins and ends at
// once on a goroutine of its own, and returns after its end, so that a
// later join of the group (EvTaskWait) orders after it what the caller
// did before the fork.
func endedTask(site uint32, grp unsafe.Pointer) {
	id := fork(site, trace.EvTaskGo, grp)
	done := make(chan struct{})
	go func() {
		begin(id)
		end()
		close(done)
	}()
	<-done
}

// servedBy returns the *http.Server whose HTTP/1 connection w answers on,
// if w is net/http's response and the connection is not hijacked; nil
// otherwise.
func servedBy(w any) unsafe.Pointer {
	v := reflect.ValueOf(w)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Type().String() != "*http.response" || v.Type().Elem().PkgPath() != "net/http" {
		return nil
	}
	c := v.Elem().FieldByName("conn")
	if c.Kind() != reflect.Pointer || c.IsNil() {
		return nil
	}
	h := c.Elem().FieldByName("hijackedv")
	s := c.Elem().FieldByName("server")
	if h.Kind() != reflect.Bool || h.Bool() || s.Kind() != reflect.Pointer || s.IsNil() {
		return nil
	}
	// Close waits only for connections its own ConnState hook counted:
	// a server whose hook is not httptest's (a plain http.Server, or one
	// whose hook a test replaced after Start) gives nothing.
	hook := s.Elem().FieldByName("ConnState")
	if hook.Kind() != reflect.Func || hook.IsNil() {
		return nil
	}
	if f := runtime.FuncForPC(hook.Pointer()); f == nil || !isHTTPTestHook(f.Name()) {
		return nil
	}
	return s.UnsafePointer()
}

// isHTTPTestHook reports whether name is the function name of the
// ConnState hook that httptest.Server's Start and StartTLS install:
// wrap's closure, named net/http/httptest.(*Server).wrap.funcN, or
// net/http/httptest.(*Server).Start.(*Server).wrap.funcN where the
// compiler inlined wrap.
func isHTTPTestHook(name string) bool {
	const pkg = "net/http/httptest.(*Server)."
	rest, ok := strings.CutPrefix(name, pkg)
	if !ok {
		return false
	}
	i := strings.LastIndex(rest, "wrap.func")
	return i == 0 || i > 0 && strings.HasSuffix(rest[:i], ".(*Server).")
}

// inConnServe reports whether the running goroutine is in net/http's
// (*conn).serve: the goroutine of an HTTP/1 connection.
func inConnServe() bool {
	var pcs [64]uintptr
	n := runtime.Callers(2, pcs[:])
	// The return addresses in serve's frame seen before: a handler's
	// stack holds one (serve calls the handler from one line), found
	// without symbolizing every frame (CallersFrames), which Respond
	// and Serving would do several times per request.
	if known := connServePCs.Load(); known != nil {
		for _, pc := range pcs[:n] {
			if (*known)[pc] {
				return true
			}
		}
	}
	for _, pc := range pcs[:n] {
		if f := runtime.FuncForPC(pc - 1); f != nil && f.Name() == "net/http.(*conn).serve" {
			rememberConnServe(pc)
			return true
		}
	}
	// A call site inlined into serve names the inlined function there.
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		if f.Function == "net/http.(*conn).serve" {
			return true
		}
		if !more || strings.HasPrefix(f.Function, "runtime.goexit") {
			return false
		}
	}
}

// connServePCs holds the return addresses (runtime.Callers') seen in
// (*conn).serve's frame, as keys; copied on write.
var connServePCs atomic.Pointer[map[uintptr]bool]

func rememberConnServe(pc uintptr) {
	for {
		old := connServePCs.Load()
		m := map[uintptr]bool{}
		if old != nil {
			if (*old)[pc] {
				return
			}
			for k := range *old {
				m[k] = true
			}
		}
		m[pc] = true
		if connServePCs.CompareAndSwap(old, &m) {
			return
		}
	}
}

// ServeClose is ts.Close() for an *httptest.Server ts (the shim does not
// import net/http: reflect calls Close and reads Config): after Close
// returned, every handler that ran on one of its HTTP/1 connections'
// goroutines and returned without hijacking is joined (see "Served
// handlers").
func ServeClose(site uint32, ts any) {
	v := reflect.ValueOf(ts)
	v.MethodByName("Close").Call(nil)
	if !enabled || v.Kind() != reflect.Pointer || v.IsNil() {
		return
	}
	if c := v.Elem().FieldByName("Config"); c.Kind() == reflect.Pointer && !c.IsNil() {
		Waited(site, c.UnsafePointer())
	}
}

// ServeCloser is the method value ts.Close (t.Cleanup(ts.Close)).
func ServeCloser(site uint32, ts any) func() {
	return func() { ServeClose(site, ts) }
}
