package conclosed

import (
	"go/types"
	"slices"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/goroutines"
	"github.com/precog-dev/precog/analyzers/internal/model"
	"github.com/precog-dev/precog/analyzers/internal/ssavalue"
	"github.com/precog-dev/precog/analyzers/sharedloc"
)

// onSubtestsT reports whether the testing call, made in the very function
// that starts g on that function's own T parameter t, runs on g only as
// part of a subtest that a t.Run on g started, with that subtest's own T:
// every run of t's function on g gets as t a subtest body's T parameter,
// handed down through the T parameters of the functions between (up to
// depth calls). The goroutines analysis takes a subtest without
// t.Parallel as run on the goroutine that calls t.Run, since t.Run waits
// for it; but the body runs on a goroutine of its own, the subtest's, and
// a testing call on the subtest's own T from that goroutine cannot come
// after the subtest returned. neo4j's bolt tests start a fake server's
// goroutine in a helper `connect(t, job)`, whose job calls inner.Run with
// a body calling connect(t, ...) again: the nested connect's t.Fatal is
// the nested subtest's, not the t of the connect that started g.
//
// A call through a T captured from elsewhere (the outer test's, in a
// subtest body a goroutine starts), one in a closure of t's function, and
// a run of t's function on g handed any other T keep the report.
func (c *checker) onSubtestsT(call ssa.Instruction, t *ssa.Parameter, g *goroutines.Context, depth int) bool {
	common := call.(*ssa.Call).Common()
	if call.Parent() != t.Parent() || common.IsInvoke() || len(common.Args) == 0 || paramOf(common.Args[0]) != t {
		return false
	}
	return c.subtestT(t, g, depth)
}

// paramOf returns the parameter that v is, directly or read from the
// variable it was stored to, when closures capture it (a subtest's t that
// its job literal uses), and that variable holds nothing else; or nil.
func paramOf(v ssa.Value) *ssa.Parameter {
	switch root := sharedloc.Root(v).(type) {
	case *ssa.Parameter:
		return root
	case *ssa.Alloc:
		stored := ssavalue.StoresTo(root)
		if len(stored) != 1 {
			return nil
		}
		if p, ok := stored[0].(*ssa.Parameter); ok && p.Parent() == root.Parent() {
			return p
		}
	}
	return nil
}

// subtestT reports whether every run on g of t's function gets as t the
// own T of a subtest body that a t.Run on g started, directly or through
// T parameters of the callers between (up to depth calls).
func (c *checker) subtestT(t *ssa.Parameter, g *goroutines.Context, depth int) bool {
	gr := c.env.Goroutines
	fn := t.Parent()
	idx := slices.Index(fn.Params, t)
	if depth == 0 || fn == g.Entry || idx < 0 {
		return false
	}
	onG := func(f *ssa.Function) bool { return slices.Contains(gr.Of(f), g) }
	runs := 0
	for _, site := range gr.RefSites(fn) {
		if !onG(site.Parent()) {
			continue
		}
		// The body's only parameter is the subtest's T.
		if s, ok := model.SpawnerOf(model.CalleeName(site.Common())); !ok || s.Kind != model.Subtest || idx != 0 {
			return false
		}
		runs++
	}
	for _, e := range gr.CallGraph.Callers(fn) {
		if !onG(e.Caller.Func) {
			continue
		}
		if _, isGo := e.Site.(*ssa.Go); isGo {
			continue // another goroutine's entry
		}
		common := e.Site.Common()
		if common.IsInvoke() || idx >= len(common.Args) {
			return false
		}
		q := paramOf(common.Args[idx])
		if q == nil || !types.Identical(q.Type(), t.Type()) || !c.subtestT(q, g, depth-1) {
			return false
		}
		runs++
	}
	return runs > 0
}
