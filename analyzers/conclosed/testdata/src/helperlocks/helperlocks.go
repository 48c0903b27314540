// Package helperlocks: small helpers shared by callers that hold
// different locks (rabbitmq/amqp091-go's notifyAll and cloneMap). Each
// caller of notifyAll hands it its own listeners and sends to them under
// the lock it closes them under: each call site pairs with the closer of
// its own listeners only, with the lock held there. cloneMap copies a map
// of the Topology whose Clone is called with the lock every writer of the
// map holds. Silent. Reported: the caller that takes a snapshot of its
// listeners under its lock and sends to them after releasing it
// (Conn.reader), and a copy made without the lock (Loose.peek).
package helperlocks

import "sync"

func notifyAll[T any](listeners []chan T, v T) {
	for _, c := range listeners {
		c <- v // want `send on closed channel: c may be closed concurrently by \(\*Conn\)\.shutdown`
	}
}

func cloneMap[K comparable, V any](m map[K]V) map[K]V {
	out := make(map[K]V, len(m))
	for k, v := range m { // want `m is iterated here while \(\*Loose\)\.put may write it concurrently`
		out[k] = v
	}
	return out
}

type confirms struct {
	m         sync.Mutex
	listeners []chan int
}

func (c *confirms) listen(l chan int) {
	c.m.Lock()
	defer c.m.Unlock()
	c.listeners = append(c.listeners, l)
}

func (c *confirms) one(v int) {
	c.m.Lock()
	defer c.m.Unlock()
	c.confirm(v)
}

func (c *confirms) confirm(v int) { notifyAll(c.listeners, v) }

func (c *confirms) close() {
	c.m.Lock()
	defer c.m.Unlock()
	for _, l := range c.listeners {
		close(l)
	}
	c.listeners = nil
}

type Channel struct {
	notifyM  sync.RWMutex
	flows    []chan bool
	confirms *confirms
}

func (ch *Channel) notifyFlow(c chan bool) {
	ch.notifyM.Lock()
	defer ch.notifyM.Unlock()
	ch.flows = append(ch.flows, c)
}

func (ch *Channel) dispatch() {
	ch.notifyM.RLock()
	notifyAll(ch.flows, true)
	ch.notifyM.RUnlock()
	ch.confirms.one(1)
}

func (ch *Channel) shutdown() {
	ch.notifyM.Lock()
	defer ch.notifyM.Unlock()
	for _, c := range ch.flows {
		close(c)
	}
	ch.flows = nil
	ch.confirms.close()
}

// Conn takes a snapshot of its listeners under its lock and sends to
// them after releasing it: shutdown may close one in between.
type Conn struct {
	m      sync.Mutex
	blocks []chan string
	ch     *Channel
	errs   chan error
}

func Dial() *Conn {
	ch := &Channel{confirms: &confirms{}}
	ch.notifyFlow(make(chan bool))
	ch.confirms.listen(make(chan int))
	c := &Conn{blocks: []chan string{make(chan string)}, ch: ch, errs: make(chan error)}
	go c.reader()
	go c.watch()
	return c
}

func (c *Conn) reader() {
	for {
		c.ch.dispatch()
		c.m.Lock()
		blocks := c.blocks
		c.m.Unlock()
		notifyAll(blocks, "blocked")
	}
}

func (c *Conn) watch() {
	<-c.errs
	c.shutdown()
}

func (c *Conn) shutdown() {
	c.m.Lock()
	defer c.m.Unlock()
	for _, b := range c.blocks {
		close(b)
	}
	c.blocks = nil
	c.ch.shutdown()
}

type Topology struct {
	Exchanges map[string]int
	Queues    map[string]bool
}

func (t *Topology) Clone() *Topology {
	return &Topology{Exchanges: cloneMap(t.Exchanges), Queues: cloneMap(t.Queues)}
}

type Recorder struct {
	mu   sync.Mutex
	topo map[int]*Topology
	out  chan *Topology
}

func NewRecorder() *Recorder {
	r := &Recorder{topo: map[int]*Topology{1: {Exchanges: map[string]int{}, Queues: map[string]bool{}}}, out: make(chan *Topology)}
	go r.loop()
	go r.watch()
	return r
}

func (r *Recorder) loop() {
	for i := 0; ; i++ {
		r.record(1, "x", i)
	}
}

func (r *Recorder) record(id int, name string, v int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.topo[id].Exchanges[name] = v
	r.topo[id].Queues[name] = true
}

func (r *Recorder) snapshot(id int) *Topology {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.topo[id].Clone()
}

func (r *Recorder) watch() {
	for {
		r.out <- r.snapshot(1)
	}
}

// Loose copies its map without the lock its writer holds.
type Loose struct {
	mu  sync.Mutex
	m   map[string]int
	out chan map[string]int
}

func NewLoose() *Loose {
	l := &Loose{m: map[string]int{}, out: make(chan map[string]int)}
	go l.loop()
	go l.peek()
	return l
}

func (l *Loose) loop() {
	for i := 0; ; i++ {
		l.put("x", i)
	}
}

func (l *Loose) put(k string, v int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.m[k] = v
}

func (l *Loose) peek() {
	for {
		l.out <- cloneMap(l.m)
	}
}
