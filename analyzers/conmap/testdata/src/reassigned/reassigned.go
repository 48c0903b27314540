// Package reassigned: a client that hands its first request to a
// goroutine and then makes each retry afresh, in a variable that a
// closure also captures (to report errors with the request at hand). A
// read of the variable in the function that declares it holds what the
// assignments reaching that read stored, not every value the variable
// ever held: the retry's header map, written before the retry is sent,
// is not the first request's, which the sender reads. Silent; the same
// loop writing the header after handing the retry over is reported.
package reassigned

type Request struct {
	Header map[string]string
	URL    string
}

func send(r *Request) {
	_ = r.Header["Host"]
}

func logf(format string, args ...any) {}

// Follow sends the first request from a goroutine and then builds every
// redirect's request before sending it.
func Follow(first *Request, hops int) {
	req := &Request{Header: map[string]string{}, URL: first.URL}
	fail := func() { logf("request to %s failed", req.URL) }
	go send(req)
	for i := 0; i < hops; i++ {
		req = &Request{Header: map[string]string{}, URL: first.URL}
		req.Header["Referer"] = first.URL
		if req.URL == "" {
			fail()
			return
		}
		send(req)
	}
}

// Hurry hands each redirect to a goroutine before it sets the header:
// reported.
func Hurry(first *Request, hops int) {
	req := &Request{Header: map[string]string{}, URL: first.URL}
	fail := func() { logf("request to %s failed", req.URL) }
	for i := 0; i < hops; i++ {
		req = &Request{Header: map[string]string{}, URL: first.URL}
		go send(req)
		req.Header["Referer"] = first.URL // want `concurrent map read and map write: req.Header is written here and read by send with no common lock`
		if req.URL == "" {
			fail()
			return
		}
	}
}
