// Package suite lists precog's check analyzers in a stable order. Every
// driver (go vet -vettool, precog vet, the golangci-lint plugin) takes its
// analyzers from here, so they all report the same things.
package suite

import (
	"flag"
	"fmt"
	"slices"
	"strconv"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/ctrlflow"

	"github.com/precog-dev/precog/analyzers/conclosed"
	"github.com/precog-dev/precog/analyzers/conindex"
	"github.com/precog-dev/precog/analyzers/conmap"
	"github.com/precog-dev/precog/analyzers/connull"
	"github.com/precog-dev/precog/analyzers/conuninit"
	"github.com/precog-dev/precog/analyzers/internal/suppress"
	"github.com/precog-dev/precog/analyzers/limits"
	"github.com/precog-dev/precog/analyzers/spawnfacts"
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
		limits.Analyzer,
	}
}

// FactsOnly returns the analyzers to run on a package analyzed only for
// the facts its importers need (go vet's VetxOnly mode): the analyzer that
// exports facts, and stand-ins for the checks that keep their names and
// flags (go vet passes the same flags to every invocation) but do nothing.
// unitchecker would otherwise run every check on every dependency, since
// each requires an analyzer with facts (golang.org/issue/43099's
// reversed logic), which costs minutes on the runtime package.
func FactsOnly() []*analysis.Analyzer {
	// ctrlflow's facts say which functions never return (t.Fatal,
	// log.Fatal, a package's own fatal helpers): the checks' SSA form
	// (ssabuild, as buildssa) cuts the control flow after their calls,
	// which the checks' ordering and lock sets follow. precog vet's
	// driver runs it on every dependency since the checks require it
	// through ssabuild; without it here, a
	// read after `select { case <-timeout: t.Fatal(...); case <-done: }`
	// was reported under go vet alone.
	// The stand-ins require both: go vet turns off every analyzer not
	// named when one check is turned on by name (-connull=true), and only
	// what an enabled analyzer requires runs with it.
	facts := []*analysis.Analyzer{spawnfacts.Analyzer, ctrlflow.Analyzer}
	out := slices.Clone(facts)
	for _, a := range Checks() {
		out = append(out, &analysis.Analyzer{
			Name:     a.Name,
			Doc:      a.Doc,
			URL:      a.URL,
			Flags:    a.Flags,
			Requires: facts,
			Run:      func(*analysis.Pass) (any, error) { return nil, nil },
		})
	}
	return out
}

// Select chooses checks as go vet chooses analyzers from its flags: if set
// turns any check on, only the checks it turns on run; otherwise all run
// but those it turns off. set maps analyzer names to the values given
// explicitly; names it lacks were not mentioned. precog vet's -NAME flags
// and the golangci-lint plugin's settings both go through it.
func Select(checks []*analysis.Analyzer, set map[string]bool) []*analysis.Analyzer {
	only := false
	for _, on := range set {
		only = only || on
	}
	var keep []*analysis.Analyzer
	for _, a := range checks {
		on, given := set[a.Name]
		if only && on || !only && (!given || on) {
			keep = append(keep, a)
		}
	}
	return keep
}

// SharedProcessFlags are the values that a driver analyzing many packages
// at once in one process (precog vet, golangci-lint) gives the checks'
// flags, by their -NAME.FLAG names, in place of the defaults meant for go
// vet's process per package. The budget's time and memory limits measure
// the wall time and the growth of the process's heap while a package is
// analyzed: under go vet both are the package's own, but in a shared
// process one package would be stopped for what the others take. The work
// limit holds.
var SharedProcessFlags = map[string]string{"limits.time": "0", "limits.mem": "0"}

// IDs maps each check's analyzer name to its stable ID.
var IDs = map[string]string{
	connull.Analyzer.Name:   connull.ID,
	conuninit.Analyzer.Name: conuninit.ID,
	conclosed.Analyzer.Name: conclosed.ID,
	conindex.Analyzer.Name:  conindex.ID,
	conmap.Analyzer.Name:    conmap.ID,
	limits.Analyzer.Name:    limits.ID,
}

// AllUsage documents the drivers' -all flag.
const AllUsage = "also report diagnostics of low confidence: those that rest on an assumption the analysis cannot check (the message names it)"

// All returns a boolean flag value that sets the "all" flag of every one
// of checks (CHECK.all), so that a driver's single -all shows the
// diagnostics of low confidence of every check: precog vet's -all and the
// golangci-lint plugin's "all" setting. Under go vet -vettool=precog the
// name -all is go vet's (a deprecated flag of unitchecker that does
// nothing), so there each check's CHECK.all is given instead.
func All(checks []*analysis.Analyzer) flag.Value { return allValue(checks) }

type allValue []*analysis.Analyzer

func (v allValue) IsBoolFlag() bool { return true }

func (v allValue) String() string {
	for _, a := range v {
		if f := a.Flags.Lookup(suppress.AllFlag); f != nil && f.Value.String() == "true" {
			return "true"
		}
	}
	return "false"
}

func (v allValue) Set(s string) error {
	if _, err := strconv.ParseBool(s); err != nil {
		return fmt.Errorf("want true or false, not %q", s)
	}
	for _, a := range v {
		if a.Flags.Lookup(suppress.AllFlag) != nil {
			if err := a.Flags.Set(suppress.AllFlag, s); err != nil {
				return err
			}
		}
	}
	return nil
}
