// Package suite lists precog's check analyzers in a stable order. Every
// driver (go vet -vettool, precog vet, the golangci-lint plugin) takes its
// analyzers from here, so they all report the same things.
package suite

import (
	"golang.org/x/tools/go/analysis"

	"github.com/precog-dev/precog/analyzers/conclosed"
	"github.com/precog-dev/precog/analyzers/conindex"
	"github.com/precog-dev/precog/analyzers/conmap"
	"github.com/precog-dev/precog/analyzers/connull"
	"github.com/precog-dev/precog/analyzers/conuninit"
)

// Checks returns precog's check analyzers, in a stable order. Each reports
// diagnostics whose Category is the check's stable ID (for example
// "con-null"); building blocks are reached through their Requires.
func Checks() []*analysis.Analyzer {
	return []*analysis.Analyzer{
		connull.Analyzer,
		conuninit.Analyzer,
		conclosed.Analyzer,
		conindex.Analyzer,
		conmap.Analyzer,
	}
}

// IDs maps each check's analyzer name to its stable ID.
var IDs = map[string]string{
	connull.Analyzer.Name:   connull.ID,
	conuninit.Analyzer.Name: conuninit.ID,
	conclosed.Analyzer.Name: conclosed.ID,
	conindex.Analyzer.Name:  conindex.ID,
	conmap.Analyzer.Name:    conmap.ID,
}
