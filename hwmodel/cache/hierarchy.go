package cache

// Hierarchy is the caches of all cores and the shared L3.
type Hierarchy struct {
	cfg       Config
	lineShift uint
	l1, l2    []*array
	l3        *array
	dram      int
	// OnLeave, if set, is called when a line leaves the chip, with its
	// shared tag as it was.
	OnLeave func(line uint64, shared bool)
	Stats   Stats
}

// Stats counts what the hierarchy did.
type Stats struct {
	Accesses               int
	L1Hits, L2Hits, L3Hits int // served by that level (L3Hits: on chip, possibly from another core)
	DRAM                   int // served from memory
	Transfers              int // supplied by another core's cache
	Downgrades             int // other cores' copies downgraded (each sets the shared tag)
	Invalidations          int // of those, to Invalid
	Leaves                 int // lines that left the chip
	LeavesShared           int // of those, with the shared tag set
	WriteBacks             int // dirty lines written to DRAM
	Cycles                 int64
}

// Add adds t's counts to s.
func (s *Stats) Add(t Stats) {
	s.Accesses += t.Accesses
	s.L1Hits += t.L1Hits
	s.L2Hits += t.L2Hits
	s.L3Hits += t.L3Hits
	s.DRAM += t.DRAM
	s.Transfers += t.Transfers
	s.Downgrades += t.Downgrades
	s.Invalidations += t.Invalidations
	s.Leaves += t.Leaves
	s.LeavesShared += t.LeavesShared
	s.WriteBacks += t.WriteBacks
	s.Cycles += t.Cycles
}

// Result is what one access did.
type Result struct {
	Cycles int
	// Shared is the line's tag after the access, the coherence it caused
	// included: what the checker sees (§4.2).
	Shared bool
	// Downgraded is set when this access downgraded another core's copy.
	Downgraded bool
	// FromDRAM is set when the line came on chip for this access.
	FromDRAM bool
}

// New builds the hierarchy; cfg must be valid (Config.Validate).
func New(cfg Config) *Hierarchy {
	h := &Hierarchy{cfg: cfg, dram: cfg.DRAMCycles()}
	for s := cfg.LineBytes; s > 1; s >>= 1 {
		h.lineShift++
	}
	for range cfg.Cores {
		h.l1 = append(h.l1, newArray(cfg.L1, cfg.LineBytes))
		h.l2 = append(h.l2, newArray(cfg.L2, cfg.LineBytes))
	}
	h.l3 = newArray(cfg.L3, cfg.LineBytes)
	return h
}

// Line returns the line number of addr.
func (h *Hierarchy) Line(addr uint64) uint64 { return addr >> h.lineShift }

// State returns core's MESI state of the line holding addr.
func (h *Hierarchy) State(core int, addr uint64) State {
	if e := h.l2[core].find(h.Line(addr)); e != nil {
		return e.state
	}
	return Invalid
}

// SharedTag returns the shared tag of the line holding addr: false when
// the line is not on chip.
func (h *Hierarchy) SharedTag(addr uint64) bool {
	e := h.l3.find(h.Line(addr))
	return e != nil && e.shared
}

// Access performs a read or write of addr by core.
func (h *Hierarchy) Access(core int, addr uint64, write bool) Result {
	line := h.Line(addr)
	h.Stats.Accesses++
	var r Result
	lat := h.cfg.L1.Latency
	l1, l2 := h.l1[core], h.l2[core]
	own := l2.find(line)
	canServe := own != nil && (!write || own.state >= Exclusive)
	if e := l1.find(line); e != nil && canServe {
		l1.touch(e)
		l2.touch(own)
		h.Stats.L1Hits++
		if write {
			own.state = Modified
		}
		return h.done(r, lat, line)
	}
	lat += h.cfg.L2.Latency
	if canServe {
		l2.touch(own)
		h.fillL1(core, line)
		h.Stats.L2Hits++
		if write {
			own.state = Modified
		}
		return h.done(r, lat, line)
	}
	// The L3 serves or coordinates: a miss in the private levels, or a
	// write to a Shared copy.
	lat += h.cfg.L3.Latency
	l3e := h.l3.find(line)
	if l3e == nil {
		lat += h.dram
		r.FromDRAM = true
		h.Stats.DRAM++
		l3e = h.fillL3(line)
	} else {
		h.Stats.L3Hits++
		h.l3.touch(l3e)
	}
	others := false
	for k := range h.l2 {
		if k == core {
			continue
		}
		e := h.l2[k].find(line)
		if e == nil {
			continue
		}
		switch {
		case write:
			// M→I, E→I, S→I.
			if e.state == Modified {
				lat += h.cfg.L2.Latency
				h.Stats.Transfers++
				l3e.dirty = true
			}
			h.invalidate(k, line)
			h.downgrade(&r, l3e, true)
		case e.state == Modified || e.state == Exclusive:
			// M→S, E→S: the owner supplies the line.
			if e.state == Modified {
				l3e.dirty = true
			}
			lat += h.cfg.L2.Latency
			h.Stats.Transfers++
			e.state = Shared
			h.downgrade(&r, l3e, false)
			others = true
		default:
			others = true // S stays S: two readers share nothing new
		}
	}
	if own == nil {
		own = h.fillL2(core, line)
	} else {
		l2.touch(own)
	}
	h.fillL1(core, line)
	switch {
	case write:
		own.state = Modified
	case others:
		own.state = Shared
	default:
		own.state = Exclusive
	}
	return h.done(r, lat, line)
}

func (h *Hierarchy) done(r Result, lat int, line uint64) Result {
	r.Cycles = lat
	h.Stats.Cycles += int64(lat)
	if e := h.l3.find(line); e != nil {
		r.Shared = e.shared
	}
	return r
}

func (h *Hierarchy) downgrade(r *Result, l3e *entry, toInvalid bool) {
	h.Stats.Downgrades++
	if toInvalid {
		h.Stats.Invalidations++
	}
	l3e.shared = true
	r.Downgraded = true
}

// invalidate drops core's private copies of line; a Modified one is
// written back to the L3.
func (h *Hierarchy) invalidate(core int, line uint64) {
	h.l1[core].remove(line)
	if old, ok := h.l2[core].remove(line); ok && old.state == Modified {
		if e := h.l3.find(line); e != nil {
			e.dirty = true
		}
	}
}

func (h *Hierarchy) fillL1(core int, line uint64) {
	l1 := h.l1[core]
	if e := l1.find(line); e != nil {
		l1.touch(e)
		return
	}
	l1.insert(line) // an L1 victim is still in the L2: nothing to do
}

func (h *Hierarchy) fillL2(core int, line uint64) *entry {
	e, old := h.l2[core].insert(line)
	if old.valid {
		// Inclusion: the L1 copy goes with it; a Modified victim is
		// written back to the L3, its tag with it (the L3 has it).
		h.l1[core].remove(old.line)
		if old.state == Modified {
			if l3e := h.l3.find(old.line); l3e != nil {
				l3e.dirty = true
			}
		}
	}
	return e
}

// fillL3 brings line on chip, untagged, evicting a victim and every private
// copy of it (inclusion).
func (h *Hierarchy) fillL3(line uint64) *entry {
	e, old := h.l3.insert(line)
	if old.valid {
		dirty := old.dirty
		for k := range h.l2 {
			h.l1[k].remove(old.line)
			if p, ok := h.l2[k].remove(old.line); ok && p.state == Modified {
				dirty = true
			}
		}
		if dirty {
			h.Stats.WriteBacks++
		}
		h.Stats.Leaves++
		if old.shared {
			h.Stats.LeavesShared++
		}
		if h.OnLeave != nil {
			h.OnLeave(old.line, old.shared)
		}
	}
	return e
}
