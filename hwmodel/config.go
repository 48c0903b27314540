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
	// InitByParent takes each line's first access in the trace to follow
	// a store by the goroutine that started the accessing one, on that
	// goroutine's last core: the allocation, zeroing and composite-literal
	// stores of the object, which the trace does not record, made by the
	// goroutine that created it and handed it to its children (the usual
	// shape of a Go test, and of the paper's programs, whose main thread
	// sets up the data its threads share). It is a guess, on in Default:
	// an object a child allocated itself looks shared from its first use
	// (more recording, more AHB pressure), and one the parent never
	// touched may not be tagged on a real chip (the allocator zeroes only
	// reused memory). Without it, a critical section that runs before
	// any other goroutine touches its line is never recorded.
	InitByParent bool
}

// Default is the paper's baseline machine (Table 1), with lines first
// stored to by the parent goroutine (InitByParent).
func Default() Config {
	return Config{Cache: cache.Default(), AHB: ahb.Default(), ClockBytes: 2, ClockComponents: 256, InitByParent: true}
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
