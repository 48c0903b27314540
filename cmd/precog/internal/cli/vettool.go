package cli

import (
	"encoding/json"
	"os"
	"strings"
)

// IsVetTool reports whether args (without the program name) are a call from
// "go vet -vettool=precog", which go vet makes in three steps:
//
//	precog -V=full                      once, to key its cache
//	precog -flags                       once, to learn which flags to pass on
//	precog [flags] .../vet.cfg          once per package, flags included
//
// The last two belong to unitchecker.Main, which must then own the process:
// it parses os.Args with the global flag set and exits. Main answers the
// first itself, so that "precog -V=full" and "precog version" agree. A
// subcommand name never starts with "-" or ends in ".cfg", so the two
// protocols cannot be confused.
func IsVetTool(args []string) bool {
	if len(args) == 0 {
		return false
	}
	if !strings.HasPrefix(args[0], "-") && !strings.HasSuffix(args[0], ".cfg") {
		return false // a subcommand
	}
	for _, a := range args {
		switch a {
		case "-flags", "--flags", "-flags=true", "--flags=true":
			return true
		}
	}
	return strings.HasSuffix(args[len(args)-1], ".cfg")
}

// FactsOnly reports whether a go vet invocation (see IsVetTool) asks only
// for the facts of a dependency: its .cfg file sets VetxOnly.
func FactsOnly(args []string) bool {
	if len(args) == 0 || !strings.HasSuffix(args[len(args)-1], ".cfg") {
		return false
	}
	data, err := os.ReadFile(args[len(args)-1])
	if err != nil {
		return false // unitchecker reports the error
	}
	var cfg struct{ VetxOnly bool }
	return json.Unmarshal(data, &cfg) == nil && cfg.VetxOnly
}
