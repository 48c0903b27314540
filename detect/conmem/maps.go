package conmem

import (
	"fmt"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/shim/trace"
)

// maps reports Go's concurrent map access: two accesses of one map on
// different goroutines, at least one a write, concurrent and with no common
// lock ("fatal error: concurrent map writes", "concurrent map read and map
// write", "concurrent map iteration and map write").
func (c *checker) maps() {
	for _, m := range c.mapsL {
		list, ok := c.instances(m)
		if !ok {
			continue
		}
		for x, a := range list {
			if c.g.Events[a].Kind != trace.EvMapWrite {
				continue
			}
			for y, b := range list {
				if c.g.Goroutine(a) == c.g.Goroutine(b) {
					continue
				}
				if c.g.Events[b].Kind == trace.EvMapWrite && y < x {
					continue // the pair is seen from the other write
				}
				roles := []role{{ev: a, role: finding.RoleMapWrite}, {ev: b, role: mapRole(c.g.Events[b].Kind)}}
				if c.reported(finding.ConMap, roles) || !c.g.Concurrent(a, b) || c.g.CommonLock(a, b) {
					continue
				}
				what := map[trace.Kind]string{trace.EvMapWrite: "writes", trace.EvMapRead: "read and map write", trace.EvMapIter: "iteration and map write"}[c.g.Events[b].Kind]
				c.report(finding.ConMap,
					fmt.Sprintf("%s written in %s may run concurrently with %s's access with no common lock (fatal error: concurrent map %s)",
						c.expr(a), c.fn(a), c.fn(b), what), roles,
					"the two accesses are concurrent and hold no common lock")
			}
		}
	}
}

func mapRole(k trace.Kind) string {
	switch k {
	case trace.EvMapWrite:
		return finding.RoleMapWrite
	case trace.EvMapIter:
		return finding.RoleMapRange
	}
	return finding.RoleMapRead
}
