package main

import "golang.org/x/tools/go/analysis"

// labelCategories makes each check's diagnostics end in its category, as
// precog vet prints them ("... [con-null]"): go vet prints a tool's
// diagnostics as "file:line:col: message", with no analyzer name, so a
// user could not tell which check spoke, or which flag (-connull=false)
// turns it off. Since Go 1.26 go vet always runs its tool with -json and
// prints the diagnostics itself, so the tool cannot tell a user's
// go vet -json apart: there the messages end in the category too, beside
// the category field.
//
// It changes the analyzers' Run in place rather than using copies: the
// limits check requires the other checks, and a copy beside the original
// would run each check twice. It is for a process that only runs
// unitchecker (precog as go vet's tool).
func labelCategories(checks []*analysis.Analyzer) {
	for _, a := range checks {
		run := a.Run
		a.Run = func(pass *analysis.Pass) (any, error) {
			report := pass.Report
			p := *pass
			p.Report = func(d analysis.Diagnostic) {
				if d.Category != "" {
					d.Message += " [" + d.Category + "]"
				}
				report(d)
			}
			return run(&p)
		}
	}
}
