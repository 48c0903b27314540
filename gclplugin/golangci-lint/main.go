// Command golangci-lint is golangci-lint with precog's module plugin
// compiled in: what "golangci-lint custom" would build from
// .custom-gcl.yml, made from the module proxy alone. "custom" clones
// golangci-lint's repository, adds a blank import of each plugin to a
// copy of its main package and builds that; this module imports
// golangci-lint's command package instead, so "go build" needs nothing
// but the proxy. Build it with
//
//	go -C gclplugin/golangci-lint build -o "$(go env GOPATH)/bin/golangci-lint" .
//
// and run it as golangci-lint, with a configuration that enables the
// linter "precog" (see .golangci.yml beside this file).
//
// golangci-lint is GPL-3.0: build the binary for your own use, and do
// not ship it with precog.
package main

import (
	"fmt"
	"os"
	"runtime/debug"
	"strings"

	"github.com/golangci/golangci-lint/v2/pkg/commands"
	"github.com/golangci/golangci-lint/v2/pkg/exitcodes"

	_ "github.com/precog-dev/precog/gclplugin"
)

func main() {
	if err := commands.Execute(buildInfo()); err != nil {
		fmt.Fprintf(os.Stderr, "The command is terminated due to an error: %v\n", err)
		os.Exit(exitcodes.Failure)
	}
}

// buildInfo names the golangci-lint version this binary was built from,
// with "+precog" so that its version line and cache keys tell it from a
// stock build.
func buildInfo() commands.BuildInfo {
	info := commands.BuildInfo{Version: "unknown", Commit: "?", Date: "(unknown)"}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return info
	}
	info.GoVersion = bi.GoVersion
	for _, m := range bi.Deps {
		if m.Path == "github.com/golangci/golangci-lint/v2" {
			info.Version = strings.TrimPrefix(m.Version, "v") + "+precog"
		}
	}
	return info
}
