// Package freshinit: an exported Init that the package's constructor calls
// on the object it has just allocated, before letting it go anywhere,
// touches an object no goroutine can reach yet in that call, although
// the goroutine a later Visit starts reads a field of every object of the
// same allocation site (gocolly/colly's NewCollector and Init, with a test
// that makes a second collector after the first one's fetch goroutine
// started). Silent; Init called on a published object (by an exported
// Reset, by a constructor that starts its goroutine first, by one whose
// Init starts it before the store, on an object reached through a fresh
// slice's element) is reported.
package freshinit

import "sync"

type Collector struct {
	Headers *map[string]string
	Async   bool
	wg      *sync.WaitGroup
}

func NewCollector() *Collector {
	c := &Collector{}
	c.Init()
	return c
}

// Init stores nil first, before anything lets c go.
func (c *Collector) Init() {
	c.Headers = nil
	c.wg = &sync.WaitGroup{}
}

func (c *Collector) Visit(u string) {
	c.wg.Add(1)
	if c.Async {
		go c.fetch(u)
		return
	}
	c.fetch(u)
}

func (c *Collector) fetch(u string) {
	defer c.wg.Done()
	if c.Headers != nil {
		for k := range *c.Headers {
			_ = k
		}
	}
}

func (c *Collector) Wait() { c.wg.Wait() }

// Pool is Collector with an exported Reset, which re-initializes a pool
// its caller may have started.
type Pool struct{ Headers *map[string]string }

func NewPool() *Pool {
	p := &Pool{}
	p.Init()
	return p
}

func (p *Pool) Init() { p.Headers = nil }

func (p *Pool) Reset() { p.Init() }

func (p *Pool) Start() { go p.work() }

// UsePool starts a pool, then resets it while its goroutine works.
func UsePool() {
	p := NewPool()
	p.Start()
	p.Reset()
}

func (p *Pool) work() {
	if p.Headers != nil {
		for k := range *p.Headers { // want `p\.Headers may be nil when dereferenced here: \(\*Pool\)\.Init stores nil to it concurrently`
			_ = k
		}
	}
}

// Server starts its goroutine before it initializes the server.
type Server struct{ Headers *map[string]string }

func NewServer() *Server {
	s := &Server{}
	go s.serve()
	s.Init()
	return s
}

func (s *Server) Init() { s.Headers = nil }

func (s *Server) serve() {
	if s.Headers != nil {
		for k := range *s.Headers { // want `s\.Headers may be nil when dereferenced here: \(\*Server\)\.Init stores nil to it concurrently`
			_ = k
		}
	}
}

// Crawler's Init starts the goroutine before its store.
type Crawler struct{ Headers *map[string]string }

func NewCrawler() *Crawler {
	c := &Crawler{}
	c.Init()
	return c
}

func (c *Crawler) Init() {
	go c.crawl()
	c.Headers = nil
}

func (c *Crawler) crawl() {
	if c.Headers != nil {
		for k := range *c.Headers { // want `c\.Headers may be nil when dereferenced here: \(\*Crawler\)\.Init stores nil to it concurrently`
			_ = k
		}
	}
}

// Agent is initialized again through the element of a fresh slice,
// which holds an agent its caller may have started: the slice is fresh,
// not what it holds.
type Agent struct{ Headers *map[string]string }

func NewAgent() *Agent {
	a := &Agent{}
	a.Init()
	return a
}

func (a *Agent) Init() { a.Headers = nil }

func Rewrap(a *Agent) {
	as := []*Agent{a}
	as[0].Init()
}

func (a *Agent) Run() { go a.loop() }

// UseAgent starts an agent, then rewraps it while its goroutine works.
func UseAgent() {
	a := NewAgent()
	a.Run()
	Rewrap(a)
}

func (a *Agent) loop() {
	if a.Headers != nil {
		for k := range *a.Headers { // want `a\.Headers may be nil when dereferenced here: \(\*Agent\)\.Init stores nil to it concurrently`
			_ = k
		}
	}
}
