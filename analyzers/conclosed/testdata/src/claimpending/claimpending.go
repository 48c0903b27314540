// Package claimpending: a pending operation's state, a pointer to a struct
// made for it with a channel its waiters wait on, kept in a map under the
// client's mutex (centrifuge's mapSubscribing). The state is also handed
// back to its starter, who later cancels it by identity. Its channel is
// closed by one goroutine only: one that found the entry and deleted it
// with the mutex held throughout, closing after the delete or before it in
// the same section, or one that took the whole map out of its field and put
// nil there. Silent: Client. Reported beside it: a close in the section
// on a path that may leave the entry in place (Peek), a delete in a later
// section than the close (Relock), a map read whole but left in its field
// (Kept) and one state stored under several names (Looped).
package claimpending

import (
	"net/http"
	"sync"
	"time"
)

type state struct {
	ch  chan struct{}
	gen uint64
}

type Client struct {
	mu      sync.Mutex
	gen     uint64
	pending map[string]*state
}

// begin installs a state made for the entry and returns it: the starter
// matches it later by identity.
func (c *Client) begin(name string) *state {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pending == nil {
		c.pending = make(map[string]*state)
	}
	c.gen++
	st := &state{ch: make(chan struct{}), gen: c.gen}
	c.pending[name] = st
	return st
}

// cancel removes the entry when it is still the expected one, and closes
// after the section.
func (c *Client) cancel(name string, expected *state) {
	c.mu.Lock()
	st, ok := c.pending[name]
	if !ok || (expected != nil && st != expected) {
		c.mu.Unlock()
		return
	}
	delete(c.pending, name)
	c.mu.Unlock()
	close(st.ch)
}

// expire closes in the section, then deletes in it.
func (c *Client) expire(name string, want *state) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st, ok := c.pending[name]; ok && st == want {
		if st.ch != nil {
			close(st.ch)
		}
		delete(c.pending, name)
	}
}

// cancelAll takes the whole map and puts nil in its place.
func (c *Client) cancelAll() {
	c.mu.Lock()
	states := c.pending
	c.pending = nil
	c.mu.Unlock()
	for _, st := range states {
		close(st.ch)
	}
}

func ServeClient(w http.ResponseWriter, r *http.Request) {
	c := &Client{}
	st := c.begin(r.URL.Path)
	time.AfterFunc(time.Second, func() { c.cancel(r.URL.Path, st) })
	time.AfterFunc(time.Second, func() { c.expire(r.URL.Path, st) })
	time.AfterFunc(time.Second, c.cancelAll)
	c.cancel(r.URL.Path, nil)
	c.cancelAll()
}

// Peek: the close in the section runs where the delete may not follow;
// the entry stays, closed, for cancel to find.

type Peek struct {
	mu      sync.Mutex
	pending map[string]*state
}

func (c *Peek) begin(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pending[name] = &state{ch: make(chan struct{})}
}

func (c *Peek) expire(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st, ok := c.pending[name]; ok {
		close(st.ch) // want `close of closed channel: st.ch may also be closed by \(\*Peek\).cancel`
		if st.gen > 3 {
			delete(c.pending, name)
		}
	}
}

func (c *Peek) cancel(name string) {
	c.mu.Lock()
	st, ok := c.pending[name]
	if !ok {
		c.mu.Unlock()
		return
	}
	delete(c.pending, name)
	c.mu.Unlock()
	close(st.ch)
}

func ServePeek(w http.ResponseWriter, r *http.Request) {
	c := &Peek{pending: map[string]*state{}}
	c.begin(r.URL.Path)
	time.AfterFunc(time.Second, func() { c.expire(r.URL.Path) })
	c.cancel(r.URL.Path)
}

// Relock: the close in one section, the delete in the next.

type Relock struct {
	mu      sync.Mutex
	pending map[string]*state
}

func (c *Relock) begin(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pending[name] = &state{ch: make(chan struct{})}
}

func (c *Relock) expire(name string) {
	c.mu.Lock()
	st, ok := c.pending[name]
	if ok {
		close(st.ch) // want `close of closed channel: st.ch may also be closed by \(\*Relock\).cancel`
	}
	c.mu.Unlock()
	c.mu.Lock()
	if ok {
		delete(c.pending, name)
	}
	c.mu.Unlock()
}

func (c *Relock) cancel(name string) {
	c.mu.Lock()
	st, ok := c.pending[name]
	if !ok {
		c.mu.Unlock()
		return
	}
	delete(c.pending, name)
	c.mu.Unlock()
	close(st.ch)
}

func ServeRelock(w http.ResponseWriter, r *http.Request) {
	c := &Relock{pending: map[string]*state{}}
	c.begin(r.URL.Path)
	time.AfterFunc(time.Second, func() { c.expire(r.URL.Path) })
	c.cancel(r.URL.Path)
}

// Kept: the map read whole under the mutex but left in its field; two
// goroutines range over one map.

type Kept struct {
	mu      sync.Mutex
	pending map[string]*state
}

func (c *Kept) begin(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pending[name] = &state{ch: make(chan struct{})}
}

func (c *Kept) cancelAll() {
	c.mu.Lock()
	states := c.pending
	c.mu.Unlock()
	for _, st := range states {
		close(st.ch) // want `close of closed channel: st.ch may also be closed by \(\*Kept\).cancelAll`
	}
}

func ServeKept(w http.ResponseWriter, r *http.Request) {
	c := &Kept{pending: map[string]*state{}}
	c.begin(r.URL.Path)
	time.AfterFunc(time.Second, c.cancelAll)
	c.cancelAll()
}

// Looped: one state stored under every name; the cancels of two names
// close its one channel.

type Looped struct {
	mu      sync.Mutex
	pending map[string]*state
}

func (c *Looped) begin(names []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := &state{ch: make(chan struct{})}
	for _, n := range names {
		c.pending[n] = st
	}
}

func (c *Looped) cancel(name string) {
	c.mu.Lock()
	st, ok := c.pending[name]
	if !ok {
		c.mu.Unlock()
		return
	}
	delete(c.pending, name)
	c.mu.Unlock()
	close(st.ch) // want `close of closed channel: st.ch may also be closed by \(\*Looped\).cancel`
}

func ServeLooped(w http.ResponseWriter, r *http.Request) {
	c := &Looped{pending: map[string]*state{}}
	c.begin([]string{r.URL.Path, "b"})
	time.AfterFunc(time.Second, func() { c.cancel(r.URL.Path) })
	c.cancel("b")
}
