package instrument

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/precog-dev/precog/detect/cfp"
	"github.com/precog-dev/precog/shim/trace"
)

// TestCFPPlan instruments the CFP corpus's Fig. 4 package with the CFP
// plan: daxpy is skipped by Opt2 and inherits lu0's pairs, the rewritten
// file calls Enter in lu0 but not in daxpy, and the site table still has
// both functions' func sites. With the optimizations off, both are
// logged.
func TestCFPPlan(t *testing.T) {
	if testing.Short() {
		t.Skip("loads and analyzes a package")
	}
	dir, _ := filepath.Abs("../../testdata/cfp")
	for _, opts := range []CFPOptions{AllCFP, {}} {
		res, err := Instrument(context.Background(), Config{Dir: dir, Patterns: []string{"./lu"}, CacheDir: sharedCache, CFP: &opts})
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(res.Plan)
		if err != nil {
			t.Fatal(err)
		}
		var plan cfp.Plan
		if err := json.Unmarshal(data, &plan); err != nil {
			t.Fatal(err)
		}
		byName := make(map[string]cfp.PlanFunc)
		for _, f := range plan.Funcs {
			byName[f.Name[strings.LastIndexByte(f.Name, '.')+1:]] = f
		}
		lu0, daxpy := byName["lu0"], byName["daxpy"]
		if lu0.Key == "" || daxpy.Key == "" || daxpy.End <= lu0.End {
			t.Fatalf("plan %+v: want lu0 and daxpy, daxpy after lu0", plan)
		}
		wantSkip, wantInherits := "opt2", []string{lu0.Key}
		if opts == (CFPOptions{}) {
			wantSkip, wantInherits = "", nil
		}
		if daxpy.Skip != wantSkip || strings.Join(daxpy.Inherits, " ") != strings.Join(wantInherits, " ") || lu0.Skip != "" {
			t.Errorf("with %+v: lu0 %+v, daxpy %+v; want daxpy skip %q inheriting %v", opts, lu0, daxpy, wantSkip, wantInherits)
		}
		if test := byName["TestFactor"]; test.Skip != "test" {
			t.Errorf("TestFactor is planned %q, want test", test.Skip)
		}
		sites, err := trace.LoadSites(res.Sites)
		if err != nil {
			t.Fatal(err)
		}
		funcSites := make(map[string]bool)
		for _, s := range sites.Sites {
			if s.Kind == "func" {
				funcSites[cfp.SiteKey(&s)] = true
			}
		}
		if !funcSites[lu0.Key] || !funcSites[daxpy.Key] {
			t.Errorf("func sites %v: want lu0's and daxpy's", funcSites)
		}
		lines := strings.Split(rewritten(t, res, filepath.Join(dir, "lu", "lu.go")), "\n")
		enters := func(line int) bool { return strings.Contains(lines[line-1], "precog_shim.Enter(") }
		if !enters(11) || enters(21) != (wantSkip == "") {
			t.Errorf("with %+v: Enter in lu0 %v, in daxpy %v", opts, enters(11), enters(21))
		}
	}
}

// rewritten returns the overlay's text of file.
func rewritten(t *testing.T, res *Result, file string) string {
	t.Helper()
	ovPath := strings.TrimPrefix(firstOverlayFlag(res.BuildFlags), "-overlay=")
	data, err := os.ReadFile(ovPath)
	if err != nil {
		t.Fatal(err)
	}
	var ov struct{ Replace map[string]string }
	if err := json.Unmarshal(data, &ov); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(ov.Replace[file])
	if err != nil {
		t.Fatalf("overlay of %s: %v", file, err)
	}
	return string(src)
}
