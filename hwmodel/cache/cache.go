// Package cache models the data caches of the OSCS hardware (Huang,
// Halberg and Suh, ISCA 2013; ../shared/papers/oscs.txt §4.1 and Table 1):
// per core a private L1 and L2, a shared L3, kept coherent by MESI, with
// the one-bit shared tag per cache block that OSCS-HW adds.
//
// # Model
//
// Every level is set-associative with LRU replacement and 64-byte lines by
// default (Config; Default is Table 1). The private levels are inclusive
// (L1 within L2), and so is the L3 of every private copy, which makes "the
// block is on chip" the same as "the L3 holds it": the L3 is also the
// directory that finds the other cores' copies. A core's coherence state of
// a line is kept in its L2 (its L1 copy has the same state). Latencies add
// up along the path an access takes: an L1 hit costs L1, an L2 hit L1+L2,
// anything the L3 serves or coordinates (a miss in the private levels, an
// upgrade of a Shared line to write it) L1+L2+L3, plus a remote L2's
// latency when another core's Modified or Exclusive copy supplies the data,
// plus DRAM when the line is not on chip.
//
// # The shared tag (§4.1)
//
// The tag is set when a coherence request downgrades another core's copy:
// M→S and E→S (a read of a line another core holds alone), M→I, E→I and
// S→I (a write of a line other cores hold). Two cores that only read a line
// they both hold Shared set nothing. The tag follows the data on chip: it
// is written back with the line to the L3 and read with it on a miss, so a
// line's tag is one bit for the chip (kept with its L3 entry here), and it
// is cleared when the line leaves the chip (an L3 eviction, which with the
// inclusive L3 also invalidates the private copies) or comes from DRAM.
// Capacity evictions, write-backs and silent E→M upgrades are not
// downgrades and set nothing.
//
// # What it is sound for
//
// It is a functional model of states and an additive latency model, not a
// cycle-accurate one: no queues, no bandwidth, no overlap of misses, no
// instruction cache, no prefetching, no write buffer. It sees only the
// accesses it is given: replayed from a precog trace, those are the shared
// locations' reads and writes and the synchronization objects' words, not
// the program's private data or stack, so the caches hold less than real
// ones would and lines leave the chip later: the tag stays set longer than
// on real hardware (coverage is overestimated for that reason, not
// underestimated).
package cache

import (
	"fmt"
	"math/bits"
)

// State is a MESI state.
type State uint8

// The MESI states.
const (
	Invalid State = iota
	Shared
	Exclusive
	Modified
)

func (s State) String() string { return [...]string{"I", "S", "E", "M"}[s] }

// A Level is one cache level's geometry and latency.
type Level struct {
	Bytes   int // capacity
	Ways    int
	Latency int // cycles
}

// Config is the memory hierarchy.
type Config struct {
	Cores     int
	LineBytes int
	L1, L2    Level // private, per core
	L3        Level // shared
	DRAMNanos float64
	GHz       float64
}

// Default is the paper's baseline (Table 1): 4 cores at 2 GHz; L1 32 KB
// 4-way 3 cycles, L2 256 KB 4-way 15 cycles, both private; L3 8 MB 8-way
// 40 cycles, shared; DRAM 50 ns; 64-byte lines.
func Default() Config {
	return Config{
		Cores:     4,
		LineBytes: 64,
		L1:        Level{Bytes: 32 << 10, Ways: 4, Latency: 3},
		L2:        Level{Bytes: 256 << 10, Ways: 4, Latency: 15},
		L3:        Level{Bytes: 8 << 20, Ways: 8, Latency: 40},
		DRAMNanos: 50,
		GHz:       2,
	}
}

// Scale returns c with every cache's capacity multiplied by f (the
// sensitivity study of §5.2 halves and quarters them), keeping ways and
// latencies.
func (c Config) Scale(f float64) Config {
	c.L1.Bytes = int(float64(c.L1.Bytes) * f)
	c.L2.Bytes = int(float64(c.L2.Bytes) * f)
	c.L3.Bytes = int(float64(c.L3.Bytes) * f)
	return c
}

// DRAMCycles is the DRAM latency in core cycles.
func (c Config) DRAMCycles() int { return int(c.DRAMNanos*c.GHz + 0.5) }

// Validate reports a configuration the model cannot build.
func (c Config) Validate() error {
	if c.Cores < 1 || c.Cores > 64 {
		return fmt.Errorf("cores must be between 1 and 64, got %d", c.Cores)
	}
	if c.LineBytes < 1 || bits.OnesCount(uint(c.LineBytes)) != 1 {
		return fmt.Errorf("line size must be a power of two, got %d", c.LineBytes)
	}
	for _, l := range []struct {
		name string
		Level
	}{{"l1", c.L1}, {"l2", c.L2}, {"l3", c.L3}} {
		if l.Ways < 1 || l.Bytes < l.Ways*c.LineBytes {
			return fmt.Errorf("%s: %d bytes cannot hold %d ways of %d-byte lines", l.name, l.Bytes, l.Ways, c.LineBytes)
		}
		if sets := l.Bytes / (l.Ways * c.LineBytes); bits.OnesCount(uint(sets)) != 1 {
			return fmt.Errorf("%s: %d bytes in %d ways is %d sets, not a power of two", l.name, l.Bytes, l.Ways, sets)
		}
		if l.Latency < 0 {
			return fmt.Errorf("%s: negative latency", l.name)
		}
	}
	if c.L2.Bytes < c.L1.Bytes || c.L3.Bytes < c.L2.Bytes {
		return fmt.Errorf("the levels must grow (l1 %d, l2 %d, l3 %d bytes) for inclusion", c.L1.Bytes, c.L2.Bytes, c.L3.Bytes)
	}
	if c.DRAMNanos < 0 || c.GHz <= 0 {
		return fmt.Errorf("dram latency and clock must be positive")
	}
	return nil
}
