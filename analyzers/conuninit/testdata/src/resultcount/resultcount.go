// Package resultcount: two goroutines each send their one result on a
// channel, and their starter receives in a loop that runs a constant
// number of turns, as many as the sends, before it reads what one of them
// set: every send has happened, so the read is silent (a counted for, a
// range over a constant, a t.Fatal-like exit in the body). Near misses,
// reported: a loop with fewer turns than sends, one that may break before
// its turns are done, and one whose count the caller hands in.
package resultcount

type client struct{ port string }

func (c *client) setup()       { c.port = "9009" }
func (c *client) send() error  { c.setup(); return nil }
func (c *client) other() error { return nil }

func fail(err error) { panic(err) }

func Both() string {
	a, b := &client{}, &client{}
	errc := make(chan error, 2)
	go func() { errc <- a.send() }()
	go func() { errc <- b.other() }()
	for i := 0; i < 2; i++ {
		if err := <-errc; err != nil {
			fail(err)
		}
	}
	return a.port
}

func Range() string {
	a, b := &client{}, &client{}
	errc := make(chan error, 2)
	go func() { errc <- a.send() }()
	go func() { errc <- b.other() }()
	for range 2 {
		<-errc
	}
	return a.port
}

func Fewer() string {
	a, b := &client{}, &client{}
	errc := make(chan error, 2)
	go func() { errc <- a.send() }()
	go func() { errc <- b.other() }()
	for i := 0; i < 1; i++ {
		<-errc
	}
	return a.port // want `a.port may be read before it is set`
}

func Break(stop bool) string {
	a, b := &client{}, &client{}
	errc := make(chan error, 2)
	go func() { errc <- a.send() }()
	go func() { errc <- b.other() }()
	for i := 0; i < 2; i++ {
		if stop {
			break
		}
		<-errc
	}
	return a.port // want `a.port may be read before it is set`
}

func Handed(n int) string {
	a, b := &client{}, &client{}
	errc := make(chan error, 2)
	go func() { errc <- a.send() }()
	go func() { errc <- b.other() }()
	for i := 0; i < n; i++ {
		<-errc
	}
	return a.port // want `a.port may be read before it is set`
}
