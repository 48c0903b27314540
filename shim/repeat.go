package shim

import (
	"os"
	"unsafe"

	"github.com/precog-dev/precog/shim/plan"
	"github.com/precog-dev/precog/shim/trace"
)

// A read that repeats a read of the same location at the same site by the
// same goroutine, with no sync event of the goroutine and no write of the
// location by it in between, is not recorded. Such a read adds nothing the
// analysis can use: the trace orders a goroutine's accesses against other
// goroutines' only through sync events (an access carries its goroutine's
// last seq), so no access of another goroutine ever comes between the two
// reads in the trace's order, and the first read is the same event (same
// site, same location, same value, since no write of it came between) but
// for its place among the goroutine's other accesses of the same stretch,
// reads of the same location at other sites included. For the data-race
// detector it is FastTrack's "read in the same epoch". Loops that read a
// field on every iteration make most of some traces: in ristretto/z's
// TestTree 97% of the reads repeated one in this sense (bench/RESULTS.md,
// "Repeated reads"), most of them a global (maxKeys, pageSize) or a node
// header read in turn at several sites, which a table holding one site per
// address missed (reccost5's section there). A map read that repeats a
// read of the same map at the same site, with no sync event and no write
// of the map by the goroutine in between, is left out by the same rule
// (repeatedAccess): the trace's map events name the map, not the key, so
// the repeat is the same event as the first.
//
// One exception keeps what validation needs: a location that the
// goroutine read at an index site (RI, RIL: a read inside a loop of its
// function whose value the instrumenter saw flow into an index or a slice
// bound, trace.UseIndex)
// since its last sync event is ordered, and a read of it repeats only the
// goroutine's last read of it, at the same site (the rule before
// reccost5's table): reads at other sites in between are recorded. A loop
// that tests a bound at one site and slices with it at another (cherokee's
// `for c.sent < c.header.len { ... buf[c.sent:c.header.len] }`) keeps both
// reads of every iteration, and con-index's validation forces the write
// between the two in the loop's last iteration (detect/conmem's withLast,
// "index-last" and "check-last"): with the first iteration's reads alone
// the forced write lands where c.sent is 0, and [0:0] is in bounds
// (bench/RESULTS.md, "reccost6"). A forced run counts the instances of a
// site as its recording did, so validation can name no read the filter left
// out; what it needs of a loop is that the reads it names are there, and
// con-index is the one kind whose plan names a later iteration's reads.
//
// The filter is a small direct-mapped table per goroutine (readSlots
// slots), keyed by address and site: a slot holds a read (its address,
// site, the goroutine's seq at the time, and the write stamp of its
// address); a read of another address or site in the slot replaces it. A
// write cannot find the slots of its address at every site, so each
// recorded write stamps its address's entry in a second table (writeSlots
// stamps, indexed by the address alone) with the goroutine's count of
// writes, and a slot whose stamp differs from its address's entry is stale:
// a write of the address, or of another address with the same entry, came
// after the read. A recorded read of an ordered location stamps its entry
// too (stampRead), so its reads at every other site are stale; the third
// table (ordered, by the same index) holds the stretch in which an index
// read last ordered the entry. A collision in any table only costs a read
// recorded that could have been left out. The check comes before control's
// gate, as the stack check does, so a forced run counts the instances of a
// site as its recording did. precog explain leaves the filter on: a
// left-out read would depend on the same write as the read it repeats, and
// a reproducer's plan counts instances without the repeats. plan.RepeatsEnv
// turns it off (bench/runtime measures what it saves).
var repeatFilter bool

// readSlots is the size of the table of reads, 1<<readSlotBits, and
// writeSlots that of the write stamps.
const (
	readSlotBits  = 6
	readSlots     = 1 << readSlotBits
	writeSlotBits = 5
	writeSlots    = 1 << writeSlotBits
)

// readSlot returns the slot of a read of addr at site in g's table, and
// writeStamp addr's entry in g's table of write stamps. Both index by a
// multiplicative (Fibonacci) hash of the word address, not its low bits:
// code that walks page-aligned nodes (ristretto/z's B-tree) reads their
// headers at the same offsets within each page, whose low bits all fall
// into one slot, and evicts each other there (bench/RESULTS.md, "The
// repeat filter's index"). The read's index is the hash's top bits xor the
// site's low bits, so that one address read at several sites takes several
// slots.
func (g *gstate) readSlot(addr uintptr, site uint32) *readSlot {
	return &g.reads[(addrHash(addr)>>(64-readSlotBits)^uint64(site))&(readSlots-1)]
}

func (g *gstate) writeStamp(addr uintptr) *uint64 {
	return &g.wstamps[addrHash(addr)>>(64-writeSlotBits)]
}

// addrHash is the hash of the word at addr.
func addrHash(addr uintptr) uint64 { return uint64(addr>>3) * 0x9e3779b97f4a7c15 }

// A readSlot is a read recorded by its goroutine.
type readSlot struct {
	addr uintptr
	seq  uint64 // the goroutine's last sync event's seq when it was read
	w    uint64 // the write stamp of addr when it was read
	site uint32
}

// readRepeatFilter sets repeatFilter from the environment. It runs during
// package initialization only.
func readRepeatFilter() {
	keep := os.Getenv(plan.RepeatsEnv) == "1"
	os.Unsetenv(plan.RepeatsEnv)
	repeatFilter = !keep
}

// repeated reports whether a read of addr at site repeats a read of addr
// at site that g recorded, in the sense above; if not, it notes this read.
// index says whether site is an index site (RI).
func (g *gstate) repeated(site uint32, addr unsafe.Pointer, index bool) bool {
	if !repeatFilter {
		return false
	}
	if g.seen(site, uintptr(addr)) {
		return true
	}
	g.noteRead(site, uintptr(addr), index)
	return false
}

// noteRead notes a read of addr at site in g's table.
func (g *gstate) noteRead(site uint32, addr uintptr, index bool) {
	h := addrHash(addr)
	s := &g.reads[(h>>(64-readSlotBits)^uint64(site))&(readSlots-1)]
	seq := g.stretch()
	s.addr, s.site, s.seq, s.w = addr, site, seq, g.stampRead(h, index, seq, g.wstamps[h>>(64-writeSlotBits)])
}

// stampRead returns the write stamp to note for a read that g records of
// the address of hash h, whose entry holds stamp w, at an index site or
// not, in the stretch of seq: w, unless the read orders its location (an
// index read) or the location is ordered in this stretch; then the read
// stamps the entry afresh, as a write does, so that the location's slots
// at other sites are stale, and returns the new stamp.
func (g *gstate) stampRead(h uint64, index bool, seq, w uint64) uint64 {
	i := h >> (64 - writeSlotBits)
	if index {
		g.ordered[i] = seq + 1
	} else if g.ordered[i] != seq+1 {
		return w
	}
	n := g.writes + 1 // in a local: the store to wstamps would reload it
	g.writes = n
	g.wstamps[i] = n
	return n
}

// seen is repeated's test without its note. (*Local).read makes the same
// test, written out, before the site filter and the stack check, so that a
// repeat costs the least: it finds nothing where repeated would not, since
// a slot holds only reads that passed both, and neither changes its answer
// for a site, and for the address of an object the goroutine still reads.
func (g *gstate) seen(site uint32, addr uintptr) bool {
	s := g.readSlot(addr, site)
	return s.addr == addr && s.site == site && s.seq == g.stretch() && s.w == *g.writeStamp(addr)
}

// repeatedAccess is repeated for the accesses without a value (access):
// a read (R's, for shapes RL does not take) and a map read repeat in the
// sense above, a map's address standing for the map as a location, and a
// map write is a write of that location. A map read carries no key, so a
// loop that looks up several keys of one map at one site repeats its
// first lookup; a map iteration is recorded every time.
func (g *gstate) repeatedAccess(site uint32, k trace.Kind, addr unsafe.Pointer) bool {
	switch k {
	case trace.EvRead, trace.EvMapRead:
		return g.repeated(site, addr, false)
	case trace.EvMapWrite:
		g.wrote(addr)
	}
	return false
}

// wrote notes that g wrote addr: its next read of addr is recorded, at
// every site.
func (g *gstate) wrote(addr unsafe.Pointer) {
	g.writes++
	*g.writeStamp(uintptr(addr)) = g.writes
}
