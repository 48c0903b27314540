package conmap

import (
	_ "embed"
	"fmt"
	"go/ast"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/internal/concurrent"
	"github.com/precog-dev/precog/analyzers/internal/source"
	"github.com/precog-dev/precog/analyzers/internal/suppress"
	"github.com/precog-dev/precog/analyzers/sharedloc"
	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/internal/analyzerutil"
)

//go:embed doc.go
var doc string

// ID is the check's stable identifier.
const ID = finding.ConMap

// Analyzer reports concurrent map accesses.
var Analyzer = &analysis.Analyzer{
	Name:       "conmap",
	Doc:        analyzerutil.MustExtractDoc(doc, "conmap"),
	URL:        "https://pkg.go.dev/github.com/precog-dev/precog/analyzers/conmap",
	Requires:   concurrent.Requires,
	Run:        analyzerutil.Guard(run, analyzerutil.NoSites),
	ResultType: analyzerutil.SitesType,
}

func init() { suppress.DefineAll(Analyzer) }

func run(pass *analysis.Pass) (any, error) {
	env := concurrent.New(pass)
	env.AtOnce = true // a map's accesses conflict only at the same time
	rep := suppress.New(pass, ID)
	for _, loc := range env.Shared.Locs() {
		check(env, rep, env.Shared.ByLoc[loc])
	}
	return rep.Finish(), nil
}

// check reports, for each write of one map location, the first access
// of another goroutine that may run at once with it. The writes of one
// function that pair with one access (a type switch's cases that each
// store into the map, against one reader) make one report, at the first
// write, which lists the others, when the reports would assume the same.
func check(env *concurrent.Env, rep *suppress.Reporter, accs []*sharedloc.Access) {
	type key struct {
		fn      *ssa.Function
		partner *sharedloc.Access // nil: the write itself, on another goroutine
		assume  string            // what the report assumes: one confidence per report
	}
	type pending struct {
		p    concurrent.Pair
		also []*sharedloc.Access
	}
	var order []key
	byKey := make(map[key]*pending)
	for _, w := range accs {
		if w.Op != sharedloc.MapUpdate && w.Op != sharedloc.MapDelete {
			continue
		}
		for _, o := range accs {
			if o.Op != sharedloc.MapUpdate && o.Op != sharedloc.MapDelete && o.Op != sharedloc.MapLookup {
				continue
			}
			if p, ok := env.Overlap(w, o, env.Unprotected); ok {
				k := key{w.Fn(), o, env.Assumption(p)}
				if o == w {
					k.partner = nil
				}
				if d := byKey[k]; d != nil {
					d.also = append(d.also, w)
				} else {
					byKey[k] = &pending{p: p}
					order = append(order, k)
				}
				break
			}
		}
	}
	for _, k := range order {
		d := byKey[k]
		report(env, rep, d.p, d.also)
	}
}

func report(env *concurrent.Env, rep *suppress.Reporter, p concurrent.Pair, also []*sharedloc.Access) {
	w, o := p.A, p.B
	m := mapExpr(env, w)
	other := source.FuncName(o.Fn())
	var msg, what string
	if o.Op == sharedloc.MapLookup {
		msg = fmt.Sprintf("concurrent map read and map write: %s is written here and read by %s with no common lock", m, other)
		what = fmt.Sprintf("%s read here by %s", mapExpr(env, o), other)
	} else {
		msg = fmt.Sprintf("concurrent map writes: %s is written here and by %s with no common lock", m, other)
		what = fmt.Sprintf("%s written here by %s", mapExpr(env, o), other)
	}
	if o == w {
		msg = fmt.Sprintf("concurrent map writes: %s is written here by several goroutines with no common lock", m)
		what = "the same write, on another goroutine"
	}
	role := finding.RoleMapWrite
	if o.Op == sharedloc.MapLookup {
		role = finding.RoleMapRead
	}
	related := env.Related(p, what)
	for _, a := range also {
		related = append(related, analysis.RelatedInformation{Pos: a.Pos(), Message: "also written here, against the same access"})
	}
	rep.ReportAssuming(env.Assumption(p), analysis.Diagnostic{Pos: w.Pos(), Message: msg, Related: related},
		analyzerutil.RoleAt{Role: finding.RoleMapWrite, Pos: w.Pos()}, analyzerutil.RoleAt{Role: role, Pos: o.Pos()})
}

// mapExpr renders the map operand of a map access: s.cache in
// s.cache[k] = v, or m in delete(m, k).
func mapExpr(env *concurrent.Env, a *sharedloc.Access) string {
	switch n := source.Node(env.Pass, a.Pos()).(type) {
	case *ast.IndexExpr:
		return source.Render(n.X)
	case *ast.CallExpr:
		if len(n.Args) > 0 {
			return source.Render(n.Args[0])
		}
	}
	return a.Loc.Holder().String()
}
