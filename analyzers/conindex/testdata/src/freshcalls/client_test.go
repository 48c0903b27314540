package freshcalls

import (
	"errors"
	"sync"
	"testing"
)

// client is a sender; each test has its own.
type client struct {
	files []string
	msgs  chan []string
}

func newClient() *client { return &client{msgs: make(chan []string, 1)} }

// dial is a constructor that fails without a name.
func dial(name string) (*client, error) {
	if name == "" {
		return nil, errors.New("no name")
	}
	return &client{msgs: make(chan []string, 1)}, nil
}

// send fills and reads the files before it starts the goroutines that
// may replace them.
func (c *client) send(files []string) int {
	c.files = files
	n := 0
	for i := range c.files {
		n += len(c.files[i])
	}
	done := make(chan int, 2)
	go c.route(done)
	go func() { done <- c.transfer() }()
	return n + <-done
}

func (c *client) route(done chan<- int) { done <- c.transfer() }

func (c *client) transfer() int {
	select {
	case files := <-c.msgs:
		c.files = files
	default:
	}
	return len(c.files)
}

// relayed replaces its files five calls below the goroutine's entry,
// which hands its receiver to a closure too.
type relayed struct {
	files []string
	msgs  chan []string
}

func newRelayed() *relayed { return &relayed{msgs: make(chan []string, 1)} }

func (c *relayed) send(files []string) int {
	c.files = files
	n := 0
	for i := range c.files {
		n += len(c.files[i])
	}
	go c.relay()
	return n
}

func (c *relayed) relay() {
	retry := func() bool { return len(c.msgs) > 0 }
	for retry() {
		c.loop()
	}
}

func (c *relayed) loop()     { c.step() }
func (c *relayed) step()     { c.handle() }
func (c *relayed) handle()   { c.dispatch() }
func (c *relayed) dispatch() { c.apply() }

func (c *relayed) apply() {
	select {
	case files := <-c.msgs:
		c.files = files
	default:
	}
}

// shared is one client for every test that sends on it.
type shared struct {
	files []string
	msgs  chan []string
}

var theShared = &shared{msgs: make(chan []string, 1)}

func (s *shared) send() int {
	n := 0
	for i := range s.files {
		n += len(s.files[i]) // want `s.files\[i\] may be out of range: s.files is replaced concurrently by \(\*shared\).transfer`
	}
	go s.transfer()
	return n
}

func (s *shared) transfer() int {
	select {
	case files := <-s.msgs:
		s.files = files
	default:
	}
	return len(s.files)
}

// cached is handed out by a constructor that keeps the first one.
type cached struct {
	files []string
	msgs  chan []string
}

var theCached *cached

func getCached() *cached {
	if theCached == nil {
		theCached = &cached{msgs: make(chan []string, 1)}
	}
	return theCached
}

func (c *cached) send() int {
	n := 0
	for i := range c.files {
		n += len(c.files[i]) // want `c.files\[i\] may be out of range: c.files is replaced concurrently by \(\*cached\).transfer`
	}
	go c.transfer()
	return n
}

func (c *cached) transfer() int {
	select {
	case files := <-c.msgs:
		c.files = files
	default:
	}
	return len(c.files)
}

// twice is one client sent on twice.
type twice struct {
	files []string
	msgs  chan []string
}

func (c *twice) send() int {
	n := 0
	for i := range c.files {
		n += len(c.files[i]) // want `c.files\[i\] may be out of range: c.files is replaced concurrently by \(\*twice\).transfer`
	}
	go c.transfer()
	return n
}

func (c *twice) transfer() int {
	select {
	case files := <-c.msgs:
		c.files = files
	default:
	}
	return len(c.files)
}

// looped is one client sent on by a goroutine of each turn.
type looped struct {
	files []string
	msgs  chan []string
}

func (c *looped) send() int {
	n := 0
	for i := range c.files {
		n += len(c.files[i]) // want `c.files\[i\] may be out of range: c.files is replaced concurrently by \(\*looped\).transfer`
	}
	go c.transfer()
	return n
}

func (c *looped) transfer() int {
	select {
	case files := <-c.msgs:
		c.files = files
	default:
	}
	return len(c.files)
}

// late fills its files after the go statement.
type late struct {
	files []string
	msgs  chan []string
}

func newLate() *late { return &late{msgs: make(chan []string, 1)} }

func (c *late) send(files []string) int {
	go c.transfer()
	c.files = files
	n := 0
	for i := range c.files {
		n += len(c.files[i]) // want `c.files\[i\] may be out of range: c.files is replaced concurrently by \(\*late\).transfer`
	}
	return n
}

func (c *late) transfer() int {
	select {
	case files := <-c.msgs:
		c.files = files
	default:
	}
	return len(c.files)
}

// agent's steps are filled by the test before it starts the agent.
type agent struct {
	mu    sync.Mutex
	steps []int
	reqs  int
}

func (a *agent) start() { go a.serve() }

func (a *agent) serve() {
	for range 10 {
		a.mu.Lock()
		idx := a.reqs
		a.reqs++
		s := 0
		if idx < len(a.steps) {
			s = a.steps[idx]
		}
		a.mu.Unlock()
		if s < 0 {
			return
		}
	}
}

func TestPair(t *testing.T) {
	sender := newClient()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); sender.send([]string{"a", "b"}) }()
	wg.Wait()
}

func TestSecond(t *testing.T) {
	sender := newClient()
	done := make(chan int, 1)
	go func() { done <- sender.send([]string{"x"}) }()
	<-done
}

func TestDial(t *testing.T) {
	c, err := dial("d")
	if err != nil {
		t.Fatal(err)
	}
	c.send([]string{"y"})
}

func TestRelayedOne(t *testing.T) {
	c := newRelayed()
	go c.send([]string{"x"})
}

func TestRelayedTwo(t *testing.T) { newRelayed().send(nil) }

func TestSharedOne(t *testing.T) {
	theShared.files = []string{"x"}
	go theShared.send()
}

func TestSharedTwo(t *testing.T) { theShared.send() }

func TestCachedOne(t *testing.T) {
	c := getCached()
	c.files = []string{"x"}
	go c.send()
}

func TestCachedTwo(t *testing.T) { getCached().send() }

func TestTwice(t *testing.T) {
	c := &twice{files: []string{"x"}, msgs: make(chan []string, 1)}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); c.send() }()
	go func() { defer wg.Done(); c.send() }()
	wg.Wait()
}

func TestLooped(t *testing.T) {
	c := &looped{files: []string{"x"}, msgs: make(chan []string, 1)}
	for range 2 {
		c.send()
	}
}

func TestLateOne(t *testing.T) {
	c := newLate()
	done := make(chan int, 1)
	go func() { done <- c.send([]string{"x"}) }()
	<-done
}

func TestLateTwo(t *testing.T) { newLate().send(nil) }

func TestAgentOne(t *testing.T) {
	a := &agent{}
	a.steps = build(a, 1)
	a.start()
}

func TestAgentTwo(t *testing.T) {
	a := &agent{}
	a.steps = build(a, 0)
	a.start()
}

var built []*agent

// build hands the agent on: its steps are no longer the test's alone.
func build(a *agent, n int) []int {
	built = append(built, a)
	return make([]int, n)
}
