// Package claimchan: channels kept as a map's values. sharedloc gives
// them the map's contents as their location, so two closes of channels
// found in one map are paired: a registry whose Cancel closes what it
// finds without deleting it closes one channel twice (Registry, Direct,
// reported). A close by whoever found the entry and deleted it under the
// mutex is one closer's when every channel the map holds was made for its
// entry (Claims, silent: held-out 30's claim-chanval); reported beside
// it: a delete in another section of the mutex than the lookup (Split), a
// channel stored in two entries (Twice) and a channel the map gets from a
// caller (Given). A send on a channel found in the map with the mutex held
// from the lookup through the send cannot meet a claimed close (Hub).
package claimchan

import "sync"

type Registry struct {
	mu   sync.Mutex
	done map[string]chan struct{}
}

func (r *Registry) Add(k string) <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	ch := make(chan struct{})
	r.done[k] = ch
	return ch
}

// Cancel forgets to delete: two Cancels of one key close its channel
// twice.
func (r *Registry) Cancel(k string) {
	r.mu.Lock()
	ch, ok := r.done[k]
	r.mu.Unlock()
	if ok {
		close(ch) // want `close of closed channel: ch may also be closed by \(\*Registry\)\.Cancel`
	}
}

func (r *Registry) Run(k string) {
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.Add(k)
			r.Cancel(k)
		}()
	}
	wg.Wait()
}

type Direct struct {
	done map[string]chan struct{}
}

func (d *Direct) Cancel(k string) {
	close(d.done[k]) // want `close of closed channel: d\.done\[k\] may also be closed by \(\*Direct\)\.Cancel`
}

func (d *Direct) Run(k string) {
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d.Cancel(k)
		}()
	}
	wg.Wait()
}

type Claims struct {
	mu   sync.Mutex
	done map[string]chan struct{}
}

func (c *Claims) Add(k string) <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan struct{})
	c.done[k] = ch
	return ch
}

// Cancel closes only what it took out of the map under the mutex.
func (c *Claims) Cancel(k string) {
	c.mu.Lock()
	ch, ok := c.done[k]
	if ok {
		delete(c.done, k)
	}
	c.mu.Unlock()
	if ok {
		close(ch)
	}
}

func (x *Claims) Run(k string) {
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x.Add(k)
			x.Cancel(k)
		}()
	}
	wg.Wait()
}

type Split struct {
	mu   sync.Mutex
	done map[string]chan struct{}
}

func (s *Split) Add(k string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.done[k] = make(chan struct{})
}

// Cancel looks up and deletes in two sections: two Cancels may both find
// the channel.
func (s *Split) Cancel(k string) {
	s.mu.Lock()
	ch, ok := s.done[k]
	s.mu.Unlock()
	if ok {
		s.mu.Lock()
		delete(s.done, k)
		s.mu.Unlock()
		close(ch) // want `close of closed channel: ch may also be closed by \(\*Split\)\.Cancel`
	}
}

func (x *Split) Run(k string) {
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x.Add(k)
			x.Cancel(k)
		}()
	}
	wg.Wait()
}

type Twice struct {
	mu   sync.Mutex
	done map[string]chan struct{}
}

// Add stores one channel under two keys: each key's claim closes it.
func (t *Twice) Add(k string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	ch := make(chan struct{})
	t.done[k] = ch
	t.done[k+"/alias"] = ch
}

func (t *Twice) Cancel(k string) {
	t.mu.Lock()
	ch, ok := t.done[k]
	if ok {
		delete(t.done, k)
	}
	t.mu.Unlock()
	if ok {
		close(ch) // want `close of closed channel: ch may also be closed by \(\*Twice\)\.Cancel`
	}
}

func (x *Twice) Run(k string) {
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x.Add(k)
			x.Cancel(k)
		}()
	}
	wg.Wait()
}

type Given struct {
	mu   sync.Mutex
	done map[string]chan struct{}
}

// Add stores the caller's channel: a caller may hand one channel for two
// keys.
func (g *Given) Add(k string, ch chan struct{}) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.done[k] = ch
}

func (g *Given) Cancel(k string) {
	g.mu.Lock()
	ch, ok := g.done[k]
	if ok {
		delete(g.done, k)
	}
	g.mu.Unlock()
	if ok {
		close(ch) // want `close of closed channel: ch may also be closed by \(\*Given\)\.Cancel`
	}
}

func (g *Given) Run(k string) {
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ch := make(chan struct{})
			g.Add(k, ch)
			g.Add(k+"/alias", ch)
			g.Cancel(k)
		}()
	}
	wg.Wait()
}

// Hub's Publish sends, with the mutex held, on a channel it found in the
// map under that mutex; Unsubscribe closes only what it took out of the
// map: no send finds a closed channel (silent). Late sends after
// unlocking what it found (reported).
type Hub struct {
	mu   sync.Mutex
	subs map[string]chan string
}

func (h *Hub) Subscribe(k string) <-chan string {
	h.mu.Lock()
	defer h.mu.Unlock()
	ch := make(chan string, 8)
	h.subs[k] = ch
	return ch
}

func (h *Hub) Publish(k, msg string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if ch, ok := h.subs[k]; ok {
		select {
		case ch <- msg:
		default:
		}
	}
}

func (h *Hub) Late(k, msg string) {
	h.mu.Lock()
	ch, ok := h.subs[k]
	h.mu.Unlock()
	if ok {
		ch <- msg // want `send on closed channel: ch may be closed concurrently by \(\*Hub\)\.Unsubscribe`
	}
}

func (h *Hub) Unsubscribe(k string) {
	h.mu.Lock()
	ch, ok := h.subs[k]
	if ok {
		delete(h.subs, k)
	}
	h.mu.Unlock()
	if ok {
		close(ch)
	}
}

func (h *Hub) Run(k string) {
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.Subscribe(k)
			h.Publish(k, "x")
			h.Late(k, "y")
			h.Unsubscribe(k)
		}()
	}
	wg.Wait()
}
