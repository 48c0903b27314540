package vetcmd

import (
	"context"
	"fmt"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/precog-dev/precog/pipeline/static"
)

// loaded is what vet found behind the patterns.
type loaded struct {
	pkgs []*packages.Package // the root packages to check: loaded and well typed
	root string              // the directory SARIF paths are relative to
	errs []string            // one line per package that failed to load or type-check
}

// load loads the packages matching patterns in dir. Packages that fail are
// described in errs rather than returned as an error, so that the others
// are still checked; the error result is for failures of the load itself.
func load(ctx context.Context, dir string, o options, patterns []string) (*loaded, error) {
	// Like go vet's own driver: checks that use no facts need syntax only
	// for the root packages, and their dependencies load from export data.
	cfg := static.Config{Dir: dir, Patterns: patterns, Tests: o.tests, AllSyntax: static.NeedFacts(o.checks)}
	if o.tags != "" {
		cfg.BuildFlags = []string{"-tags=" + o.tags}
	}
	prog, err := static.Load(ctx, cfg)
	if err != nil {
		return nil, err
	}
	l := &loaded{root: prog.Root, errs: prog.Errors}
	for _, p := range prog.Packages {
		if p.IllTyped {
			if len(l.errs) == 0 {
				// go/packages marks a package ill-typed when a dependency is;
				// that dependency's error is normally printed instead.
				l.errs = append(l.errs, fmt.Sprintf("package %s: not checked because it or a dependency has errors", p.PkgPath))
			}
			continue
		}
		l.pkgs = append(l.pkgs, p)
	}
	return l, nil
}

// oneLine joins the lines of a multi-line message, such as a type error
// with its "have ... want ..." detail, into one.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
