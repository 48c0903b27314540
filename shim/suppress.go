package shim

// Suppression: precog explain's execution suppression (execution-
// suppression.txt section 3, "actual suppression" and "suppression
// information flow tracking"). A plan's Suppress names write instances
// (points) to skip: W does not store, Def puts the zero value back. The
// shim then keeps the addresses those writes would have defined as
// suppressed; a goroutine that reads a suppressed address is tainted, and
// its next write (W, Def, Wrote) is suppressed too and suppresses its own
// address, while an untainted write to a suppressed address makes it
// normal again. Reads are not suppressed: the program uses the value the
// location had before, as if the suppressed store never happened.
//
// The taint is the goroutine's, not a register's: it flows from every read
// to the next write of the same goroutine, whatever the statement, which
// over-approximates data dependence within a statement and stands in for
// control dependence (a branch on a suppressed value suppresses the next
// write after it). The package doc of detect/suppress says where this
// over- or under-suppresses and why that is acceptable.
//
// Suppressed writes are still recorded in the trace, so that the instance
// numbers of the writes after them stay those of the run without
// suppression; the result file gets a "suppressed" line for each (at most
// maxSuppressRecords), from which the driver knows which recorded writes
// did not happen.

import (
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/precog-dev/precog/shim/plan"
)

// maxSuppressRecords caps the "suppressed" lines of a result file.
const maxSuppressRecords = 10000

// suppressing is set while a plan suppresses: R, W, Wrote and Def then ask
// the suppressor.
var suppressing atomic.Bool

var supp atomic.Pointer[suppressor]

type suppressor struct {
	c      *control
	mu     sync.Mutex
	points map[pointKey]bool
	counts map[uint64]map[uint32]uint64 // write arrivals per goroutine and site
	addrs  map[uintptr]bool             // suppressed locations
	taint  map[uint64]bool              // goroutines that read a suppressed location since their last write
	n      int                          // records written
}

// installSuppress loads p's suppression points for control c; none
// uninstalls it.
func installSuppress(c *control, pts []plan.Point) {
	if len(pts) == 0 {
		suppressing.Store(false)
		supp.Store(nil)
		return
	}
	s := &suppressor{c: c, points: make(map[pointKey]bool),
		counts: make(map[uint64]map[uint32]uint64), addrs: make(map[uintptr]bool), taint: make(map[uint64]bool)}
	for _, p := range pts {
		s.points[keyOf(p)] = true
	}
	supp.Store(s)
	suppressing.Store(true)
}

// suppRead notes a read of addr by the running goroutine.
func suppRead(addr unsafe.Pointer) {
	s := supp.Load()
	if s == nil {
		return
	}
	s.mu.Lock()
	if len(s.addrs) > 0 && s.addrs[uintptr(addr)] {
		s.taint[cur().id] = true
	}
	s.mu.Unlock()
}

// suppWrite reports whether the write of the running goroutine at site to
// addr is suppressed, and updates the suppressed locations.
func suppWrite(site uint32, addr unsafe.Pointer) bool {
	s := supp.Load()
	if s == nil {
		return false
	}
	id := cur().id
	s.mu.Lock()
	skip := s.taint[id]
	delete(s.taint, id)
	m := s.counts[id]
	if m == nil {
		m = make(map[uint32]uint64)
		s.counts[id] = m
	}
	pt := plan.Point{G: id, Site: site, N: m[site], Kind: "W"}
	m[site]++
	named := s.points[keyOf(pt)]
	skip = skip || named
	if skip {
		s.addrs[uintptr(addr)] = true
	} else {
		delete(s.addrs, uintptr(addr))
	}
	emit := skip && s.n < maxSuppressRecords
	if emit {
		s.n++
	}
	s.mu.Unlock()
	if emit {
		r := plan.Record{Event: plan.EvSuppressed, Point: &pt}
		if !named {
			r.Reason = "dependence"
		}
		s.c.emit(r)
	}
	return skip
}
