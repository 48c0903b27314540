// Package freshinit is kcp-go's newUDPSession: a constructor allocates a
// session, hands it to an init method that stores a connection in a
// field of a field, and to runtime.AddCleanup, then sets the header size
// that its output callback (a closure over the session, called by the
// read loop) slices buffers with, and only then starts the loop. Sessions are made by many goroutines: each writes its own
// session's size before any other goroutine can reach it, not reported.
// A session registered in a package-level table that another goroutine
// scans, by a method or by a function that keeps it, before the size is
// set is reported at the scan.
package freshinit

import (
	"runtime"
	"sync"
)

type conn struct{ addr string }

type platform struct{ batch *conn }

type session struct {
	platform   platform
	conn       *conn
	deadline   *int
	headerSize int
	buf        []byte
	output     func()
}

func freeDeadline(d *int) {}

func (s *session) initPlatform() {
	s.platform.batch = &conn{addr: s.conn.addr}
}

func newSession(c *conn, enc bool) *session {
	s := new(session)
	s.conn = c
	s.deadline = new(int)
	s.buf = make([]byte, 1500)
	s.initPlatform()
	runtime.AddCleanup(s, freeDeadline, s.deadline)
	if enc {
		s.headerSize = 24
	}
	s.output = func() { _ = s.buf[s.headerSize:] }
	go s.readLoop()
	return s
}

func (s *session) readLoop() {
	for {
		s.output()
	}
}

// Accept makes sessions on goroutines of their own.
func Accept(c *conn) {
	for i := 0; i < 8; i++ {
		go newSession(c, i%2 == 0)
	}
}

var (
	mu       sync.Mutex
	sessions []*published
)

type published struct {
	headerSize int
	buf        []byte
}

// register puts the session where every goroutine finds it.
func (s *published) register() {
	mu.Lock()
	sessions = append(sessions, s)
	mu.Unlock()
}

func newPublished(enc bool) *published {
	s := &published{buf: make([]byte, 1500)}
	s.register()
	if enc {
		s.headerSize = 24
	}
	go s.readLoop()
	return s
}

func (s *published) readLoop() {
	for {
		_ = s.buf[s.headerSize:]
	}
}

// Scan reads every registered session's buffer.
func Scan() {
	mu.Lock()
	defer mu.Unlock()
	for _, s := range sessions {
		_ = s.buf[s.headerSize:] // want `s.buf\[s.headerSize:\] may be out of range: s.headerSize is written concurrently by newPublished`
	}
}

var kept []*handed

type handed struct {
	headerSize int
	buf        []byte
}

func keep(h *handed) { kept = append(kept, h) }

// init hands the session on to a function that keeps it.
func (h *handed) init() { keep(h) }

func newHanded(enc bool) *handed {
	h := &handed{buf: make([]byte, 1500)}
	h.init()
	if enc {
		h.headerSize = 24
	}
	go h.readLoop()
	return h
}

func (h *handed) readLoop() {
	for {
		_ = h.buf[h.headerSize:]
	}
}

// ScanKept reads every kept session's buffer.
func ScanKept() {
	for _, h := range kept {
		_ = h.buf[h.headerSize:] // want `h.buf\[h.headerSize:\] may be out of range: h.headerSize is written concurrently by newHanded`
	}
}

func AcceptOthers() {
	for i := 0; i < 8; i++ {
		go newPublished(i%2 == 0)
		go newHanded(i%2 == 0)
	}
	go Scan()
	go ScanKept()
}
