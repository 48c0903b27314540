package conmem

import (
	"slices"

	"github.com/precog-dev/precog/detect/hb"
	"github.com/precog-dev/precog/shim/trace"
)

// Spin loops (§4.6): see the package doc.

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
