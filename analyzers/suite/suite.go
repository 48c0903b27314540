// Package suite lists precog's check analyzers in a stable order. Every
// driver (go vet -vettool, precog vet, the golangci-lint plugin) takes its
// analyzers from here, so they all report the same things.
package suite

import "golang.org/x/tools/go/analysis"

// Checks returns precog's check analyzers, in a stable order. Each reports
// diagnostics whose Category is the check's stable ID (for example
// "con-null"); building blocks are reached through their Requires.
func Checks() []*analysis.Analyzer {
	return []*analysis.Analyzer{}
}
