package gclplugin

import (
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/golangci/plugin-module-register/register"
	"golang.org/x/tools/go/analysis"

	"github.com/precog-dev/precog/analyzers/limits"
	"github.com/precog-dev/precog/analyzers/suite"
)

func names(as []*analysis.Analyzer) string {
	var s []string
	for _, a := range as {
		s = append(s, a.Name)
	}
	return strings.Join(s, " ")
}

// TestRegistered checks that importing the package registers the linter
// under the name .golangci.yml uses, and that with no settings it runs
// every check of precog vet, with type information.
func TestRegistered(t *testing.T) {
	newPlugin, err := register.GetPlugin("precog")
	if err != nil {
		t.Fatal(err)
	}
	p, err := newPlugin(nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.BuildAnalyzers()
	if err != nil {
		t.Fatal(err)
	}
	if names(got) != names(suite.Checks()) {
		t.Errorf("analyzers = %s, want precog vet's %s", names(got), names(suite.Checks()))
	}
	if m := p.GetLoadMode(); m != register.LoadModeTypesInfo {
		t.Errorf("load mode = %q, want %q", m, register.LoadModeTypesInfo)
	}
}

// TestSettings checks the settings as golangci-lint passes them: YAML
// decoded into maps and scalars.
func TestSettings(t *testing.T) {
	for _, tc := range []struct {
		settings map[string]any
		want     string
	}{
		{map[string]any{}, names(suite.Checks())},
		{map[string]any{"limits": false}, "connull conuninit conclosed conindex conmap"},
		{map[string]any{"connull": true, "conmap": "true"}, "connull conmap"},
		{map[string]any{"connull": true, "conmap": false}, "connull"},
	} {
		p, err := New(tc.settings)
		if err != nil {
			t.Errorf("New(%v): %v", tc.settings, err)
			continue
		}
		got, _ := p.BuildAnalyzers()
		if names(got) != tc.want {
			t.Errorf("New(%v) runs %s, want %s", tc.settings, names(got), tc.want)
		}
	}
}

func TestBadSettings(t *testing.T) {
	for _, tc := range []struct {
		settings map[string]any
		want     string
	}{
		{map[string]any{"nilness": false}, `precog settings: unknown setting "nilness": want a check (conclosed, conindex, conmap, connull, conuninit, limits), all or CHECK.FLAG`},
		{map[string]any{"connull": "maybe"}, "precog settings: setting connull: want true or false, not maybe"},
		{map[string]any{"connull.depth": 3}, `precog settings: unknown setting "connull.depth": check connull has no flag depth`},
		{map[string]any{"connull": map[string]any{"on": true}}, "precog settings: decoding settings: want a string, number or boolean"},
	} {
		_, err := New(tc.settings)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("New(%v) = %v, want an error starting %q", tc.settings, err, tc.want)
		}
	}
}

// TestAll checks that the setting all turns on every check's all flag,
// which shows the diagnostics of low confidence, as precog vet -all does.
func TestAll(t *testing.T) {
	checks := suite.Checks()
	t.Cleanup(func() { suite.All(checks).Set("false") })
	for _, v := range []any{true, false} {
		if _, err := New(map[string]any{"all": v}); err != nil {
			t.Fatal(err)
		}
		for _, a := range checks {
			if f := a.Flags.Lookup("all"); f != nil && f.Value.String() != fmt.Sprint(v) {
				t.Errorf("all: %v left %s.all = %s", v, a.Name, f.Value)
			}
		}
	}
	if _, err := New(map[string]any{"all": "sometimes"}); err == nil {
		t.Error("all: sometimes was accepted")
	}
}

// TestFlags checks that CHECK.FLAG settings reach the check's flags, with
// YAML's numbers, strings and booleans given as flag text.
func TestFlags(t *testing.T) {
	fs := flag.NewFlagSet("budget", flag.ContinueOnError)
	work := fs.Int("work", 10, "")
	wall := fs.Duration("time", 0, "")
	strict := fs.Bool("strict", false, "")
	a := &analysis.Analyzer{Name: "budget", Flags: *fs}
	set, err := register.DecodeSettings[map[string]value](map[string]any{
		"budget.work": 5_000_000, "budget.time": "30s", "budget.strict": true,
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := configure([]*analysis.Analyzer{a}, set); err != nil {
		t.Fatal(err)
	}
	// The analyzer holds a copy of fs whose flags share fs's variables.
	if *work != 5_000_000 || wall.String() != "30s" || !*strict {
		t.Errorf("flags = %d %v %v, want 5000000 30s true", *work, *wall, *strict)
	}
	set, _ = register.DecodeSettings[map[string]value](map[string]any{"budget.work": "lots"})
	if _, err := configure([]*analysis.Analyzer{a}, set); err == nil || !strings.HasPrefix(err.Error(), "setting budget.work: invalid value") {
		t.Errorf("a bad flag value gave %v", err)
	}
}

// TestSharedProcessDefaults checks that the budget's time and memory
// limits are off unless set, as under precog vet, and that settings
// override that.
func TestSharedProcessDefaults(t *testing.T) {
	fs := &limits.Analyzer.Flags
	for _, name := range []string{"time", "mem", "work"} {
		old := fs.Lookup(name).Value.String()
		t.Cleanup(func() { fs.Set(name, old) })
	}
	if _, err := New(nil); err != nil {
		t.Fatal(err)
	}
	work := fs.Lookup("work").DefValue
	if got := fs.Lookup("time").Value.String() + " " + fs.Lookup("mem").Value.String() + " " + fs.Lookup("work").Value.String(); got != "0s 0 "+work {
		t.Errorf("time, mem, work = %s, want 0s 0 %s", got, work)
	}
	if _, err := New(map[string]any{"limits.time": "2m", "limits.mem": 512}); err != nil {
		t.Fatal(err)
	}
	if got := fs.Lookup("time").Value.String() + " " + fs.Lookup("mem").Value.String(); got != "2m0s 512" {
		t.Errorf("time, mem = %s, want 2m0s 512", got)
	}
}
