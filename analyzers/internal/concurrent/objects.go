package concurrent

import (
	"slices"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/goroutines"
	"github.com/precog-dev/precog/analyzers/internal/ssavalue"
	"github.com/precog-dev/precog/analyzers/pointsto"
	"github.com/precog-dev/precog/analyzers/sharedloc"
)

// maxObjectDepth bounds how many call sites objects follows a parameter
// through before falling back to the context-insensitive points-to set.
const maxObjectDepth = 4

type objKey struct {
	v ssa.Value
	c *goroutines.Context
}

// viewObjects returns the objects that access a touches on view v, when it
// runs in context c.
func (e *Env) viewObjects(a *sharedloc.Access, v View, c *goroutines.Context) []pointsto.Obj {
	if v.Arg == nil {
		return e.Objects(a.Ptr, c)
	}
	objs := e.Objects(v.Arg, c)
	if v.Field == nil {
		return objs
	}
	out := make([]pointsto.Obj, len(objs))
	for i, o := range objs {
		if o.Field == nil {
			o.Field = v.Field
		}
		out[i] = o
	}
	return out
}

// Objects returns the objects the pointer v may point to when its function
// runs in context c. It refines the points-to set of v by following
// parameters only to the call sites that run in c (and, for a goroutine's
// entry, to its spawn site), so that objects made by two unrelated tests
// or requests are told apart.
func (e *Env) Objects(v ssa.Value, c *goroutines.Context) []pointsto.Obj {
	return e.objects(v, c, maxObjectDepth)
}

func (e *Env) objects(v ssa.Value, c *goroutines.Context, depth int) []pointsto.Obj {
	if v == nil {
		return nil
	}
	k := objKey{v, c}
	if objs, ok := e.objs[k]; ok {
		return objs
	}
	e.objs[k] = e.PointsTo.PointsTo(v) // cycle guard
	objs := e.refine(v, c, depth)
	e.objs[k] = objs
	return objs
}

func (e *Env) refine(v ssa.Value, c *goroutines.Context, depth int) []pointsto.Obj {
	global := e.PointsTo.PointsTo(v)
	if depth == 0 {
		return global
	}
	withField := func(objs []pointsto.Obj, f any) []pointsto.Obj {
		out := make([]pointsto.Obj, len(objs))
		for i, o := range objs {
			if o.Field == nil {
				switch f := f.(type) {
				case *ssa.FieldAddr:
					o.Field = fieldVar(f)
				default:
					o.Field = pointsto.Elem
				}
			}
			out[i] = o
		}
		return out
	}
	switch v := v.(type) {
	case *ssa.FieldAddr:
		return withField(e.objects(v.X, c, depth), v)
	case *ssa.IndexAddr:
		return withField(e.objects(v.X, c, depth), v)
	case *ssa.ChangeType:
		return e.objects(v.X, c, depth)
	case *ssa.MakeInterface:
		return e.objects(v.X, c, depth)
	case *ssa.TypeAssert:
		return e.objects(v.X, c, depth)
	case *ssa.Slice:
		return e.objects(v.X, c, depth)
	case *ssa.FreeVar:
		if b := ssavalue.Binding(v); b != nil {
			var out []pointsto.Obj
			for _, pc := range e.Goroutines.Of(b.Parent()) {
				out = appendObjs(out, e.objects(b, pc, depth-1))
			}
			return out
		}
	case *ssa.Parameter:
		return e.paramObjects(v, c, depth)
	}
	return global
}

// paramObjects follows parameter p to the arguments of the calls that run
// in context c, or for c's entry to its spawn site.
func (e *Env) paramObjects(p *ssa.Parameter, c *goroutines.Context, depth int) []pointsto.Obj {
	fn := p.Parent()
	idx := slices.Index(fn.Params, p)
	global := e.PointsTo.PointsTo(p)
	if idx < 0 {
		return global
	}
	argOf := func(site ssa.CallInstruction) (ssa.Value, bool) {
		common := site.Common()
		i := idx
		if common.IsInvoke() {
			if i == 0 {
				return common.Value, true
			}
			i--
		}
		if i >= len(common.Args) {
			return nil, false
		}
		return common.Args[i], true
	}
	if fn == c.Entry {
		if c.Site == nil || c.Kind == goroutines.Caller {
			return global
		}
		arg, ok := argOf(c.Site)
		if !ok || c.Site.Common().StaticCallee() != fn && !c.Site.Common().IsInvoke() {
			return global
		}
		var out []pointsto.Obj
		for _, pc := range e.Goroutines.Of(c.Site.Parent()) {
			out = appendObjs(out, e.objects(arg, pc, depth-1))
		}
		return out
	}
	var out []pointsto.Obj
	found := false
	for _, edge := range e.Goroutines.CallGraph.Callers(fn) {
		if _, isGo := edge.Site.(*ssa.Go); isGo || !slices.Contains(e.Goroutines.Of(edge.Caller.Func), c) {
			continue
		}
		arg, ok := argOf(edge.Site)
		if !ok {
			return global
		}
		found = true
		out = appendObjs(out, e.objects(arg, c, depth-1))
	}
	if !found || len(e.Goroutines.RefSites(fn)) > 0 {
		return global
	}
	return out
}

func appendObjs(out []pointsto.Obj, objs []pointsto.Obj) []pointsto.Obj {
	for _, o := range objs {
		if !slices.Contains(out, o) {
			out = append(out, o)
		}
	}
	return out
}
