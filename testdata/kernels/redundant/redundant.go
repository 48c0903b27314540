// Package redundant is a negative control for OSCS (oscs.txt §2.3): redundant
// writes.
//
// Every worker, when it starts, switches the shared configuration to the
// same mode and marks it initialized, under c.mu, without checking whether
// another worker did it already. The critical sections run in any order and
// all write c.mode and c.ready, but they write the same values, so their
// order cannot change the state. A checker must report nothing here.
package redundant

import "sync"

// Config is shared configuration guarded by a mutex.
type Config struct {
	mu    sync.Mutex
	mode  int
	ready bool
}

const modeParallel = 3

// Start runs n workers that each set up the configuration.
func Start(c *Config, n int) {
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.mu.Lock()
			c.mode = modeParallel
			c.ready = true
			c.mu.Unlock()
		}()
	}
	wg.Wait()
}
