// Package tupleclone: a constructor reached through helpers that return
// (*Assoc, error), each passing on what the one below returned: every
// call of the outermost helper makes an association of its own, and the
// read loops of two associations close two channels (pion/sctp's
// createTestAssociation -> createServerAssociation ->
// createAssociationFromConfig -> createAssociationFromConfigWithTsn,
// whose client and server read loops each close their association's
// channels once). The objects were told apart by the innermost call site
// only, one level deep, so that all associations were one. Silent; a
// connection made through the same chain whose read loop is started twice
// on one connection is reported, and so is a link made through such a
// chain, kept in a package variable and closed through both names.
package tupleclone

import "errors"

type Assoc struct {
	closed chan struct{}
}

var errBad = errors.New("bad config")

func create(size int) *Assoc {
	return &Assoc{closed: make(chan struct{}, size)}
}

func createFromConfig(cfg int) (*Assoc, error) {
	if cfg < 0 {
		return nil, errBad
	}
	return create(cfg), nil
}

func createServer(cfg int) (*Assoc, error) {
	return createFromConfig(cfg)
}

func (a *Assoc) initServer() { go a.readLoop() }

func (a *Assoc) initClient() { go a.readLoop() }

func (a *Assoc) readLoop() {
	defer close(a.closed)
}

// Pair makes two associations, a client's and a server's.
func Pair() error {
	a0, err := createServer(1)
	if err != nil {
		return err
	}
	a1, err := createServer(2)
	if err != nil {
		return err
	}
	a0.initClient()
	a1.initServer()
	return nil
}

type Conn struct {
	closed chan struct{}
}

func newConn(size int) *Conn {
	return &Conn{closed: make(chan struct{}, size)}
}

func connFromConfig(cfg int) (*Conn, error) {
	if cfg < 0 {
		return nil, errBad
	}
	return newConn(cfg), nil
}

func dial(cfg int) (*Conn, error) {
	return connFromConfig(cfg)
}

func (c *Conn) initServer() { go c.readLoop() }

func (c *Conn) initClient() { go c.readLoop() }

func (c *Conn) readLoop() {
	defer close(c.closed) // want `close of closed channel: Conn.closed may also be closed by \(\*Conn\).readLoop`
}

// Twice starts both read loops on one connection: reported.
func Twice() error {
	c0, err := dial(1)
	if err != nil {
		return err
	}
	c1, err := dial(2)
	if err != nil {
		return err
	}
	c0.initClient()
	c1.initServer()
	c0.initServer()
	return nil
}

type Link struct {
	closed chan struct{}
}

func newLink(size int) (*Link, error) {
	if size < 0 {
		return nil, errBad
	}
	return &Link{closed: make(chan struct{}, size)}, nil
}

func openLink(size int) (*Link, error) {
	return newLink(size)
}

var active *Link

func (l *Link) readLoop() {
	close(l.closed) // want `close of closed channel: l.closed may also be closed by \(\*Link\).readLoop`
}

// Keep closes the link it made and the active one: the same link.
func Keep() error {
	l, err := openLink(1)
	if err != nil {
		return err
	}
	active = l
	go l.readLoop()
	go active.readLoop()
	return nil
}
