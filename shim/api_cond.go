package shim

import (
	"sync"
	"unsafe"

	"github.com/precog-dev/precog/shim/trace"
)

// Conditions polled on goroutines of their own: testify's Eventually,
// EventuallyWithT and Never (and their f variants and methods) run the
// condition on a new goroutine per tick and hand its result back on a
// channel, all inside testify, which is not instrumented. The order they
// give, read off testify v1.11.1's assert/assertions.go: the caller's
// code before the call is before every run (the runs start after the
// call began); a run starts only after the caller received the previous
// run's result (the ticker is re-armed on the receive), so runs are one
// after the other; and a run whose result the caller received is before
// the caller's code after the call.
//
// The model, with the events of a task group (no new trace event): the
// call's group is the condRuns of the call. CondBool (or CondWith) runs
// in the caller, as the argument is evaluated, and forks the first run as
// a task of the group (EvTaskGo); when arguments that are not constants
// follow the condition (the message's: "pending=%d", pending), the
// instrumenter wraps it with CondBoolLate (CondWithLate) instead and the
// last of them with CondFork, which forks the first run there: Go
// evaluates the arguments, with their calls left to right, before the call
// begins, so whatever the caller recorded while evaluating them is before
// every run in every execution (testify starts the first run inside the
// call; the caller records nothing after its last argument that is not
// a constant and before the call). Each run begins as the task forked
// for it and, before it ends, forks the next run as a task of the group,
// so run k+1 is ordered after run k's end; CondWaited, after the call
// returned, is the group's EvTaskWait, which acquires the end of every
// run that had ended. A run that ended while the call was returning (its
// result in the channel but not received: a timeout in the instant after
// the run) is taken as received: that only orders what testify leaves
// unordered in that instant. The fork that the last run makes for a run
// that never comes stays unmatched, as a go statement whose goroutine had
// not started when the trace ended.

// condRuns is one call's condition: the id of its next run.
type condRuns struct {
	site uint32
	mu   sync.Mutex
	next uint64 // the logical id forked for the next run
	has  bool   // next is forked and no run took it yet
	// forked: the first run is forked (CondFork's business when the
	// condition was wrapped late); read and set by the caller only.
	forked bool
}

// newCondRuns pushes the group for CondFork and CondWaited and, if now,
// forks the first run in the caller.
func newCondRuns(site uint32, now bool) *condRuns {
	c := &condRuns{site: site}
	if now {
		c.forkFirst()
	}
	g := cur()
	g.conds = append(g.conds, c)
	return c
}

// forkFirst forks the first run, in the caller.
func (c *condRuns) forkFirst() {
	id := fork(c.site, trace.EvTaskGo, unsafe.Pointer(c))
	c.mu.Lock()
	c.next, c.has, c.forked = id, true, true
	c.mu.Unlock()
}

// CondFork returns x, the last argument that is not a constant of a call
// whose condition CondBoolLate or CondWithLate wrapped at site, after
// forking that condition's first run: the latest condition of the running
// goroutine at site whose first run is not forked yet.
func CondFork[T any](site uint32, x T) T {
	if enabled {
		condFork(site)
	}
	return x
}

func condFork(site uint32) {
	g := cur()
	for i := len(g.conds) - 1; i >= 0; i-- {
		if c := g.conds[i]; c.site == site && !c.forked {
			c.forkFirst()
			return
		}
	}
}

// begin binds the running goroutine to the run forked for it; false if
// there is none (the wrapper called twice at once, not testify's way).
func (c *condRuns) begin() bool {
	c.mu.Lock()
	id, ok := c.next, c.has
	c.has = false
	c.mu.Unlock()
	if ok {
		begin(id)
	}
	return ok
}

// end forks the next run and ends this one.
func (c *condRuns) end() {
	id := fork(c.site, trace.EvTaskGo, unsafe.Pointer(c))
	c.mu.Lock()
	c.next, c.has = id, true
	c.mu.Unlock()
	end()
}

// CondWaited runs in the caller after the call that got the condition
// returned: the join of the runs that ended. It returns ok (the call's
// result).
func CondWaited(site uint32, ok bool) bool {
	if enabled {
		condWaited(site)
	}
	return ok
}

// CondReturned is CondWaited for a call without a result (require's).
func CondReturned(site uint32) {
	if enabled {
		condWaited(site)
	}
}

func condWaited(site uint32) {
	g := cur()
	n := len(g.conds)
	if n == 0 {
		return
	}
	c := g.conds[n-1]
	g.conds[n-1] = nil
	g.conds = g.conds[:n-1]
	syncBefore(site, trace.EvTaskWait, unsafe.Pointer(c), 0)
}
