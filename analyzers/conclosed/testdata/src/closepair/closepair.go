// Package closepair has closes found under two locations: shut and stop
// close their parameter, which Run fills from s.x and from s.y. Under
// S.x shut's close is reported with stop's; under S.y with other's, its
// first partner there, and stop's close, meeting shut's there, is not
// reported again.
package closepair

type S struct {
	x, y chan struct{}
}

func shut(ch chan struct{}) { close(ch) } // want `close of closed channel: ch may also be closed by other` `close of closed channel: ch may also be closed by stop`

func other(s *S) { close(s.y) } // want `close of closed channel: s.y may also be closed by stop`

func stop(ch chan struct{}) { close(ch) }

func (s *S) Run() {
	go shut(s.x)
	go stop(s.x)
	go shut(s.y)
	go other(s)
	go stop(s.y)
}
