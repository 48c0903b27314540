package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/precog-dev/precog/internal/exehash"
)

// VersionCommand returns the "version" command.
func VersionCommand() *Command {
	return &Command{
		Name:    "version",
		Summary: "print precog's version and build ID",
		Doc: `Version prints one line: precog's module version, the Go version that built
it, and a hash of the executable.

For example:

	precog version v0.3.0 go1.26.0 buildID=9f86d081884c7d65...

"precog -V=full" prints the same line. go vet -vettool runs it to key its
cache of precog's results, so a rebuilt precog never reuses stale ones.
`,
		Define: func(*flag.FlagSet) Runner {
			return func(_ context.Context, env *Env, args []string) (int, error) {
				if len(args) > 0 {
					return ExitUsage, Usagef("version takes no arguments")
				}
				return ExitOK, printVersion(env.Stdout)
			}
		},
	}
}

// Version returns precog's module version: a semantic version when built
// with "go install ...@version" or from a version-stamped checkout, and
// "(devel)" otherwise.
func Version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// printVersion writes the line of "precog version" and "precog -V=full".
// Its shape follows what go vet expects of -V=full: "NAME version VERSION
// ... buildID=ID". When VERSION contains "devel" go vet keys its cache on
// the build ID alone, otherwise on the whole line; the executable's hash
// makes either key change whenever the binary does.
func printVersion(w io.Writer) error {
	id, err := exehash.Sum()
	if err != nil {
		return fmt.Errorf("computing build ID: %w", err)
	}
	_, err = fmt.Fprintf(w, "precog version %s %s buildID=%s\n", Version(), runtime.Version(), id)
	return err
}
