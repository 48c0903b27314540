package cache

// An array is one set-associative cache with LRU replacement. Lines are
// numbered by address / line size.
type array struct {
	ways    int
	setMask uint64
	lines   []entry // sets*ways, set s at [s*ways, (s+1)*ways)
	tick    uint64
}

// An entry is one block frame.
type entry struct {
	line  uint64
	valid bool
	state State // the core's coherence state (L2); L1 copies mirror it
	// shared is the OSCS tag (L3 entries: the chip's bit for the line).
	shared bool
	dirty  bool   // L3: newer than DRAM
	used   uint64 // LRU stamp
}

func newArray(l Level, lineBytes int) *array {
	sets := l.Bytes / (l.Ways * lineBytes)
	return &array{ways: l.Ways, setMask: uint64(sets - 1), lines: make([]entry, sets*l.Ways)}
}

func (a *array) set(line uint64) []entry {
	s := int(line&a.setMask) * a.ways
	return a.lines[s : s+a.ways]
}

// find returns the entry holding line, nil if none.
func (a *array) find(line uint64) *entry {
	set := a.set(line)
	for k := range set {
		if set[k].valid && set[k].line == line {
			return &set[k]
		}
	}
	return nil
}

// touch marks e most recently used.
func (a *array) touch(e *entry) {
	a.tick++
	e.used = a.tick
}

// insert puts line in its set and returns the new entry and the entry it
// replaced (valid if a line was evicted). The line must not be present.
func (a *array) insert(line uint64) (*entry, entry) {
	set := a.set(line)
	v := 0
	for k := range set {
		if !set[k].valid {
			v = k
			break
		}
		if set[k].used < set[v].used {
			v = k
		}
	}
	old := set[v]
	set[v] = entry{line: line, valid: true}
	a.touch(&set[v])
	return &set[v], old
}

// remove invalidates line if present and returns what it held.
func (a *array) remove(line uint64) (entry, bool) {
	e := a.find(line)
	if e == nil {
		return entry{}, false
	}
	old := *e
	*e = entry{}
	return old, true
}
