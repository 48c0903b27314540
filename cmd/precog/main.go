// Command precog finds the concurrency bugs that crash Go programs.
//
// Run "precog help" for its commands. precog is also a go vet tool:
//
//	go vet -vettool=$(command -v precog) ./...
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/precog-dev/precog/analyzers/suite"
	"github.com/precog-dev/precog/cmd/precog/internal/cli"
	"github.com/precog-dev/precog/cmd/precog/internal/covercmd"
	"github.com/precog-dev/precog/cmd/precog/internal/explaincmd"
	"github.com/precog-dev/precog/cmd/precog/internal/hwreplaycmd"
	"github.com/precog-dev/precog/cmd/precog/internal/mergecmd"
	"github.com/precog-dev/precog/cmd/precog/internal/recordcmd"
	"github.com/precog-dev/precog/cmd/precog/internal/reprocmd"
	"github.com/precog-dev/precog/cmd/precog/internal/testcmd"
	"github.com/precog-dev/precog/cmd/precog/internal/tracecmd"
	"github.com/precog-dev/precog/cmd/precog/internal/vetcmd"
	"golang.org/x/tools/go/analysis/unitchecker"
)

func main() {
	checks := suite.Checks()
	if cli.IsVetTool(os.Args[1:]) {
		if cli.FactsOnly(os.Args[1:]) {
			args, err := cli.Speak(os.Args[1:])
			if err != nil {
				fmt.Fprintf(os.Stderr, "precog: %v\n", err)
				os.Exit(1)
			}
			os.Args = append(os.Args[:1], args...)
			unitchecker.Main(suite.FactsOnly()...) // does not return
		}
		unitchecker.Main(checks...) // does not return
	}
	ctx, stop := cli.WithSignals(context.Background())
	// The go commands precog runs put their work directories in one of
	// precog's, removed at the end: a go command stopped by a signal
	// (precog interrupted) leaves its own behind.
	gotmp, err := os.MkdirTemp(os.Getenv("GOTMPDIR"), "precog-go-")
	if err == nil {
		os.Setenv("GOTMPDIR", gotmp)
	}
	code := cli.Main(ctx, cli.ProcessEnv(), []*cli.Command{
		vetcmd.Command(checks, suite.IDs),
		testcmd.Command(),
		covercmd.Command(),
		recordcmd.Command(),
		reprocmd.Command(),
		explaincmd.Command(),
		mergecmd.Command(),
		tracecmd.Command(),
		hwreplaycmd.Command(),
		cli.VersionCommand(),
	}, os.Args[1:])
	stop()
	if gotmp != "" {
		os.RemoveAll(gotmp)
	}
	os.Exit(code)
}
