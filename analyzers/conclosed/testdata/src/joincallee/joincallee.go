// Package joincallee: centrifuge's connectCmd cut down. One goroutine per
// subscription fills a local map under a local mutex; wg.Wait joins them
// all inside an if block, and a callee iterates the map after the Wait
// and after the block, where the goroutines either were joined or never
// started (Client: silent; reported before, the callee's range being
// judged at its own instruction rather than at the calls). Early calls the
// callee before the Wait, and Deferred defers it before the goroutines start
// and does not wait (both reported: a deferred call runs at the return).
package joincallee

import (
	"net/http"
	"sync"
)

type Client struct{ n int }

func (c *Client) subscribeCmd(ch string) int { return len(ch) + c.n }

func (c *Client) rollback(m map[string]int) {
	for ch, v := range m {
		_, _ = ch, v
	}
}

func (c *Client) connectCmd(subscriptions map[string]bool) {
	var subCtxMap map[string]int
	if len(subscriptions) > 0 {
		var subMu sync.Mutex
		subCtxMap = make(map[string]int, len(subscriptions))
		var failed bool
		var wg sync.WaitGroup
		wg.Add(len(subscriptions))
		for ch := range subscriptions {
			go func(ch string) {
				defer wg.Done()
				r := c.subscribeCmd(ch)
				subMu.Lock()
				subCtxMap[ch] = r
				if r < 0 {
					failed = true
				}
				subMu.Unlock()
			}(ch)
		}
		wg.Wait()
		if failed {
			c.rollback(subCtxMap)
			return
		}
	}
	if c.n > 0 {
		c.rollback(subCtxMap)
	}
}

func (Client) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c := &Client{}
	c.connectCmd(map[string]bool{r.URL.Path: true})
}

type Early struct{ n int }

func (c *Early) rollback(m map[string]int) {
	for ch, v := range m { // want `m is iterated here while func literal in \(\*Early\).connectCmd may write it concurrently`
		_, _ = ch, v
	}
}

// connectCmd rolls back before it waits for the goroutines.
func (c *Early) connectCmd(subscriptions map[string]bool) {
	var subCtxMap map[string]int
	if len(subscriptions) > 0 {
		var subMu sync.Mutex
		subCtxMap = make(map[string]int, len(subscriptions))
		var wg sync.WaitGroup
		wg.Add(len(subscriptions))
		for ch := range subscriptions {
			go func(ch string) {
				defer wg.Done()
				subMu.Lock()
				subCtxMap[ch] = len(ch)
				subMu.Unlock()
			}(ch)
		}
		if c.n > 0 {
			c.rollback(subCtxMap)
		}
		wg.Wait()
	}
}

func (Early) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c := &Early{}
	c.connectCmd(map[string]bool{r.URL.Path: true})
}

type Deferred struct{ n int }

func (c *Deferred) rollback(m map[string]int) {
	for ch, v := range m { // want `m is iterated here while func literal in \(\*Deferred\).connectCmd may write it concurrently`
		_, _ = ch, v
	}
}

// connectCmd defers the rollback before the goroutines start and returns
// without waiting for them.
func (c *Deferred) connectCmd(subscriptions map[string]bool) {
	subCtxMap := make(map[string]int, len(subscriptions))
	defer c.rollback(subCtxMap)
	var subMu sync.Mutex
	for ch := range subscriptions {
		go func(ch string) {
			subMu.Lock()
			subCtxMap[ch] = len(ch)
			subMu.Unlock()
		}(ch)
	}
}

func (Deferred) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c := &Deferred{}
	c.connectCmd(map[string]bool{r.URL.Path: true})
}
