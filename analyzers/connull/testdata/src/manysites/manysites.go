// Package manysites: an exported helper whose method reads and
// dereferences a field of its receiver, with more call sites than the
// views follow one by one (freecache's RingBuf.ReadAt has 11). Every call
// in the package holds c.mu, and so does Reset's nil store: silent. A
// test's call site, without the lock on a box of its own, is not on the
// stacks of the package's goroutines, so it does not take the lock away
// from them. The same helper with one call without the lock is reported.
package manysites

import "sync"

type T struct{ n int }

type Box struct{ p *T }

func (b *Box) Get() int { return b.p.n }

func (b *Box) Clear() { b.p = nil }

type Loose struct{ p *T }

func (b *Loose) Get() int {
	return b.p.n // want `b\.p may be nil when dereferenced here: \(\*Loose\)\.Clear stores nil to it concurrently`
}

func (b *Loose) Clear() { b.p = nil }

type Cache struct {
	mu    sync.Mutex
	box   Box
	loose Loose
}

func (c *Cache) Get1() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.box.Get()
}

func (c *Cache) Get2() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.box.Get()
}

func (c *Cache) Get3() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.box.Get()
}

func (c *Cache) Get4() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.box.Get()
}

func (c *Cache) Get5() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.box.Get()
}

func (c *Cache) Get6() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.box.Get()
}

func (c *Cache) Get7() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.box.Get()
}

func (c *Cache) Get8() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.box.Get()
}

func (c *Cache) Get9() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.box.Get()
}

func (c *Cache) Loose1() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.loose.Get()
}

func (c *Cache) Loose2() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.loose.Get()
}

func (c *Cache) Loose3() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.loose.Get()
}

func (c *Cache) Loose4() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.loose.Get()
}

func (c *Cache) Loose5() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.loose.Get()
}

func (c *Cache) Loose6() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.loose.Get()
}

func (c *Cache) Loose7() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.loose.Get()
}

func (c *Cache) Loose8() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.loose.Get()
}

func (c *Cache) Loose9() int {
	return c.loose.Get()
}

func (c *Cache) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.box.Clear()
	c.loose.Clear()
}

func Run(c *Cache) {
	go c.Reset()
	c.Get1()
	c.Loose1()
	c.Get2()
	c.Loose2()
	c.Get3()
	c.Loose3()
	c.Get4()
	c.Loose4()
	c.Get5()
	c.Loose5()
	c.Get6()
	c.Loose6()
	c.Get7()
	c.Loose7()
	c.Get8()
	c.Loose8()
	c.Get9()
	c.Loose9()
}
