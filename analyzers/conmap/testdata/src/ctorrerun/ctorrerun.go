// Package ctorrerun: a constructor that starts its session's worker and
// then writes the server's name map, which the worker reads for each item
// it receives from the session's queue, which only the returned session's
// Set sends on. One run of the constructor writes before its own worker
// reads, but the constructor runs again for the next session while the
// first one's worker, fed by then, reads the map: concurrent map read and
// map write (review33's w1, a crash under go run). The constructor's
// rule orders only the fields of its fresh object; what it reaches
// through another value is every run's (the silent shape, a field of the
// fresh object set after the start, is conuninit's loopsend/ctor.go).
package ctorrerun

import "fmt"

type server struct {
	names map[int]string
}

type item struct{ key int }

type session struct {
	queue chan item
	srv   *server
}

func newSession(srv *server, id int) *session {
	s := &session{queue: make(chan item, 64), srv: srv}
	go s.work()
	s.srv.names[id] = fmt.Sprint("session-", id) // want `concurrent map read and map write: s.srv.names is written here`
	return s
}

// Set queues k for the session's worker.
func (s *session) Set(k int) { s.queue <- item{k} }

func (s *session) work() {
	for it := range s.queue {
		fmt.Println(s.srv.names[it.key])
	}
}

// Serve makes a session per id, feeding each one made before.
func Serve(srv *server, ids <-chan int) {
	var last *session
	for id := range ids {
		if last != nil {
			go last.Set(id)
		}
		last = newSession(srv, id)
	}
}
