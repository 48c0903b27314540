package static

import (
	"context"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"
)

// Analyze runs analyzers over pkgs (and, as far as the analyzers require
// it, their dependencies) and calls visit with every action: one per
// analyzer and package, root or not, dependencies before their dependents.
// An action on a root package (act.IsRoot) carries the diagnostics and the
// result of a requested analyzer; act.Err says whether it failed.
//
// visit is the only way to the results, and it should copy out what it
// needs (positions, messages, the parts of a result it keeps) rather than
// keep the action: an analysis that frees the syntax, types and SSA of a
// package once its dependents are done can then call visit as each package
// finishes, without changing its callers.
func Analyze(analyzers []*analysis.Analyzer, pkgs []*packages.Package, visit func(*checker.Action)) error {
	if len(analyzers) == 0 || len(pkgs) == 0 {
		return nil
	}
	graph, err := checker.Analyze(analyzers, pkgs, nil)
	if err != nil {
		return err
	}
	for act := range graph.All() {
		visit(act)
	}
	return nil
}

// Analyze runs analyzers over the program's well-typed packages, as the
// package-level Analyze does, and calls visit with every action.
//
// A program loaded with Config.Lazy is parsed, type-checked and analysed
// here, a package at a time in dependency order, on GOMAXPROCS workers
// (see ordered): visit is called, from the calling goroutine, with the
// actions of each package once they are all done, requirements first and
// after the actions of the package's imports, but otherwise in no fixed
// order. act.Package carries the package's syntax, types and types.Info
// during the call only, and positions in act.Package.Fset resolve only
// then, unless Keep keeps it. A package that fails to parse or
// type-check, or imports one that does, is not analysed: it is marked IllTyped, with its errors in
// Errors, and p.Errors is brought up to date.
func (p *Program) Analyze(ctx context.Context, analyzers []*analysis.Analyzer, visit func(*checker.Action)) error {
	if !p.lazy {
		var pkgs []*packages.Package
		for _, pkg := range p.Packages {
			if !pkg.IllTyped {
				pkgs = append(pkgs, pkg)
			}
		}
		return Analyze(analyzers, pkgs, visit)
	}
	if err := analysis.Validate(analyzers); err != nil {
		return err
	}
	roots := p.Packages
	if p.Roots != nil {
		roots = p.Roots
	}
	o := newOrdered(analyzers, roots)
	o.progress, o.keep = p.Progress, p.Keep
	if p.FactCache != "" {
		o.cache = newFactCache(p.FactCache, o.analyzers)
	}
	err := o.analyze(ctx, visit)
	p.Errors = packageErrors(p.dir, p.Packages)
	return err
}

// NeedFacts reports whether any of the analyzers, or any they require, use
// facts, which must then be computed from the syntax of every dependency
// (Config.AllSyntax).
func NeedFacts(analyzers []*analysis.Analyzer) bool {
	seen := make(map[*analysis.Analyzer]bool)
	var visit func([]*analysis.Analyzer) bool
	visit = func(as []*analysis.Analyzer) bool {
		for _, a := range as {
			if seen[a] {
				continue
			}
			seen[a] = true
			if len(a.FactTypes) > 0 || visit(a.Requires) {
				return true
			}
		}
		return false
	}
	return visit(analyzers)
}
