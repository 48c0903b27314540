package hwmodel

import (
	"fmt"

	"github.com/precog-dev/precog/hwmodel/ahb"
	"github.com/precog-dev/precog/hwmodel/cache"
)

// Config is the simulated machine.
type Config struct {
	Cache cache.Config
	AHB   ahb.Config
	// ClockBytes is the size of one vector-clock component (§5.1: 16-bit
	// clocks). A goroutine's or an ordering object's clock has one
	// component per goroutine of the trace so far, up to
	// ClockComponents: Table 1's 8-bit thread IDs name 256 threads.
	ClockBytes      int
	ClockComponents int
}

// Default is the paper's baseline machine (Table 1).
func Default() Config {
	return Config{Cache: cache.Default(), AHB: ahb.Default(), ClockBytes: 2, ClockComponents: 256}
}

// Validate reports a machine the model cannot build.
func (c Config) Validate() error {
	if err := c.Cache.Validate(); err != nil {
		return err
	}
	if c.ClockBytes < 1 || c.ClockComponents < 1 {
		return fmt.Errorf("clocks need a component size and a component count of at least 1")
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
