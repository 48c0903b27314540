package hb

import "github.com/precog-dev/precog/shim/trace"

// Limits of the allocation generations (see "Locations" in the package
// doc).
const (
	// MaxNewWords is the most 8-byte words of an object an EvNew starts
	// anew: 32 KiB. The accesses to a larger object's words past it keep
	// their generation, and may share a location with a former object's at
	// their addresses (within a GC epoch, as without EvNew).
	MaxNewWords = 1 << 12
	// MaxTouchedWords is the most words that accesses touched which the
	// walk keeps a generation for (a map entry each). Past it a word
	// touched for the first time keeps none and generation 0, which no
	// EvNew changes; Graph.WordsUntracked and StreamStats.WordsUntracked
	// count such accesses.
	MaxTouchedWords = 1 << 22
)

// hasFieldGen reports whether events of kind k are accesses to an
// object's memory that a field generation separates (Loc.Gen): reads,
// writes, atomics and the WaitGroups and Onces inside objects. Locks are
// not: two mutexes that had one address in turn were never held at once,
// and their lock sets only ever lose a race.
func hasFieldGen(k trace.Kind) bool {
	switch k {
	case trace.EvRead, trace.EvWrite, trace.EvAtomicLoad, trace.EvAtomicStore,
		trace.EvWGAdd, trace.EvWGDone, trace.EvWGWait, trace.EvOnceDo:
		return true
	}
	return false
}

// words holds the field generations: for each 8-byte word that an access
// touched, the EvNew events whose object covered it since the first such
// access. A word no access touched needs none (no access has a location
// there to tell apart), so the map holds no more words than the trace has
// accesses, and at most MaxTouchedWords.
type words struct {
	gen       map[uint64]uint32
	untracked int // accesses to words past MaxTouchedWords
}

// touch returns the generation of the word of an access at addr, and
// notes the word as touched.
func (w *words) touch(addr uint64) uint32 {
	k := addr &^ 7
	g, ok := w.gen[k]
	if !ok {
		if w.gen == nil {
			w.gen = make(map[uint64]uint32)
		}
		if len(w.gen) >= MaxTouchedWords {
			w.untracked++
			return 0
		}
		w.gen[k] = 0
	}
	return g
}

// made starts a new generation of every touched word of the object of
// size bytes at addr (an EvNew), up to MaxNewWords of them. A word that
// the object shares with a neighbor (an object of the runtime's tiny
// allocator, smaller than a word) starts anew for the neighbor too: its
// accesses on the two sides of the EvNew are different locations, which
// may hide a race of the neighbor's but not invent one.
func (w *words) made(addr, size uint64) {
	if size == 0 || len(w.gen) == 0 {
		return
	}
	first := addr &^ 7
	n := (size + addr - first + 7) / 8
	if addr+size < addr {
		n = (-first) / 8 // wraps: up to the end of the address space
	}
	n = min(n, MaxNewWords)
	for j := range n {
		k := first + 8*j
		if g, ok := w.gen[k]; ok {
			w.gen[k] = g + 1
		}
	}
}
