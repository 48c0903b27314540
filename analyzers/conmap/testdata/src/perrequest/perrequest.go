// Package perrequest: a writer made fresh for each call of RoundTrip and
// handed to the one goroutine that call starts; the goroutine writes the
// writer's header map through an interface method whose implementation
// returns memory reached from its receiver (p.res.header). The helper is
// also called, through the exported ServeContent, with whatever writer
// the package's caller passes: that writer's header is not the
// goroutine's (as net/http's writeNotModified, reached from ServeContent
// and from the goroutine of fileTransport.RoundTrip). Silent.
package perrequest

type Header map[string]string

type ResponseWriter interface {
	Header() Header
}

type response struct{ header Header }

type populate struct{ res *response }

func (p *populate) Header() Header { return p.res.header }

func newPopulate() *populate {
	return &populate{res: &response{header: make(Header)}}
}

type fileHandler struct{}

func (fileHandler) ServeHTTP(w ResponseWriter) { notModified(w) }

func ServeContent(w ResponseWriter) { notModified(w) }

func notModified(w ResponseWriter) {
	h := w.Header()
	delete(h, "Content-Type")
}

type Transport struct{ h fileHandler }

func (t *Transport) RoundTrip() {
	rw := newPopulate()
	go func() {
		t.h.ServeHTTP(rw)
	}()
}

// Serve hands one writer to the goroutine and writes its header on the
// caller's goroutine too: reported.
var shared = newPopulate()

func Serve() {
	go reset(shared)
	reset(shared)
}

func reset(w ResponseWriter) {
	h := w.Header()
	delete(h, "Content-Length") // want `concurrent map writes: h is written here by several goroutines with no common lock`
}
