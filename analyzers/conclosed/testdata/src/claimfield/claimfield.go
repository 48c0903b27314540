// Package claimfield: a reservation's channel, held in a field of the
// struct (or of the pointer to a struct) the map holds for it, is closed
// only by the goroutine that found the reservation in the map and deleted
// it under the client's mutex (centrifuge's subscribingCh,
// onSubscribeErrorGen): each channel has one closer. Silent: Client
// (struct values) and PtrClient (pointers). Reported beside them: a
// lookup and a delete in two sections of the mutex (Split), a close that
// runs where the delete may not have (Unguarded), a field whose channel
// someone else replaces (Replaced), a pointer stored in two entries
// (Shared), a struct copied whole over another (Copied), and a channel
// taken where the entry was found but deleted only where it matched
// (Mismatch). Client's rollback guards its delete with a value of its
// own, `owns := ok && r.gen == gen` (silent).
package claimfield

import (
	"net/http"
	"sync"
	"time"
)

type reservation struct {
	ch  chan struct{}
	gen uint64
}

type Client struct {
	mu       sync.Mutex
	gen      uint64
	channels map[string]reservation
}

func (c *Client) reserve(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	c.channels[name] = reservation{ch: make(chan struct{}), gen: c.gen}
}

// release takes the reservation out under the mutex, then closes.
func (c *Client) release(name string) {
	c.mu.Lock()
	r, ok := c.channels[name]
	var ch chan struct{}
	if ok {
		ch = r.ch
		delete(c.channels, name)
	}
	c.mu.Unlock()
	if ch != nil {
		close(ch)
	}
}

func (c *Client) setGen(name string, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r, ok := c.channels[name]; ok && r.gen < gen {
		delete(c.channels, name)
	}
}

// rollback takes the reservation out only when it is still its own
// generation's, the guard a value of its own (centrifuge's
// onSubscribeErrorGen).
func (c *Client) rollback(name string, gen uint64) {
	c.mu.Lock()
	r, ok := c.channels[name]
	owns := ok && r.gen == gen
	var ch chan struct{}
	if owns {
		ch = r.ch
		delete(c.channels, name)
	}
	c.mu.Unlock()
	if ch != nil {
		close(ch)
	}
}

func ServeClient(w http.ResponseWriter, r *http.Request) {
	c := &Client{channels: map[string]reservation{}}
	time.AfterFunc(time.Second, func() { c.release(r.URL.Path) })
	time.AfterFunc(time.Second, func() { c.rollback(r.URL.Path, 2) })
	c.reserve(r.URL.Path)
	c.setGen(r.URL.Path, 3)
	c.release(r.URL.Path)
}

type ptrReservation struct {
	ch  chan struct{}
	gen uint64
}

type PtrClient struct {
	mu       sync.Mutex
	channels map[string]*ptrReservation
}

func (c *PtrClient) reserve(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.channels[name] = &ptrReservation{ch: make(chan struct{})}
}

func (c *PtrClient) release(name string) {
	c.mu.Lock()
	r, ok := c.channels[name]
	var ch chan struct{}
	if ok {
		ch = r.ch
		delete(c.channels, name)
	}
	c.mu.Unlock()
	if ch != nil {
		close(ch)
	}
}

func ServePtr(w http.ResponseWriter, r *http.Request) {
	c := &PtrClient{channels: map[string]*ptrReservation{}}
	time.AfterFunc(time.Second, func() { c.release(r.URL.Path) })
	c.reserve(r.URL.Path)
	c.release(r.URL.Path)
}

// Split: the lookup and the delete in two sections of the mutex; two
// releasers may both find the reservation before either deletes it.

type splitReservation struct{ ch chan struct{} }

type Split struct {
	mu       sync.Mutex
	channels map[string]*splitReservation
}

func (c *Split) reserve(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.channels[name] = &splitReservation{ch: make(chan struct{})}
}

func (c *Split) release(name string) {
	c.mu.Lock()
	r, ok := c.channels[name]
	c.mu.Unlock()
	var ch chan struct{}
	c.mu.Lock()
	if ok {
		ch = r.ch
		delete(c.channels, name)
	}
	c.mu.Unlock()
	if ch != nil {
		close(ch) // want `close of closed channel: ch may also be closed by \(\*Split\).release`
	}
}

func ServeSplit(w http.ResponseWriter, r *http.Request) {
	c := &Split{channels: map[string]*splitReservation{}}
	time.AfterFunc(time.Second, func() { c.release(r.URL.Path) })
	c.reserve(r.URL.Path)
	c.release(r.URL.Path)
}

// Unguarded: the close runs wherever the lookup found the reservation,
// also where this goroutine left it in the map (another generation's),
// for the releaser of that generation to close again.

type unguardedReservation struct {
	ch  chan struct{}
	gen uint64
}

type Unguarded struct {
	mu       sync.Mutex
	channels map[string]*unguardedReservation
}

func (c *Unguarded) reserve(name string, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.channels[name] = &unguardedReservation{ch: make(chan struct{}), gen: gen}
}

func (c *Unguarded) release(name string, gen uint64) {
	c.mu.Lock()
	r, ok := c.channels[name]
	if ok && r.gen == gen {
		delete(c.channels, name)
	}
	c.mu.Unlock()
	if ok {
		close(r.ch) // want `close of closed channel: r.ch may also be closed by \(\*Unguarded\).release`
	}
}

func ServeUnguarded(w http.ResponseWriter, r *http.Request) {
	c := &Unguarded{channels: map[string]*unguardedReservation{}}
	time.AfterFunc(time.Second, func() { c.release(r.URL.Path, 1) })
	c.reserve(r.URL.Path, 2)
	c.release(r.URL.Path, 2)
}

// Replaced: another method puts a channel of its own, which it also
// hands to the next reservation, in a reservation's field.

type replacedReservation struct{ ch chan struct{} }

type Replaced struct {
	mu       sync.Mutex
	channels map[string]*replacedReservation
	spare    chan struct{}
}

func (c *Replaced) reserve(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.channels[name] = &replacedReservation{ch: make(chan struct{})}
}

func (c *Replaced) share(a, b string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r, ok := c.channels[a]; ok {
		r.ch = c.spare
	}
	if r, ok := c.channels[b]; ok {
		r.ch = c.spare
	}
}

func (c *Replaced) release(name string) {
	c.mu.Lock()
	r, ok := c.channels[name]
	var ch chan struct{}
	if ok {
		ch = r.ch
		delete(c.channels, name)
	}
	c.mu.Unlock()
	if ch != nil {
		close(ch) // want `close of closed channel: ch may also be closed by \(\*Replaced\).release`
	}
}

func ServeReplaced(w http.ResponseWriter, r *http.Request) {
	c := &Replaced{channels: map[string]*replacedReservation{}, spare: make(chan struct{})}
	time.AfterFunc(time.Second, func() { c.release(r.URL.Path) })
	c.reserve(r.URL.Path)
	c.reserve("b")
	c.share(r.URL.Path, "b")
	c.release("b")
}

// Shared: one pointer stored under two names; the releasers of the two
// names close its one channel.

type sharedReservation struct{ ch chan struct{} }

type Shared struct {
	mu       sync.Mutex
	channels map[string]*sharedReservation
}

func (c *Shared) reserve(a, b string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := &sharedReservation{ch: make(chan struct{})}
	c.channels[a] = r
	c.channels[b] = r
}

func (c *Shared) release(name string) {
	c.mu.Lock()
	r, ok := c.channels[name]
	var ch chan struct{}
	if ok {
		ch = r.ch
		delete(c.channels, name)
	}
	c.mu.Unlock()
	if ch != nil {
		close(ch) // want `close of closed channel: ch may also be closed by \(\*Shared\).release`
	}
}

func ServeShared(w http.ResponseWriter, r *http.Request) {
	c := &Shared{channels: map[string]*sharedReservation{}}
	time.AfterFunc(time.Second, func() { c.release(r.URL.Path) })
	c.reserve(r.URL.Path, "b")
	c.release("b")
}

// Copied: one reservation copied whole over another; the releasers of the
// two names close the one channel they now hold.

type copiedReservation struct{ ch chan struct{} }

type Copied struct {
	mu       sync.Mutex
	channels map[string]*copiedReservation
}

func (c *Copied) reserve(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.channels[name] = &copiedReservation{ch: make(chan struct{})}
}

func (c *Copied) alias(a, b string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ra, okA := c.channels[a]
	rb, okB := c.channels[b]
	if okA && okB {
		*rb = *ra
	}
}

func (c *Copied) release(name string) {
	c.mu.Lock()
	r, ok := c.channels[name]
	var ch chan struct{}
	if ok {
		ch = r.ch
		delete(c.channels, name)
	}
	c.mu.Unlock()
	if ch != nil {
		close(ch) // want `close of closed channel: ch may also be closed by \(\*Copied\).release`
	}
}

func ServeCopied(w http.ResponseWriter, r *http.Request) {
	c := &Copied{channels: map[string]*copiedReservation{}}
	time.AfterFunc(time.Second, func() { c.release(r.URL.Path) })
	c.reserve(r.URL.Path)
	c.reserve("b")
	c.alias(r.URL.Path, "b")
	c.release("b")
}

// Mismatch: the channel taken wherever the entry was found, the entry
// deleted only when its generation matches; a reservation of another
// generation is closed and left for the next one to close again.

type mismatchReservation struct {
	ch  chan struct{}
	gen uint64
}

type Mismatch struct {
	mu       sync.Mutex
	channels map[string]mismatchReservation
}

func (c *Mismatch) reserve(name string, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.channels[name] = mismatchReservation{ch: make(chan struct{}), gen: gen}
}

func (c *Mismatch) rollback(name string, gen uint64) {
	c.mu.Lock()
	r, ok := c.channels[name]
	owns := ok && r.gen == gen
	var ch chan struct{}
	if ok {
		ch = r.ch
	}
	if owns {
		delete(c.channels, name)
	}
	c.mu.Unlock()
	if ch != nil {
		close(ch) // want `close of closed channel: ch may also be closed by \(\*Mismatch\).rollback`
	}
}

func ServeMismatch(w http.ResponseWriter, r *http.Request) {
	c := &Mismatch{channels: map[string]mismatchReservation{}}
	c.reserve(r.URL.Path, 1)
	time.AfterFunc(time.Second, func() { c.rollback(r.URL.Path, 2) })
	c.rollback(r.URL.Path, 3)
}
