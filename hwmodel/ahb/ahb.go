// Package ahb models OSCS-HW's Access History Buffers (Huang, Halberg and
// Suh, ISCA 2013; ../shared/papers/oscs.txt §4.3, Fig. 11, Table 1): one
// small set-associative buffer per core that holds, per shared location,
// the history OSCS-Opt keeps (the two most recent reads and writes from
// different threads, with their critical sections and the CSRWFlag).
//
// This package models the buffers' occupancy, not their contents: which
// location has an entry where, and when an entry is thrown away. The
// contents are OSCS-Opt's (detect/oscs), which asks through the entry's
// generation whether its history is still there (oscs.Hardware).
//
// # Model
//
//   - Per core, Entries entries in Ways-way sets (256, 8-way by default),
//     LRU replacement, Latency cycles per lookup (3).
//   - An entry is allocated on a miss, which finds no history and so
//     detects nothing (§4.3: a miss can only lose a bug, never report
//     one). An evicted entry is thrown away: there is no level behind the
//     buffer.
//   - Coherence: every access the checker records updates the entry (its
//     reads as much as its writes), so an entry is only ever useful in
//     one buffer at a time; a core that needs an entry another core
//     holds takes it over, history and all, at TransferLatency cycles,
//     and the other core's copy is invalidated. An entry's history thus
//     survives migration and is lost only by eviction.
//   - Granularity: the paper's entries cover a word or, with a byte mask,
//     the bytes of a smaller variable (§4.3, flexible granularity), so two
//     variables never share one history. The trace gives addresses but
//     not access sizes; an entry here is one location (one address), the
//     set chosen by its word (address / WordBytes). Packing small
//     variables costs entries, never precision.
//   - Generations: each allocation gets a new generation number; an
//     entry keeps it through transfers. Alive says whether a generation
//     still held at a given point of the replay.
package ahb

import (
	"fmt"
	"math/bits"
)

// Config is the buffers' geometry.
type Config struct {
	Entries   int // per core
	Ways      int
	Latency   int // cycles per lookup
	WordBytes int // the word that picks an entry's set
	// TransferLatency is the cycles a core waits for an entry that
	// another core's buffer holds.
	TransferLatency int
}

// Default is the paper's Table 1: 256 entries, 8-way, 3 cycles (9 KB per
// core). Words are 4 bytes, as the entries' 4-bit byte masks imply; a
// transfer costs what an L3-coordinated transfer costs in the default
// caches (40 cycles).
func Default() Config {
	return Config{Entries: 256, Ways: 8, Latency: 3, WordBytes: 4, TransferLatency: 40}
}

// Validate reports a geometry the model cannot build.
func (c Config) Validate() error {
	if c.Ways < 1 || c.Entries < c.Ways || c.Entries%c.Ways != 0 {
		return fmt.Errorf("ahb: %d entries cannot be divided into %d ways", c.Entries, c.Ways)
	}
	if sets := c.Entries / c.Ways; bits.OnesCount(uint(sets)) != 1 {
		return fmt.Errorf("ahb: %d entries in %d ways is %d sets, not a power of two", c.Entries, c.Ways, sets)
	}
	if c.WordBytes < 1 || bits.OnesCount(uint(c.WordBytes)) != 1 {
		return fmt.Errorf("ahb: word size must be a power of two, got %d", c.WordBytes)
	}
	return nil
}

type slot struct {
	key   uint64
	gen   uint64
	valid bool
	used  uint64
}

// Buffers are the AHBs of all cores.
type Buffers struct {
	cfg       Config
	sets      uint64
	wordShift uint
	cores     [][]slot
	where     map[uint64]int // key -> core whose buffer holds it
	tick      uint64
	nextGen   uint64
	// died maps a generation to the event at which it was evicted.
	died  map[uint64]int
	Stats Stats
}

// Stats counts the buffers' work.
type Stats struct {
	Lookups   int
	Hits      int // in the core's own buffer
	Transfers int // taken over from another core's buffer
	Misses    int // new entries
	Evictions int // entries thrown away with their history
}

// Add adds t's counts to s.
func (s *Stats) Add(t Stats) {
	s.Lookups += t.Lookups
	s.Hits += t.Hits
	s.Transfers += t.Transfers
	s.Misses += t.Misses
	s.Evictions += t.Evictions
}

// New builds the buffers of cores cores; cfg must be valid.
func New(cfg Config, cores int) *Buffers {
	b := &Buffers{
		cfg:     cfg,
		sets:    uint64(cfg.Entries / cfg.Ways),
		where:   make(map[uint64]int),
		died:    make(map[uint64]int),
		nextGen: 1,
	}
	for w := cfg.WordBytes; w > 1; w >>= 1 {
		b.wordShift++
	}
	for range cores {
		b.cores = append(b.cores, make([]slot, cfg.Entries))
	}
	return b
}

// Result is what one lookup did.
type Result struct {
	Gen      uint64
	Hit      bool // the core's buffer held the entry
	Transfer bool // another core's buffer held it
	Cycles   int
	// Evicted is the generation this lookup threw away to make room, 0
	// if none.
	Evicted uint64
}

func (b *Buffers) set(core int, key uint64) []slot {
	s := int((key>>b.wordShift)%b.sets) * b.cfg.Ways
	return b.cores[core][s : s+b.cfg.Ways]
}

// Access looks up and updates key's entry in core's buffer at event at,
// taking it over from another core or allocating it if needed.
func (b *Buffers) Access(core int, key uint64, at int) Result {
	b.Stats.Lookups++
	b.tick++
	r := Result{Cycles: b.cfg.Latency}
	set := b.set(core, key)
	if k, ok := b.where[key]; ok {
		if k == core {
			for i := range set {
				if set[i].valid && set[i].key == key {
					set[i].used = b.tick
					b.Stats.Hits++
					r.Hit, r.Gen = true, set[i].gen
					return r
				}
			}
			panic("ahb: entry not where the directory says")
		}
		// Take it over: invalidate the other core's copy.
		other := b.set(k, key)
		for i := range other {
			if other[i].valid && other[i].key == key {
				r.Gen = other[i].gen
				other[i] = slot{}
			}
		}
		b.Stats.Transfers++
		r.Transfer = true
		r.Cycles += b.cfg.TransferLatency
	} else {
		b.Stats.Misses++
		r.Gen = b.nextGen
		b.nextGen++
	}
	v := 0
	for i := range set {
		if !set[i].valid {
			v = i
			break
		}
		if set[i].used < set[v].used {
			v = i
		}
	}
	if old := set[v]; old.valid {
		delete(b.where, old.key)
		b.died[old.gen] = at
		b.Stats.Evictions++
		r.Evicted = old.gen
	}
	set[v] = slot{key: key, gen: r.Gen, valid: true, used: b.tick}
	b.where[key] = core
	return r
}

// Alive reports whether generation gen still held its history at event
// at: allocated and not evicted at or before at.
func (b *Buffers) Alive(gen uint64, at int) bool {
	if gen == 0 || gen >= b.nextGen {
		return false
	}
	d, ok := b.died[gen]
	return !ok || d > at
}

// DiedAt returns the event at which gen was evicted.
func (b *Buffers) DiedAt(gen uint64) (int, bool) {
	d, ok := b.died[gen]
	return d, ok
}
