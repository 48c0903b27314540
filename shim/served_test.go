package shim

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"unsafe"

	"github.com/precog-dev/precog/shim/trace"
)

// TestServed checks the join of an httptest server's handlers at Close:
// a handler that returns on its HTTP/1 connection's goroutine forks one
// task of the group named by the server's *http.Server (EvTaskGo) that
// begins and ends; one that hijacked the connection, one called by hand
// with a recorder (not net/http's response, not on a connection's
// goroutine), and one on a plain http.Server's connection (not
// httptest's ConnState hook, so no Close waits for it) fork none; ServeClose, after Close returned, records the
// group's join (EvTaskWait).
func TestServed(t *testing.T) {
	const site = 2411
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer Served(site, w)
		if r.URL.Path == "/hijack" {
			c, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"))
				c.Close()
			}
			return
		}
		w.Write([]byte("ok"))
	})
	var ts *httptest.Server
	var config unsafe.Pointer
	evs := recorded(t, site-1, func() {
		ts = httptest.NewServer(handler)
		config = unsafe.Pointer(ts.Config)
		for _, path := range []string{"/", "/hijack"} {
			resp, err := http.Get(ts.URL + path)
			if err != nil {
				t.Error(err)
				continue
			}
			io.Copy(io.Discard, bufio.NewReader(resp.Body))
			resp.Body.Close()
		}
		handler.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
		// A plain http.Server: its ConnState hook is not httptest's,
		// whose Close alone waits for the connections.
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		plain := &http.Server{Handler: handler, ConnState: func(net.Conn, http.ConnState) {}}
		go plain.Serve(ln)
		if resp, err := http.Get("http://" + ln.Addr().String() + "/"); err != nil {
			t.Error(err)
		} else {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		plain.Close()
		ServeClose(site+1, ts)
	})
	all := since(readTrace(t, tracePath), evs[0].Seq-1)
	var tasks []trace.Event
	for _, ev := range all {
		// The response releases at the same site fork tasks of groups of
		// their own (see "HTTP/1 responses").
		if ev.Kind == trace.EvTaskGo && ev.Site == site && ev.Addr == uint64(uintptr(config)) {
			tasks = append(tasks, ev)
		}
	}
	if len(tasks) != 1 || tasks[0].Addr != uint64(uintptr(config)) {
		t.Fatalf("forks at the handler's site %v, want one of the group %#x (the first request's)", tasks, uintptr(config))
	}
	if got := kindsString(goroutineEvents(all, tasks[0].Peer)); got != "Begin End" {
		t.Errorf("the task's events %s, want Begin End", got)
	}
	waits := 0
	for _, ev := range evs {
		if ev.Kind == trace.EvTaskWait && ev.Site == site+1 && ev.Addr == uint64(uintptr(config)) {
			waits++
		}
	}
	if waits != 1 {
		t.Errorf("%d joins of the group at ServeClose, want 1", waits)
	}
}

// TestHTTPTestHook checks the names Served takes for httptest's ConnState
// hook: wrap's closure, inlined into Start or StartTLS or not; not
// another function of httptest's nor a function of another package.
func TestHTTPTestHook(t *testing.T) {
	for name, want := range map[string]bool{
		"net/http/httptest.(*Server).wrap.func1":                    true,
		"net/http/httptest.(*Server).Start.(*Server).wrap.func2":    true,
		"net/http/httptest.(*Server).StartTLS.(*Server).wrap.func2": true,
		"net/http/httptest.(*Server).Close":                         false,
		"net/http/httptest.(*Server).Start.func1":                   false,
		"example.com/m.(*Server).wrap.func1":                        false,
		"example.com/m.wrap.func1":                                  false,
	} {
		if got := isHTTPTestHook(name); got != want {
			t.Errorf("isHTTPTestHook(%q) = %v, want %v", name, got, want)
		}
	}
}
