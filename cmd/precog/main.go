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
	"path/filepath"

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
		labelCategories(checks)
		unitchecker.Main(checks...) // does not return
	}
	// Every temporary directory of precog, and of the go commands and
	// test processes it runs, goes into one of its own (TMPDIR and
	// GOTMPDIR), removed on every way out: at the end, or when a signal
	// ends precog before its commands have cleaned up (a checker busy on
	// a trace, a second signal). A run of precog test can hold gigabytes
	// there (3.5 GB of traces from one smux run). A GOTMPDIR the user set
	// stays the go commands' parent directory, and precog's directory in
	// it is named as the other (tmpPrefix). What a killed precog left in
	// either is removed first (sweepStale).
	var tmps []string
	cleanup := func() {
		for _, d := range tmps {
			os.RemoveAll(d)
		}
	}
	sweepStale(os.TempDir())
	if root, err := os.MkdirTemp("", tmpPrefix()); err == nil {
		tmps = append(tmps, root)
		os.Setenv("TMPDIR", root)
		if user := os.Getenv("GOTMPDIR"); user != "" {
			sweepStale(user)
			if gotmp, err := os.MkdirTemp(user, tmpPrefix()); err == nil {
				tmps = append(tmps, gotmp)
				os.Setenv("GOTMPDIR", gotmp)
			}
		} else if gotmp := filepath.Join(root, "go"); os.Mkdir(gotmp, 0o700) == nil {
			os.Setenv("GOTMPDIR", gotmp)
		}
	}
	ctx, stop := cli.WithSignals(context.Background(), cli.Signals{Cleanup: cleanup, Stderr: os.Stderr})
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
	cleanup()
	os.Exit(code)
}
