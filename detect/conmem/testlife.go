package conmem

import (
	"fmt"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/shim/trace"
)

// testLife reports Con-Dangling on a test's lifetime: the testing package
// releases a test's T when the test has completed, and a later t.Log (or
// Logf, Error, Fatal, Skip, Fail ...) panics "Log in goroutine after TestX
// has completed". The shim names each test's T by a read of it at site 0
// right after TestStart, and records each such call (shim.TestLog, also
// through testing.TB or any interface the T was passed as) as a read of
// the T at its site. A call on another goroutine than the test's own that
// does not happen before the test's end (EvTestEnd), in the memory
// model's order (TestLifetime), is reported. Go panics
// only once the test's parents are done too, so a call that lands while
// the binary's other tests still run goes to the parent's output: the
// finding says it may panic. Only a goroutine's first such call is: the
// calls after it on that goroutine come after it in program order, so they
// are not ordered before the end either, and the first one's panic ends
// the goroutine before they run (resty's handlers logged at four or five
// lines each, every line a finding of the one cause).
func (c *checker) testLife() {
	g := c.g
	type life struct {
		g, start, end int
	}
	lives := make(map[uint64]*life) // by the address of the T
	var order []*life
	start := make(map[int]int) // goroutine: its last TestStart
	for i, ev := range g.Events {
		gi := g.Goroutine(i)
		switch ev.Kind {
		case trace.EvTestStart:
			start[gi] = i
		case trace.EvRead:
			if s, ok := start[gi]; ok && ev.Site == 0 {
				l := &life{g: gi, start: s, end: -1}
				lives[ev.Addr] = l
				order = append(order, l)
			}
		case trace.EvTestEnd:
			for _, l := range order {
				if l.g == gi && l.end < 0 {
					l.end = i
				}
			}
		}
	}
	if len(lives) == 0 {
		return
	}
	type goroutineLife struct {
		g int
		l *life
	}
	first := make(map[goroutineLife]bool) // a goroutine's first call past a test's end was seen
	for i, ev := range g.Events {
		if ev.Kind != trace.EvRead || ev.Site == 0 {
			continue
		}
		l := lives[ev.Addr]
		if l == nil || l.end < 0 || g.Goroutine(i) == l.g || g.HappensBefore(i, l.end) {
			continue
		}
		k := goroutineLife{g.Goroutine(i), l}
		if first[k] {
			continue
		}
		first[k] = true
		roles := []role{{ev: i, role: finding.RoleLog}}
		if c.reported(finding.ConClosed, roles) {
			continue
		}
		test := g.Events[l.start].Name
		c.report(finding.ConClosed,
			fmt.Sprintf("%s in %s may run after %s has completed, and then it panics (Log in goroutine after %s has completed); the test should wait for the goroutine",
				c.expr(i), c.fn(i), test, test),
			roles, fmt.Sprintf("the call does not happen before the end of %s (its cleanup), which released its T", test))
	}
}
