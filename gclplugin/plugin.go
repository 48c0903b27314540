// Package gclplugin is precog's golangci-lint module plugin: it registers
// the linter "precog", which runs the same check analyzers as precog vet
// and go vet -vettool=precog (analyzers/suite), with type information.
//
// It lives in a Go module of its own so that golangci-lint's dependencies
// never enter precog's go.mod. golangci-lint is GPL-3.0: precog ships this
// plugin and a recipe for building golangci-lint with it (the module in
// ./golangci-lint), never a combined binary.
//
// # Settings
//
// The settings mirror precog vet's flags, without the dash: a check's name
// turns it on or off, with go vet's rule (if any check is turned on, only
// those run; otherwise all run but those turned off), and NAME.FLAG sets a
// check's own flag, as precog vet's -NAME.FLAG does:
//
//	linters:
//	  settings:
//	    custom:
//	      precog:
//	        type: module
//	        settings:
//	          conmap: false     # precog vet -conmap=false
//	          limits.time: 2m   # precog vet -limits.time=2m
//
// The setting all: true shows the diagnostics of low confidence too, as
// precog vet -all does (see precog help vet, "Confidence"); CHECK.all does
// it for one check.
//
// As under precog vet, the budget's time and memory limits (limits.time,
// limits.mem) are off unless set, since golangci-lint analyzes packages
// in parallel in one process; the work limit (limits.work) holds.
//
// An unknown name or a value the flag rejects is an error that stops
// golangci-lint, naming the setting.
package gclplugin

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/golangci/plugin-module-register/register"
	"golang.org/x/tools/go/analysis"

	"github.com/precog-dev/precog/analyzers/suite"
)

func init() {
	register.Plugin("precog", New)
}

// New makes the plugin from its settings, as golangci-lint decoded them
// from its configuration (nil when there are none).
func New(settings any) (register.LinterPlugin, error) {
	set, err := register.DecodeSettings[map[string]value](settings)
	if err != nil {
		return nil, fmt.Errorf("precog settings: %w", err)
	}
	checks, err := configure(suite.Checks(), set)
	if err != nil {
		return nil, fmt.Errorf("precog settings: %w", err)
	}
	return plugin{checks}, nil
}

type plugin struct {
	checks []*analysis.Analyzer
}

func (p plugin) BuildAnalyzers() ([]*analysis.Analyzer, error) { return p.checks, nil }

// GetLoadMode asks for type information: the checks need go/types and
// SSA, and golangci-lint then also runs spawnfacts on the dependencies
// for the facts the checks import.
func (plugin) GetLoadMode() string { return register.LoadModeTypesInfo }

// configure applies the settings to checks' flags and returns the checks
// they select. Keys are sorted first, so that the first error reported is
// the same on every run.
func configure(checks []*analysis.Analyzer, settings map[string]value) ([]*analysis.Analyzer, error) {
	byName := make(map[string]*analysis.Analyzer)
	for _, a := range checks {
		byName[a.Name] = a
	}
	keys := make([]string, 0, len(settings))
	for k := range settings {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	// golangci-lint analyzes packages in parallel in one process; settings
	// given below override these.
	for name, v := range suite.SharedProcessFlags {
		check, flag, _ := strings.Cut(name, ".")
		if a, ok := byName[check]; ok && a.Flags.Lookup(flag) != nil {
			if err := a.Flags.Set(flag, v); err != nil {
				return nil, fmt.Errorf("setting %s to %s: %w", name, v, err)
			}
		}
	}
	enabled := make(map[string]bool)
	for _, k := range keys {
		v := settings[k]
		if k == "all" {
			if err := suite.All(checks).Set(string(v)); err != nil {
				return nil, fmt.Errorf("setting all: %w", err)
			}
			continue
		}
		name, flag, isFlag := strings.Cut(k, ".")
		a, ok := byName[name]
		if !ok {
			return nil, fmt.Errorf("unknown setting %q: want a check (%s), all or CHECK.FLAG", k, strings.Join(slices.Sorted(maps.Keys(byName)), ", "))
		}
		if !isFlag {
			on, err := strconv.ParseBool(string(v))
			if err != nil {
				return nil, fmt.Errorf("setting %s: want true or false, not %s", k, v)
			}
			enabled[name] = on
			continue
		}
		if a.Flags.Lookup(flag) == nil {
			return nil, fmt.Errorf("unknown setting %q: check %s has no flag %s", k, name, flag)
		}
		if err := a.Flags.Set(flag, string(v)); err != nil {
			return nil, fmt.Errorf("setting %s: invalid value %q: %w", k, string(v), err)
		}
	}
	return suite.Select(checks, enabled), nil
}

// A value is a setting's value as text, the way a command-line flag gets
// it, whether the YAML gave a string, a number or a boolean: golangci-lint
// hands the settings over as JSON, where 30s is a string and 5000 a number.
type value string

func (v *value) UnmarshalJSON(data []byte) error {
	if bytes.HasPrefix(data, []byte(`"`)) {
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return err
		}
		*v = value(s)
		return nil
	}
	if bytes.HasPrefix(data, []byte("{")) || bytes.HasPrefix(data, []byte("[")) || string(data) == "null" {
		return fmt.Errorf("want a string, number or boolean, not %s", data)
	}
	*v = value(data)
	return nil
}
