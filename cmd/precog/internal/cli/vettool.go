package cli

import (
	"encoding/json"
	"errors"
	"fmt"
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
	cfg, _, err := readConfig(args)
	return err == nil && cfg["VetxOnly"] == true
}

// Speak rewrites the .cfg file of a facts-only invocation (see FactsOnly)
// into a copy beside it, in go vet's work directory, that does not set
// VetxOnly, and returns args naming the copy. In VetxOnly mode
// unitchecker exits with status 1 and no message on every error (a
// dependency's facts file that cannot be read, a type error, a facts file
// that cannot be written), so go vet fails, and every importer's run after
// it, without saying why. The copy makes unitchecker print the error;
// with nothing else changed, the run still writes the facts file, and the
// stand-in checks of a facts-only run (see suite.FactsOnly) report
// nothing.
func Speak(args []string) ([]string, error) {
	cfg, path, err := readConfig(args)
	if err != nil {
		return nil, err
	}
	cfg["VetxOnly"] = false
	// go vet copies a tool's stdout file to its own; outside VetxOnly
	// mode, -json would print an empty result for every dependency there.
	cfg["Stdout"] = os.DevNull
	data, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	out := strings.TrimSuffix(path, ".cfg") + ".facts.cfg"
	if err := os.WriteFile(out, data, 0o666); err != nil {
		return nil, fmt.Errorf("writing the facts-only vet config: %w", err)
	}
	return append(args[:len(args)-1:len(args)-1], out), nil
}

// readConfig reads the .cfg file that ends args, keeping every field.
func readConfig(args []string) (map[string]any, string, error) {
	if len(args) == 0 || !strings.HasSuffix(args[len(args)-1], ".cfg") {
		return nil, "", errors.New("no vet config file")
	}
	path := args[len(args)-1]
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, "", err
	}
	var cfg map[string]any
	if err := json.Unmarshal(data, &cfg); err != nil {
		return nil, "", fmt.Errorf("reading vet config %s: %w", path, err)
	}
	return cfg, path, nil
}
