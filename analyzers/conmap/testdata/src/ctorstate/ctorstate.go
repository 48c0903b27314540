// Package ctorstate: a constructor that makes a connection and runs its
// handshake, a state machine of the connection's own method values
// (`for state := c.negotiate; state != nil; { state, err = state() }`),
// before it returns the connection (Azure/go-amqp's NewConn). Each call's
// state machine touches the connection that call made, which no other
// goroutine can reach until the call returns it: silent, although a
// goroutine that holds another connection of the same allocation site
// makes one too. The controls, where another goroutine reaches the
// object while the state machine runs, are in ctorpublished. The object
// comes from two constructors (NewConn's newConn, Dial's dialConn, which
// fills and returns what newConn made), and start's receiver is captured
// by its deferred closure, as in go-amqp.
package ctorstate

import (
	"errors"
	"io"
	"strings"
	"sync"
)

type stateFunc func() (stateFunc, error)

type Conn struct {
	net    io.Reader
	name   string
	done   chan struct{}
	props  map[string]int
	failed bool
}

func newConn(r io.Reader) (*Conn, error) {
	if r == nil {
		return nil, errors.New("no reader")
	}
	return &Conn{net: r, done: make(chan struct{})}, nil
}

// NewConn makes the connection and runs its handshake before it returns it.
func NewConn(r io.Reader) (*Conn, error) {
	c, err := newConn(r)
	if err != nil {
		return nil, err
	}
	if err := c.start(); err != nil {
		return nil, err
	}
	return c, nil
}

// Dial makes the connection in dialConn and runs the same handshake.
func Dial(name string) (*Conn, error) {
	c, err := dialConn(name)
	if err != nil {
		return nil, err
	}
	if err := c.start(); err != nil {
		return nil, err
	}
	return c, nil
}

// dialConn fills and returns what newConn made.
func dialConn(name string) (*Conn, error) {
	c, err := newConn(strings.NewReader(name))
	if err != nil {
		return nil, err
	}
	c.name = name
	return c, nil
}

func (c *Conn) start() (err error) {
	defer func() {
		if err != nil {
			c.failed = true
		}
	}()
	for state := c.negotiate; state != nil; {
		state, err = state()
		if err != nil {
			return err
		}
	}
	return nil
}

func (c *Conn) negotiate() (stateFunc, error) {
	if c.net == nil {
		return c.negotiate, nil
	}
	return c.open, nil
}

func (c *Conn) open() (stateFunc, error) {
	c.props = map[string]int{}
	c.props["open"] = 1
	return nil, nil
}

// Props reads the properties of a connection NewConn returned.
func (c *Conn) Props() int { return c.props["open"] }

// Adopt waits for another connection to be done.
func (c *Conn) Adopt(o *Conn) {
	select {
	case <-o.done:
	case <-c.done:
	}
}

func mustConn() *Conn {
	c, err := NewConn(strings.NewReader("a"))
	if err != nil {
		panic(err)
	}
	return c
}

func mustDial() *Conn {
	c, err := Dial("b")
	if err != nil {
		panic(err)
	}
	return c
}

// Redial holds one connection on a goroutine that makes others, by both
// constructors, and hands them to the first.
func Redial() {
	old := mustConn()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		old.Adopt(mustConn())
		old.Adopt(mustDial())
	}()
	wg.Wait()
}
