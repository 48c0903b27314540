package record

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"
)

// TestBudget checks Options.Budget: its clock starts with the first test,
// a test that starts within it runs to its end, and the tests after it,
// in that package or in a later call sharing the budget (CFP's guided run
// after its cheap run), are not started but counted.
func TestBudget(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the test binary is a shell script")
	}
	dir := t.TempDir()
	// A stand-in for a test binary: each run takes 200ms and passes.
	bin := filepath.Join(dir, "pkg.test")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\nsleep 0.2\necho PASS\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		limit time.Duration
		// ran lists, for each of two calls sharing the budget, the
		// tests that ran.
		ran [2][]string
	}{
		{"none", 0, [2][]string{{"TestA", "TestB"}, {"TestC"}}},
		{"long enough", time.Minute, [2][]string{{"TestA", "TestB"}, {"TestC"}}},
		{"spent during the first test", 100 * time.Millisecond, [2][]string{{"TestA"}, nil}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := Options{Flags: &GoTestFlags{Timeout: time.Minute}, Budget: &Budget{Limit: tc.limit}}
			time.Sleep(150 * time.Millisecond) // the build: the clock starts at the first test
			c := &counter{}
			notRun := 0
			for i, names := range [][]string{{"TestA", "TestB"}, {"TestC"}} {
				var spent time.Duration
				p, err := recordPackage(context.Background(), o, listedPackage{ImportPath: "example.com/pkg", Dir: dir}, names, "", bin, t.TempDir(), c, &spent)
				if err != nil {
					t.Fatal(err)
				}
				var ran []string
				for _, tt := range p.Tests {
					if tt.Outcome != Pass {
						t.Errorf("%s: %s, want pass", tt.Name, tt.Outcome)
					}
					ran = append(ran, tt.Name)
				}
				if !slices.Equal(ran, tc.ran[i]) {
					t.Errorf("call %d ran %v, want %v", i+1, ran, tc.ran[i])
				}
				notRun += len(names) - len(tc.ran[i])
			}
			if c.notRun != notRun {
				t.Errorf("%d tests counted as not run, want %d", c.notRun, notRun)
			}
		})
	}
}

// TestBudgetAfter checks Budget.After, the guided run's budget after CFP's
// cheap run: what is left of the whole, spent already if nothing is.
func TestBudgetAfter(t *testing.T) {
	unused := &Budget{Limit: time.Minute}
	if b := unused.After(2 * time.Minute); b.Limit != 2*time.Minute || b.spent() {
		t.Errorf("after an unused budget: limit %v, spent %v; want 2m and not spent", b.Limit, b.spent())
	}
	used := &Budget{Limit: time.Millisecond}
	used.spent() // its first test starts the clock
	time.Sleep(5 * time.Millisecond)
	if b := used.After(time.Hour); b.Limit > time.Hour-5*time.Millisecond || b.spent() {
		t.Errorf("after 5ms of an hour: limit %v, spent %v; want under 1h-5ms and not spent", b.Limit, b.spent())
	}
	if b := used.After(2 * time.Millisecond); !b.spent() {
		t.Errorf("after 5ms of 2ms: not spent")
	}
}
