package shim

import (
	"os"
	"unsafe"

	"github.com/precog-dev/precog/shim/plan"
	"github.com/precog-dev/precog/shim/trace"
)

// A read that repeats the goroutine's last read of the same location at
// the same site, with no sync event of the goroutine and no write of the
// location by it in between, is not recorded. Such a read adds nothing the
// analysis can use: the trace orders a goroutine's accesses against other
// goroutines' only through sync events (an access carries its goroutine's
// last seq), so no access of another goroutine ever comes between the two
// reads in the trace's order, and the first read is the same event but
// for its place among the goroutine's accesses to other locations in the
// same stretch. For the data-race detector it is FastTrack's "read in the
// same epoch". Loops that read a field on every iteration make most of
// some traces: in ristretto/z's TestTree 97% of the reads repeated one in
// this sense (bench/RESULTS.md, "Repeated reads"). A map read that
// repeats the goroutine's last read of the same map at the same site,
// with no sync event and no write of the map by it in between, is left
// out by the same rule (repeatedAccess): the trace's map events name the
// map, not the key, so the repeat is the same event as the first.
//
// The filter is a small direct-mapped table per goroutine (32 slots),
// keyed by address: a slot holds the last read of an address (its site and the
// goroutine's seq at the time), a read at another site replaces it, and a
// recorded write of the address clears it. A collision only costs a read
// recorded that could have been left out. The check comes before
// control's gate, as the stack check does, so a forced run counts the
// instances of a site as its recording did. precog explain leaves the
// filter on: a left-out read would depend on the same write as the read
// it repeats, and a reproducer's plan counts instances without the
// repeats. plan.RepeatsEnv turns it off (bench/runtime measures what it
// saves).
var repeatFilter bool

// readSlots is the size of the table, 1<<readSlotBits.
const (
	readSlotBits = 5
	readSlots    = 1 << readSlotBits
)

// readSlot returns the slot of addr in g's table. The index is a
// multiplicative (Fibonacci) hash of the word address, not its low bits:
// code that walks page-aligned nodes (ristretto/z's B-tree) reads their
// headers at the same offsets within each page, whose low bits all fall
// into one slot, and evicts each other there (bench/RESULTS.md, "The
// repeat filter's index").
func (g *gstate) readSlot(addr uintptr) *readSlot {
	return &g.reads[uint64(addr>>3)*0x9e3779b97f4a7c15>>(64-readSlotBits)]
}

// A readSlot is the last read of an address recorded by its goroutine.
type readSlot struct {
	addr uintptr
	seq  uint64 // the goroutine's last sync event's seq when it was read
	site uint32
}

// readRepeatFilter sets repeatFilter from the environment. It runs during
// package initialization only.
func readRepeatFilter() {
	keep := os.Getenv(plan.RepeatsEnv) == "1"
	os.Unsetenv(plan.RepeatsEnv)
	repeatFilter = !keep
}

// repeated reports whether a read of addr at site repeats the last read
// of addr that g recorded, in the sense above; if not, it notes this read
// as the last.
func (g *gstate) repeated(site uint32, addr unsafe.Pointer) bool {
	if !repeatFilter {
		return false
	}
	s := g.readSlot(uintptr(addr))
	seq := g.enc.Seq()
	if s.addr == uintptr(addr) && s.site == site && s.seq == seq {
		return true
	}
	s.addr, s.site, s.seq = uintptr(addr), site, seq
	return false
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
		return g.repeated(site, addr)
	case trace.EvMapWrite:
		g.wrote(addr)
	}
	return false
}

// wrote notes that g wrote addr: its next read of addr is recorded.
func (g *gstate) wrote(addr unsafe.Pointer) {
	if s := g.readSlot(uintptr(addr)); s.addr == uintptr(addr) {
		s.addr = 0
	}
}
