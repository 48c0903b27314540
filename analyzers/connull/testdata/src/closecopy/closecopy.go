// Package closecopy: a Close that checks a field for nil, copies it and
// stores nil in one critical section, then closes the copy after the
// Unlock (alicebob/miniredis's Close, run twice at once by its test): the
// copy is never nil, since no other Close can store nil between the
// check and the copy. A Close that calls a method between the check and
// the copy (which could unlock or store nil), and one that copies after
// the Unlock, stay reported.
package closecopy

import "sync"

type conn struct{ n int }

func (c *conn) Close() { c.n = 0 }

type Server struct {
	mu               sync.Mutex
	srv, other, late *conn
}

func (m *Server) Close() {
	m.mu.Lock()
	if m.srv == nil {
		m.mu.Unlock()
		return
	}
	srv := m.srv
	m.srv = nil
	m.mu.Unlock()
	srv.Close()
}

func (m *Server) CloseOther() {
	m.mu.Lock()
	if m.other == nil {
		m.mu.Unlock()
		return
	}
	m.note()
	o := m.other
	m.other = nil
	m.mu.Unlock()
	o.Close() // want `m.other may be nil when used to call \(\*conn\).Close here: \(\*Server\).CloseOther stores nil to it concurrently`
}

func (m *Server) note() {}

func (m *Server) CloseLate() {
	m.mu.Lock()
	if m.late == nil {
		m.mu.Unlock()
		return
	}
	m.mu.Unlock()
	l := m.late
	m.mu.Lock()
	m.late = nil
	m.mu.Unlock()
	l.Close() // want `m.late may be nil when used to call \(\*conn\).Close here: \(\*Server\).CloseLate stores nil to it concurrently`
}

func Start(m *Server) {
	go m.Close()
	go m.Close()
	go m.CloseOther()
	go m.CloseOther()
	go m.CloseLate()
	go m.CloseLate()
}
