package analyzerutil

import (
	"go/ast"
	"go/token"
	"reflect"

	"golang.org/x/tools/go/analysis"

	"github.com/precog-dev/precog/detect/finding"
)

// A RoleAt is one site of a bug a check reports: a position and its role,
// one of finding's Role constants.
type RoleAt struct {
	Role string
	Pos  token.Pos
}

// Sites is the result of precog's checks: for each diagnostic a check
// reported, the sites of its bug in the roles of the finding catalog. A
// diagnostic has a position and evidence messages but no place for roles,
// and a driver needs them to give a static finding the ID that the
// runtime finding of the same bug gets (finding.ID). go vet ignores it.
type Sites struct {
	m map[sitesKey][]finding.Site
}

type sitesKey struct {
	pos token.Pos
	msg string
}

// SitesType is the ResultType of the checks that return Sites.
var SitesType = reflect.TypeOf((*Sites)(nil))

// NoSites returns an empty Sites, the result of a check that panicked
// (for Guard).
func NoSites() any { return new(Sites) }

// Add records the sites of diagnostic d, reported on the package of
// files, with the function declarations they are in (finding.ID counts
// lines from there, as it does for the sites of a run).
func (s *Sites) Add(fset *token.FileSet, files []*ast.File, d analysis.Diagnostic, roles []RoleAt) {
	if len(roles) == 0 {
		return
	}
	if s.m == nil {
		s.m = make(map[sitesKey][]finding.Site)
	}
	sites := make([]finding.Site, len(roles))
	for i, r := range roles {
		p := fset.Position(r.Pos)
		sites[i] = finding.Site{File: p.Filename, Line: p.Line, Col: p.Column, Role: r.Role}
		if f := FileAt(files, r.Pos); f != nil {
			finding.InDecl(&sites[i], fset, f, r.Pos)
		}
	}
	s.m[sitesKey{d.Pos, d.Message}] = sites
}

// Of returns the sites recorded for diagnostic d, or nil.
func (s *Sites) Of(d analysis.Diagnostic) []finding.Site {
	if s == nil {
		return nil
	}
	return s.m[sitesKey{d.Pos, d.Message}]
}

// FileAt returns the file of files that holds pos, or nil.
func FileAt(files []*ast.File, pos token.Pos) *ast.File {
	for _, f := range files {
		if f.FileStart <= pos && pos <= f.FileEnd {
			return f
		}
	}
	return nil
}
