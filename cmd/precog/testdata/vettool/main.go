// Command vettool is precog wired to checktest's analyzers instead of the
// suite, so that the tests of cmd/precog can see go vet -vettool carry facts
// across packages and report findings before the suite has checks that
// find anything in a small module. Keep it in step with ../../main.go.
package main

import (
	"context"
	"os"

	"github.com/precog-dev/precog/cmd/precog/internal/cli"
	"github.com/precog-dev/precog/cmd/precog/internal/vetcmd"
	"github.com/precog-dev/precog/internal/checktest"
	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/unitchecker"
)

func main() {
	checks := []*analysis.Analyzer{checktest.GoStmt, checktest.Spawns, checktest.Panics}
	if cli.IsVetTool(os.Args[1:]) {
		unitchecker.Main(checks...) // does not return
	}
	os.Exit(cli.Main(context.Background(), cli.ProcessEnv(), []*cli.Command{
		vetcmd.Command(checks, checktest.IDs),
		cli.VersionCommand(),
	}, os.Args[1:]))
}
