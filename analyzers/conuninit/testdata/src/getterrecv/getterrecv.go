// Package getterrecv: a listener goroutine sets a field and then sends on
// a channel kept in another field; its starter receives from that channel
// through a getter, one that locks and returns the field, or a getter of
// that getter, in a select, and reads the field after: silent, as a
// receive from the field itself is, whether the object's goroutines are
// many (L) or one (S). Near misses, reported: a getter of a channel sent
// on before the write, and a getter of another listener's channel.
package getterrecv

import (
	"sync"
	"time"
)

type conn struct{ port int }

type L struct {
	mu        sync.Mutex
	started   chan bool
	listening chan bool
	conn      *conn
}

func New() *L { return &L{started: make(chan bool, 1), listening: make(chan bool, 1)} }

// Listening returns the channel Listen sends on once conn is set.
func (l *L) Listening() <-chan bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.listening
}

// Ready returns what Listening does.
func (l *L) Ready() <-chan bool { return l.Listening() }

// Started returns the channel Listen sends on before it sets conn.
func (l *L) Started() <-chan bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.started
}

func (l *L) Listen() {
	l.started <- true
	l.conn = &conn{port: 1}
	l.listening <- true
}

// Getter reads conn after a receive through the getter.
func Getter() int {
	l := New()
	go l.Listen()
	select {
	case <-l.Listening():
		return l.conn.port
	case <-time.After(time.Second):
		return 0
	}
}

// Chain reads conn after a receive through a getter of the getter.
func Chain() int {
	l := New()
	go l.Listen()
	<-l.Ready()
	return l.conn.port
}

// Early reads conn after a receive from the channel sent on before it.
func Early() int {
	l := New()
	go l.Listen()
	select {
	case <-l.Started():
		return l.conn.port // want `l.conn may be read before it is set`
	case <-time.After(time.Second):
		return 0
	}
}

// Other reads conn after a receive from another listener's channel.
func Other() int {
	l, m := New(), New()
	go l.Listen()
	go m.Listen()
	<-m.Ready()
	return l.conn.port // want `l.conn may be read before it is set`
}

// S is started by one go statement alone.
type S struct {
	mu    sync.Mutex
	ready chan struct{}
	port  *int
}

func (s *S) Ready() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ready
}

func (s *S) serve() {
	p := 1
	s.port = &p
	close(s.ready)
}

// Single reads port after a receive through the getter from the channel
// its one goroutine closes after the write.
func Single() int {
	s := &S{ready: make(chan struct{})}
	go s.serve()
	<-s.Ready()
	return *s.port
}
