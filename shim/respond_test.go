package shim_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unsafe"

	precog_shim "github.com/precog-dev/precog/shim"
	"github.com/precog-dev/precog/shim/rthttp"
	"github.com/precog-dev/precog/shim/trace"
)

// TestRespond checks the HTTP/1 request and response edges end to end, with
// the calls the rewriter makes: the client's GotConn releases into a group
// (EvTaskGo) that the handler's entry (Serving) joins (EvTaskWait); the
// handler's Respond while the header is not written (after WriteHeader,
// which only records the status) releases into a group that the client's
// Done joins; Respond after Flush (the header is out), after a hijack, or
// on a recorder (not net/http's response, not a connection's goroutine)
// releases nothing, Serving after Flush joins nothing, and a failed Do
// joins nothing.
func TestRespond(t *testing.T) {
	const site = 2461 // client 2461, 2462 (the failed Do); handler 2463-2467
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer precog_shim.Served(site+2, precog_shim.Serving(site+2, w))
		if r.URL.Path == "/hijack" {
			c, _, err := w.(http.Hijacker).Hijack()
			precog_shim.Respond(site+5, w)
			if err == nil {
				c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"))
				c.Close()
			}
			return
		}
		precog_shim.Respond(site+3, w).WriteHeader(http.StatusCreated)
		precog_shim.Respond(site+3, w).(http.Flusher).Flush()
		precog_shim.Respond(site+4, w).Write([]byte("late"))
		precog_shim.Serving(site+4, w) // a handler called after the header went out
	})
	ts := httptest.NewServer(handler)
	defer ts.Close()
	// The recorded function runs on a goroutine of its own, which
	// RecordedAll joins; it sends its failure on a channel rather than
	// calling t or setting a variable: precog's own checks do not see
	// that join from this external test package, and follow the channel.
	failed := make(chan error, 1)
	evs := precog_shim.RecordedAll(t, site-1, func() { failed <- respondRequests(ts, site) })
	if err := <-failed; err != nil {
		t.Fatal(err)
	}
	at := map[uint32][]trace.Event{}
	for _, ev := range evs {
		// (Served's fork for httptest's Close, of the group ts.Config, aside.)
		if ev.Site >= site && ev.Site < site+7 && (ev.Kind == trace.EvTaskGo || ev.Kind == trace.EvTaskWait) && ev.Addr != uint64(uintptr(unsafe.Pointer(ts.Config))) {
			at[ev.Site] = append(at[ev.Site], ev)
		}
	}
	kinds := func(s uint32) string {
		var out []string
		for _, ev := range at[s] {
			out = append(out, ev.Kind.String())
		}
		return strings.Join(out, " ")
	}
	// Client: two GotConns of one kept-alive connection, each Do joining
	// the latest release on it: the hijacked request's is the first
	// response's (its handler released nothing).
	if got := kinds(site); got != "TaskGo TaskWait TaskGo TaskWait" {
		t.Fatalf("client events %q, want TaskGo TaskWait TaskGo TaskWait", got)
	}
	// Handler: a join at each entry; the two Responds before the flush
	// release; Served's at the return finds the header out.
	if got := kinds(site + 2); got != "TaskWait TaskWait" {
		t.Errorf("handler entry events %q, want TaskWait TaskWait", got)
	}
	if got := kinds(site + 3); got != "TaskGo TaskGo" {
		t.Errorf("Respond before the flush %q, want TaskGo TaskGo", got)
	}
	for _, s := range []uint32{site + 1, site + 4, site + 5, site + 6} {
		if got := kinds(s); got != "" {
			t.Errorf("site %d: %q, want nothing", s-site, got)
		}
	}
	if len(at[site+2]) == 2 && len(at[site]) == 4 {
		if at[site+2][0].Addr != at[site][0].Addr || at[site+2][1].Addr != at[site][2].Addr {
			t.Errorf("the handlers joined groups %#x %#x, the client released %#x %#x",
				at[site+2][0].Addr, at[site+2][1].Addr, at[site][0].Addr, at[site][2].Addr)
		}
	}
	if len(at[site+3]) == 2 && (at[site][1].Addr != at[site+3][1].Addr || at[site][3].Addr != at[site+3][1].Addr) {
		t.Errorf("the client joined %#x and %#x, want the first handler's latest release %#x twice",
			at[site][1].Addr, at[site][3].Addr, at[site+3][1].Addr)
	}
}

// respondRequests makes TestRespond's requests on the recorded goroutine:
// "/" and "/hijack" on ts, then a Do that fails (port 1), then a Respond
// on a recorder.
func respondRequests(ts *httptest.Server, site uint32) error {
	for _, path := range []string{"/", "/hijack"} {
		req, err := http.NewRequest("GET", ts.URL+path, nil)
		if err != nil {
			return err
		}
		resp, err := rthttp.Done(ts.Client().Do(rthttp.Trace(site, req)))
		if err != nil {
			return err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.Request != req {
			return errors.New("resp.Request is not the caller's request")
		}
	}
	req, _ := http.NewRequest("GET", "http://127.0.0.1:1/", nil)
	if _, err := rthttp.Done(ts.Client().Do(rthttp.Trace(site+1, req))); err == nil {
		return errors.New("a request to port 1 succeeded")
	}
	precog_shim.Respond(site+6, http.ResponseWriter(httptest.NewRecorder()))
	return nil
}

// TestRespondHook checks rthttp's hook, the alternate round tripper of the
// "http" scheme, with Do called as code precog does not rewrite calls it:
// on a hooked transport an untraced request's GotConn releases into a
// group the handler's entry joins, and after the round trip the caller
// joins the handler's release (both at site 0, the hook's), with the
// caller's own request in the response; a request Trace traced already
// gets its events at its own site only (the hook skips it); on a
// transport without the hook an untraced request gets nothing.
func TestRespondHook(t *testing.T) {
	const site = 2471 // client (traced) 2471; handler 2472
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer precog_shim.Served(site+1, precog_shim.Serving(site+1, w))
		w.Write([]byte("ok")) // buffered: the header goes out after Served
	})
	ts := httptest.NewServer(handler)
	defer ts.Close()
	hooked := &http.Transport{}
	rthttp.Hook(hooked)
	rthttp.Hook(hooked) // registered already: no panic, no second hook
	defer hooked.CloseIdleConnections()
	plain := &http.Transport{}
	defer plain.CloseIdleConnections()
	failed := make(chan error, 1)
	evs := precog_shim.RecordedAll(t, site-1, func() {
		failed <- hookRequests(ts.URL, &http.Client{Transport: hooked}, &http.Client{Transport: plain}, site)
	})
	if err := <-failed; err != nil {
		t.Fatal(err)
	}
	at := map[uint32][]trace.Event{}
	for _, ev := range evs {
		if (ev.Site == 0 || ev.Site >= site && ev.Site < site+2) && (ev.Kind == trace.EvTaskGo || ev.Kind == trace.EvTaskWait) && ev.Addr != uint64(uintptr(unsafe.Pointer(ts.Config))) {
			at[ev.Site] = append(at[ev.Site], ev)
		}
	}
	kinds := func(s uint32) string {
		var out []string
		for _, ev := range at[s] {
			out = append(out, ev.Kind.String())
		}
		return strings.Join(out, " ")
	}
	// The untraced request on the hooked transport, then the traced one;
	// the plain transport's request gives nothing.
	if got := kinds(0); got != "TaskGo TaskWait" {
		t.Fatalf("hook events %q, want TaskGo TaskWait", got)
	}
	if got := kinds(site); got != "TaskGo TaskWait" {
		t.Errorf("traced request's events %q, want TaskGo TaskWait", got)
	}
	// Each handler joins its request's release at its entry, if any (the
	// plain transport's released nothing), and releases at its return.
	if got := kinds(site + 1); got != "TaskWait TaskGo TaskWait TaskGo TaskGo" {
		t.Fatalf("handler events %q, want TaskWait TaskGo TaskWait TaskGo TaskGo", got)
	}
	if at[site+1][0].Addr != at[0][0].Addr {
		t.Errorf("the handler joined %#x, the hook released %#x", at[site+1][0].Addr, at[0][0].Addr)
	}
	if at[0][1].Addr != at[site+1][1].Addr {
		t.Errorf("the hook joined %#x, the handler released %#x", at[0][1].Addr, at[site+1][1].Addr)
	}
}

// hookRequests makes TestRespondHook's requests on the recorded goroutine:
// an untraced GET through hooked, the same traced, then one through plain.
func hookRequests(url string, hooked, plain *http.Client, site uint32) error {
	get := func(c *http.Client, traced bool) error {
		req, err := http.NewRequest("GET", url, nil)
		if err != nil {
			return err
		}
		var resp *http.Response
		if traced {
			resp, err = rthttp.Done(c.Do(rthttp.Trace(site, req)))
		} else {
			resp, err = c.Do(req)
		}
		if err != nil {
			return err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.Request != req {
			return errors.New("resp.Request is not the caller's request")
		}
		return nil
	}
	for _, c := range []struct {
		c      *http.Client
		traced bool
	}{{hooked, false}, {hooked, true}, {plain, false}} {
		if err := get(c.c, c.traced); err != nil {
			return err
		}
	}
	return nil
}
