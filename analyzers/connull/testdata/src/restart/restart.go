// Package restart: a connection whose reader goroutine ends on a read
// error, and whose reconnect goroutine waits for the old reader before it
// starts a new one (nats.go's readLoop and doReconnect). After a failed
// flush the loop waits again only behind a flag, which the analysis does
// not follow, so the readers' start one at a time is an assumption: the
// report on Conn's parse state is of low confidence, shown only under
// -all, with the assumption (the test runs with -all). Session restarts
// its reader from a goroutine that does not wait for the old one: reported
// at the default confidence.
package restart

import "sync"

type parseState struct{ state int }

// Conn is a connection with one reader at a time.
type Conn struct {
	mu sync.Mutex
	wg sync.WaitGroup
	ps *parseState
}

// Connect starts the first reader.
func Connect() *Conn {
	nc := &Conn{}
	nc.start()
	return nc
}

func (nc *Conn) start() {
	nc.wg.Add(1)
	go nc.readLoop()
}

func (nc *Conn) readLoop() {
	defer nc.wg.Done()
	nc.mu.Lock()
	if nc.ps == nil {
		nc.ps = &parseState{}
	}
	nc.mu.Unlock()
	for nc.read() {
		nc.parse()
	}
	nc.mu.Lock()
	nc.ps = nil
	nc.mu.Unlock()
	go nc.reconnect()
}

func (nc *Conn) read() bool { return false }

func (nc *Conn) parse() {
	nc.ps.state++ // want `nc.ps may be nil when dereferenced here.*\(low confidence: it assumes that goroutines running \(\*Conn\).readLoop can start again before the one before has ended, although \(\*Conn\).reconnect waits for it before starting another\)`
}

func (nc *Conn) flush() bool { return true }

func (nc *Conn) reconnect() {
	nc.wg.Wait()
	wait := false
	for i := 0; i < 3; i++ {
		if wait {
			nc.wg.Wait()
			wait = false
		}
		nc.start()
		if !nc.flush() {
			wait = true
			continue
		}
		return
	}
}

// Session is a connection whose reconnect does not wait for the old
// reader.
type Session struct {
	mu sync.Mutex
	wg sync.WaitGroup
	ps *parseState
}

// Open starts the first reader.
func Open() *Session {
	s := &Session{}
	s.start()
	return s
}

func (s *Session) start() {
	s.wg.Add(1)
	go s.readLoop()
}

func (s *Session) readLoop() {
	defer s.wg.Done()
	s.mu.Lock()
	if s.ps == nil {
		s.ps = &parseState{}
	}
	s.mu.Unlock()
	for s.read() {
		s.parse()
	}
	s.mu.Lock()
	s.ps = nil
	s.mu.Unlock()
	go s.reconnect()
}

func (s *Session) read() bool { return false }

func (s *Session) parse() {
	s.ps.state++ // want `s.ps may be nil when dereferenced here: \(\*Session\).readLoop stores nil to it concurrently$`
}

func (s *Session) reconnect() {
	for i := 0; i < 3; i++ {
		s.start()
	}
}
