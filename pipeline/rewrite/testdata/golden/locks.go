package p

import "sync"

type Counter struct {
	mu sync.Mutex
	rw sync.RWMutex
	n  int
}

type Embed struct {
	sync.Mutex
	*sync.RWMutex
	vals map[string]int
}

var global int

func (c *Counter) Inc() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	global += c.n
}

func (c *Counter) Get() int {
	c.rw.RLock()
	defer c.rw.RUnlock()
	if c.mu.TryLock() {
		c.mu.Unlock()
	}
	return c.n
}

func (e *Embed) Put(k string, v int) {
	e.RWMutex.Lock()
	e.vals[k] = v
	e.RWMutex.Unlock()
	e.RLock()
	_ = e.vals[k]
	e.RUnlock()
	unlock := e.Mutex.Unlock
	e.Mutex.Lock()
	unlock()
}

func locker(l sync.Locker, wg *sync.WaitGroup, once *sync.Once, c *sync.Cond) {
	l.Lock()
	defer l.Unlock()
	var v Counter
	v.mu.Lock()
	v.mu.Unlock()
	wg.Add(1)
	go func() {
		defer wg.Done()
		once.Do(func() {})
	}()
	wg.Wait()
	c.L.Lock()
	c.Wait()
	c.Signal()
	c.Broadcast()
	c.L.Unlock()
}

func values(l sync.Locker, wg *sync.WaitGroup, c *sync.Cond, cleanup func(func())) {
	cleanup(wg.Done)
	cleanup(l.Unlock)
	wait := wg.Wait
	wait()
	cleanup(c.Broadcast)
}

// bufPool embeds a Pool: its Get and Put are the Pool's, found through the
// selection, not the name.
type bufPool struct{ sync.Pool }

type notPool struct{}

func (notPool) Get() any  { return nil }
func (notPool) Put(x any) {}

func pools(p *sync.Pool, bp *bufPool, np notPool) {
	b := p.Get().(*[]byte)
	defer p.Put(b)
	bp.Put(bp.Get())
	np.Put(np.Get())
	get := p.Get // a method value: left alone
	_ = get
}

// exits: an Unlock whose statement list returns (or panics) next, with no
// jump between (a loop's own break does not leave it), records where
// (trace.Site.ExitLine); one before a continue, a goto or the end of a
// loop's body does not.
func (c *Counter) exits(xs []int) int {
	c.mu.Lock()
	if c.n > 0 {
		c.mu.Unlock()
		return c.n
	}
	c.n = 1
	c.rw.RLock()
	if c.n > 1 {
		c.rw.RUnlock()
		for _, x := range xs {
			if x > 0 {
				break
			}
		}
		panic("two")
	}
	c.rw.RUnlock()
	for _, x := range xs {
		c.mu.Lock()
		if x > 0 {
			c.mu.Unlock()
			continue
		}
		if x < 0 {
			c.mu.Unlock()
			goto done
		}
		c.mu.Unlock()
	}
done:
	c.n = 2
	c.mu.Unlock()
	return 0
}
