package hwmodel

import (
	"github.com/precog-dev/precog/hwmodel/ahb"
	"github.com/precog-dev/precog/hwmodel/cache"
)

// Config is the simulated machine.
type Config struct {
	Cache cache.Config
	AHB   ahb.Config
	// ClockBytes is the size of one vector-clock component (§5.1: 16-bit
	// clocks). A goroutine's or an ordering object's clock has one
	// component per goroutine of the trace so far.
	ClockBytes int
}

// Default is the paper's baseline machine (Table 1).
func Default() Config {
	return Config{Cache: cache.Default(), AHB: ahb.Default(), ClockBytes: 2}
}

// Validate reports a machine the model cannot build.
func (c Config) Validate() error {
	if err := c.Cache.Validate(); err != nil {
		return err
	}
	return c.AHB.Validate()
}

// WithAHBEntries returns c with n AHB entries per core; a buffer smaller
// than its ways becomes fully associative.
func (c Config) WithAHBEntries(n int) Config {
	c.AHB.Entries = n
	if c.AHB.Ways > n {
		c.AHB.Ways = n
	}
	return c
}
