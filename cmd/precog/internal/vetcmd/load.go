package vetcmd

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/precog-dev/precog/pipeline/static"
)

// load loads the packages matching patterns in dir. Packages that fail are
// described in the program's Errors rather than returned as an error, so
// that the others are still checked; the error result is for failures of
// the load itself.
func load(ctx context.Context, dir string, o options, patterns []string) (*static.Program, error) {
	// Checks that use facts need every package of the import graph: it
	// is loaded lazily, and analysed a package at a time in dependency
	// order, so that vet's peak memory is that of a few packages, not of
	// the program. Like go vet's own driver, checks that use no facts
	// need syntax only for the root packages, and their dependencies load
	// from export data.
	cfg := static.Config{Dir: dir, Patterns: patterns, Tests: o.tests, Lazy: static.NeedFacts(o.checks)}
	if o.tags != "" {
		cfg.BuildFlags = []string{"-tags=" + o.tags}
	}
	return static.Load(ctx, cfg)
}

// loadErrors returns one line per package that failed to load or
// type-check, once prog is analysed. With tests loaded, a line whose
// first error is in a test file says that -test=false checks the package
// without them: its test variant, which holds the package's own code
// too, was not checked (held-out rehearsal 44: govici's tests call
// synctest.Run, gone in Go 1.26).
func loadErrors(prog *static.Program, tests bool) []string {
	errs := prog.Errors
	if len(errs) == 0 {
		if i := slices.IndexFunc(prog.Packages, func(p *packages.Package) bool { return p.IllTyped }); i >= 0 {
			// go/packages marks a package ill-typed when a dependency is;
			// that dependency's error is normally printed instead.
			errs = []string{fmt.Sprintf("package %s: not checked because it or a dependency has errors", prog.Packages[i].PkgPath)}
		}
	}
	if !tests {
		return errs
	}
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = e
		if _, rest, ok := strings.Cut(e, ": "); ok {
			if file, _, _ := strings.Cut(rest, ":"); strings.HasSuffix(file, "_test.go") {
				out[i] += " (its tests do not type-check; precog vet -test=false checks the package without them)"
			}
		}
	}
	return out
}
