package conmem

import (
	"slices"

	"github.com/precog-dev/precog/detect/hb"
	"github.com/precog-dev/precog/shim/trace"
)

// Spin loops (§4.6). The paper finds loops and their loop-exit reads
// statically (CodeSurfer), then calls a loop a synchronization loop when
// every exit in the run read a value that another thread wrote; the write
// becomes an order edge to the exit. Here the instrumenter marks the
// loop-exit reads from go/ssa (trace.UseLoopExit: the read runs on every
// iteration and its value decides an If that leaves the loop), and the
// trace gives the rest:
//
//   - a loop instance is a run of the exit read's executions by one
//     goroutine on one location with no write of that goroutine to the
//     location in between (a consumer's pop starts a new wait); its last
//     execution is the exit;
//   - the write that defined the exit's value is the last write to the
//     location before it in the trace's order;
//   - a loop whose every exit was defined by another goroutine is a
//     synchronization loop: each exit gets the edge from its defining
//     write, and its reads and those writes are synchronization, not
//     data, so the checks skip them (a spin flag read before it is set is
//     not an uninitialized read).
//
// The trace orders accesses of different goroutines only through their
// sync events, so the defining write is known only when the loop's reads
// and the write are ordered by seq, which holds for a flag or a queue
// polled under a lock (Fig. 10(b), Fig. 12(b)); a plain variable polled
// with no sync event in the loop (Fig. 10(a) with a C volatile; in Go a
// data race) has all its reads ordered before the write, and gets no edge.
// The paper's other rule, that a value changing from non-exiting to
// exiting more than once marks a custom lock, needs the reads' values,
// which the trace does not hold; it is not applied. Like the paper's, the
// inference is neither sound nor complete: one run may show a loop that
// can also be left on its own goroutine's value.

// spinEdges infers the order edges of synchronization loops, and returns
// them with the events that are synchronization: the loops' reads and
// defining writes.
func (c *checker) spinEdges() ([]hb.Edge, map[int]bool) {
	type loop struct {
		g    int
		site uint32
	}
	type exit struct{ read, def int }
	var edges []hb.Edge
	sync := make(map[int]bool)
	for _, list := range c.mem {
		if !slices.ContainsFunc(list, func(i int) bool { return c.used(i, useLoopExit) }) {
			continue
		}
		var loops []loop
		exits := make(map[loop][]exit)
		reads := make(map[loop][]int)
		open := make(map[loop]int) // the open instance's latest read
		closeAll := func(gi int) {
			for _, lp := range loops {
				if r, ok := open[lp]; ok && (gi < 0 || lp.g == gi) {
					exits[lp] = append(exits[lp], exit{r, c.defBefore(list, r)})
					delete(open, lp)
				}
			}
		}
		for _, i := range list {
			ev := c.g.Events[i]
			if ev.Kind == trace.EvWrite {
				closeAll(c.g.Goroutine(i)) // a write by the goroutine ends its wait
				continue
			}
			if !c.used(i, useLoopExit) {
				continue
			}
			lp := loop{c.g.Goroutine(i), ev.Site}
			if _, ok := reads[lp]; !ok {
				loops = append(loops, lp)
			}
			reads[lp] = append(reads[lp], i)
			open[lp] = i
		}
		closeAll(-1)
		for _, lp := range loops {
			xs := exits[lp]
			if slices.ContainsFunc(xs, func(x exit) bool { return x.def < 0 || c.g.Goroutine(x.def) == lp.g }) {
				continue // left on its own value, or on one the trace cannot place
			}
			for _, x := range xs {
				sync[x.def] = true
				if !c.g.HappensBefore(x.def, x.read) {
					edges = append(edges, hb.Edge{From: x.def, To: x.read})
				}
			}
			for _, r := range reads[lp] {
				sync[r] = true
			}
		}
	}
	return edges, sync
}

// defBefore returns the last write in list (a location's accesses in
// trace order) before event r, or -1.
func (c *checker) defBefore(list []int, r int) int {
	k, _ := slices.BinarySearch(list, r)
	for k--; k >= 0; k-- {
		if c.g.Events[list[k]].Kind == trace.EvWrite {
			return list[k]
		}
	}
	return -1
}
