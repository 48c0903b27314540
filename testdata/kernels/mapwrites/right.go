package mapwrites

import "sync"

// The RIGHT version of the same code, which precog vet must not report:
// the negative cache is written under mu.Lock and read under mu.RLock.

// negCache remembers failed lookups.
type negCache struct {
	mu     sync.RWMutex
	failed map[string]error
}

// lookup returns the remembered error of host, or does the lookup and
// remembers its error.
func (c *negCache) lookup(host string, do func(string) error) error {
	c.mu.RLock()
	err := c.failed[host]
	c.mu.RUnlock()
	if err != nil {
		return err
	}
	if err := do(host); err != nil {
		c.mu.Lock()
		c.failed[host] = err
		c.mu.Unlock()
		return err
	}
	return nil
}

// LookupAll looks hosts up on one goroutine per host.
func LookupAll(hosts []string, do func(string) error) []error {
	c := &negCache{failed: make(map[string]error)}
	errs := make([]error, len(hosts))
	var wg sync.WaitGroup
	for i, h := range hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = c.lookup(h, do)
		}()
	}
	wg.Wait()
	return errs
}
