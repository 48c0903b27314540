package static

import (
	"go/ast"
	"go/build/constraint"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"

	"golang.org/x/tools/go/packages"
)

// tagHint returns, for a package whose first error is go/types'
// "undefined: NAME", a note naming the file of the package's directory
// that declares NAME but that build constraints left out, with the
// constraint: `(dummyPodController is declared in dummy_controller.go,
// which builds only with //go:build test: pass -tags)`. A module's tests
// written for a tag (whereabouts' controlloop tests need -tags test) fail
// to type-check without it, and the error alone does not say why. It
// returns "" when no ignored file declares the name.
func tagHint(p *packages.Package, msg string) string {
	name, ok := strings.CutPrefix(msg, "undefined: ")
	if !ok || !token.IsIdentifier(name) {
		return ""
	}
	for _, file := range p.IgnoredFiles {
		if !strings.HasSuffix(file, ".go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil || !declares(f, name) {
			continue
		}
		x := buildConstraint(f)
		if x == nil {
			continue // left out for its name (_linux.go) or its package clause: no tag brings it in
		}
		pass := "pass -tags with the tags it needs"
		if tag, ok := x.(*constraint.TagExpr); ok {
			pass = "pass -tags " + tag.Tag
		}
		return " (" + name + " is declared in " + filepath.Base(file) + ", which builds only with //go:build " + x.String() + ": " + pass + ")"
	}
	return ""
}

// declares reports whether f declares name at package level.
func declares(f *ast.File, name string) bool {
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.Name == name {
				return true
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if s.Name.Name == name {
						return true
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.Name == name {
							return true
						}
					}
				}
			}
		}
	}
	return false
}

// buildConstraint returns the expression of f's //go:build line, or nil.
func buildConstraint(f *ast.File) constraint.Expr {
	for _, g := range f.Comments {
		if g.Pos() > f.Package {
			break
		}
		for _, c := range g.List {
			if constraint.IsGoBuild(c.Text) {
				if x, err := constraint.Parse(c.Text); err == nil {
					return x
				}
			}
		}
	}
	return nil
}
