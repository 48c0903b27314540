// Package methodvalue: methods handed to time.AfterFunc as method values
// (s.Stop), whose receiver is the one bound into the value where the
// timer is set. Server's Stop closes on every call and Expire sets two
// timers (reported; silent before the receiver was followed to the
// method value); OnceServer's Stop closes once (silent), and Separate's
// timers stop two servers made apart (silent; reported before, when every
// receiver of Stop was taken as any other's).
package methodvalue

import (
	"sync"
	"time"
)

type Server struct{ quit chan struct{} }

func (s *Server) Stop() {
	close(s.quit) // want `close of closed channel: s.quit may be closed concurrently by \(\*Server\).Stop`
}

func (s *Server) Expire(d time.Duration) {
	time.AfterFunc(d, s.Stop)
	time.AfterFunc(2*d, s.Stop)
}

type OnceServer struct {
	once sync.Once
	quit chan struct{}
}

func (s *OnceServer) Stop() { s.once.Do(func() { close(s.quit) }) }

func (s *OnceServer) Expire(d time.Duration) {
	time.AfterFunc(d, s.Stop)
	time.AfterFunc(2*d, s.Stop)
}

type Single struct{ quit chan struct{} }

func (s *Single) Stop() { close(s.quit) }

// Separate sets one timer for each of two servers it makes.
func Separate(d time.Duration) {
	a := &Single{quit: make(chan struct{})}
	time.AfterFunc(d, a.Stop)
	b := &Single{quit: make(chan struct{})}
	time.AfterFunc(d, b.Stop)
}
