// Package lockedjoin: goroutines that a function starts and waits for
// while it holds a lock run wholly inside that critical section
// (Shopify/toxiproxy's chainAddToxic and chainRemoveToxic start a
// goroutine per link and wait for them, each under the collection's
// lock). Chain's Add and Remove each edit a link's stages on such
// goroutines: silent. Reported beside it: an Add that unlocks before its
// Wait, a starter that shortens the stages itself while its goroutine
// indexes them, and two goroutines of one section.
package lockedjoin

import "sync"

type link struct{ stages []int }

func (l *link) add() {
	i := len(l.stages)
	l.stages = append(l.stages, 0)
	l.stages[i-1]++
}

func (l *link) remove(i int) {
	l.stages = append(l.stages[:i], l.stages[i+1:]...)
}

type Chain struct {
	mu    sync.Mutex
	links []*link
}

// Connect adds a link.
func (c *Chain) Connect() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.links = append(c.links, &link{stages: make([]int, 1)})
}

func (c *Chain) Add() {
	c.mu.Lock()
	defer c.mu.Unlock()
	var wg sync.WaitGroup
	for _, l := range c.links {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.add()
		}()
	}
	wg.Wait()
}

func (c *Chain) Remove(i int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var wg sync.WaitGroup
	for _, l := range c.links {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.remove(i)
		}()
	}
	wg.Wait()
}

// Early unlocks before it waits: its goroutines may run on past the
// section, while Remove's run.
type Early struct {
	mu    sync.Mutex
	links []*link
}

// Connect adds a link.
func (c *Early) Connect() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.links = append(c.links, &link{stages: make([]int, 1)})
}

func (c *Early) Add() {
	c.mu.Lock()
	var wg sync.WaitGroup
	for _, l := range c.links {
		wg.Add(1)
		go func() {
			defer wg.Done()
			i := len(l.stages)
			l.stages[i-1]++ // want `may be out of range: l\.stages is replaced concurrently by func literal in \(\*Early\)\.Remove`
		}()
	}
	c.mu.Unlock()
	wg.Wait()
}

func (c *Early) Remove(i int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var wg sync.WaitGroup
	for _, l := range c.links {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.stages = append(l.stages[:i], l.stages[i+1:]...)
		}()
	}
	wg.Wait()
}

// Self shortens the stages itself while its goroutine indexes them.
type Self struct {
	mu     sync.Mutex
	stages []int
}

func (c *Self) Add() {
	c.mu.Lock()
	defer c.mu.Unlock()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		i := len(c.stages)
		c.stages[i-1]++ // want `may be out of range: c\.stages is replaced concurrently by \(\*Self\)\.Add`
	}()
	c.stages = c.stages[:0]
	wg.Wait()
}

// Twins starts two goroutines in one section: they run at once.
type Twins struct {
	mu     sync.Mutex
	stages []int
}

func (c *Twins) Run() {
	c.mu.Lock()
	defer c.mu.Unlock()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		i := len(c.stages)
		c.stages[i-1]++ // want `may be out of range: c\.stages is replaced concurrently by func literal in \(\*Twins\)\.Run`
	}()
	go func() {
		defer wg.Done()
		c.stages = c.stages[:0]
	}()
	wg.Wait()
}
