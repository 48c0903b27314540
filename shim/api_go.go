package shim

import (
	"context"
	"sync"
	"unsafe"

	"github.com/precog-dev/precog/shim/trace"
)

// Go runs in the parent just before an instrumented go statement. It assigns
// the child's logical id, records a Fork event and returns the id for Begin.
func Go(site uint32) uint64 {
	if !enabled {
		return 0
	}
	return fork(site, trace.EvFork, nil)
}

// Begin is the first statement of an instrumented goroutine: it binds the
// running goroutine to the logical id its parent got from Go.
func Begin(id uint64) {
	if !enabled {
		return
	}
	begin(id)
}

// End is deferred right after Begin: it records End and releases the
// goroutine's state.
func End() {
	if !enabled {
		return
	}
	end()
}

// WGGo is sync.WaitGroup.Go (Go 1.25) written with Add and Done, so that the
// shim also builds with older toolchains: fork, then Begin/End around f.
func WGGo(site uint32, wg *sync.WaitGroup, f func()) {
	WGAdd(site, wg, 1)
	id := Go(site)
	go func() {
		Begin(id)
		defer End()
		defer WGDone(site, wg)
		f()
	}()
}

// ContextAfterFunc replaces context.AfterFunc(ctx, f), a fork in all but
// name: once ctx is done, the context package runs f in a goroutine of its
// own, which no instrumented go statement starts. It records the fork
// (EvFork) at the AfterFunc call and f's run begins it, so detect/hb
// orders f after what the caller did before the call (paho's Connect
// registers its shutdown, which reads the logger the test set before
// Connect: without the fork, a goroutine with no parent, racing with
// all). A stop that returns true kept f from running: the fork then has
// no goroutine, as a timer's stopped before it fired. The fork is all
// it orders: the cancel that made ctx done, which also comes before f,
// is not matched with it (order lost, never invented).
func ContextAfterFunc(site uint32, ctx context.Context, f func()) (stop func() bool) {
	if !enabled {
		return context.AfterFunc(ctx, f)
	}
	id := fork(site, trace.EvFork, nil)
	return context.AfterFunc(ctx, func() {
		Begin(id)
		defer End()
		f()
	})
}

// Task wraps f, about to be handed to a group's Go method (errgroup, conc),
// as a fork of a task: TaskGo in the parent now, Begin/End around f.
func Task(site uint32, group unsafe.Pointer, f func()) func() {
	if !enabled {
		return f
	}
	id := fork(site, trace.EvTaskGo, group)
	return func() {
		Begin(id)
		defer End()
		f()
	}
}

// TaskErr is Task for functions returning an error (errgroup.Group.Go).
func TaskErr(site uint32, group unsafe.Pointer, f func() error) func() error {
	if !enabled {
		return f
	}
	id := fork(site, trace.EvTaskGo, group)
	return func() error {
		Begin(id)
		defer End()
		return f()
	}
}

// Waited records the join of a group whose Wait has just returned.
func Waited(site uint32, group unsafe.Pointer) {
	if !enabled {
		return
	}
	syncBefore(site, trace.EvTaskWait, group, 0)
}

// WaitedErr is Waited for a Wait that returns an error; it returns err.
func WaitedErr(site uint32, group unsafe.Pointer, err error) error {
	if enabled {
		syncBefore(site, trace.EvTaskWait, group, 0)
	}
	return err
}
