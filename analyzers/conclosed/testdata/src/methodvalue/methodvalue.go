// Package methodvalue: methods handed to time.AfterFunc as method values
// (s.Stop), whose receiver is the one bound into the value where the
// timer is set. Server's Stop closes on every call and Expire sets two
// timers (reported; silent before the receiver was followed to the
// method value); OnceServer's Stop closes once (silent), and Separate's
// timers stop two servers made apart (silent; reported before, when every
// receiver of Stop was taken as any other's). A method value called by a
// go statement in a loop (Looper) is reported too; one per server made in
// the loop (Spread), or one start (OneStart), is silent.
package methodvalue

import (
	"sync"
	"time"
)

type Server struct{ quit chan struct{} }

func (s *Server) Stop() {
	close(s.quit) // want `close of closed channel: s.quit may also be closed by \(\*Server\).Stop`
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

// Looper starts its method value in a loop (`f := s.Stop; go f()`): every
// goroutine stops the one server bound into f (reported; silent before,
// when the receiver bound into a called method value was not followed).
type Looper struct{ quit chan struct{} }

func (s *Looper) Stop() {
	close(s.quit) // want `close of closed channel: s.quit may also be closed by \(\*Looper\).Stop`
}

func (s *Looper) StopAll(n int) {
	f := s.Stop
	for range n {
		go f()
	}
}

// Spread starts one method value per server it makes, in a loop (silent:
// each goroutine stops its own server).
type Spread struct{ quit chan struct{} }

func (s *Spread) Stop() { close(s.quit) }

func SpreadAll(n int) {
	for range n {
		s := &Spread{quit: make(chan struct{})}
		f := s.Stop
		go f()
	}
}

// OneStart starts its method value once (silent).
type OneStart struct{ quit chan struct{} }

func (s *OneStart) Stop() { close(s.quit) }

func (s *OneStart) StopLater() {
	f := s.Stop
	go f()
}
