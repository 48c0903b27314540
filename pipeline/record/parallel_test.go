package record

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// stubPackages writes, for each package name, a stand-in test binary (a
// shell script) where recordAll looks for it under rec: each run appends
// "start PKG TEST" to log, sleeps for sleep seconds, appends "end PKG
// TEST" and passes.
func stubPackages(t *testing.T, rec, log, sleep string, pkgs ...string) []listedPackage {
	t.Helper()
	var lps []listedPackage
	for _, p := range pkgs {
		lp := listedPackage{ImportPath: "example.com/" + p, Dir: t.TempDir()}
		bin := testBinary(rec, lp)
		if err := os.MkdirAll(filepath.Dir(bin), 0o777); err != nil {
			t.Fatal(err)
		}
		script := "#!/bin/sh\n" +
			"test=$(echo \"$*\" | sed -n 's/.*-test.run=^\\([A-Za-z0-9]*\\).*/\\1/p')\n" +
			"echo \"start " + p + " $test\" >> " + log + "\n" +
			"sleep " + sleep + "\n" +
			"echo \"end " + p + " $test\" >> " + log + "\n" +
			"echo PASS\n"
		if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		lps = append(lps, lp)
	}
	return lps
}

// TestRecordAllParallel checks Options.Parallel: with 2, two packages'
// tests run side by side while each package's run one at a time and in
// order; with 1 (the control), no two tests overlap. The packages come back
// in their order either way.
func TestRecordAllParallel(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the test binaries are shell scripts")
	}
	for _, parallel := range []int{1, 2} {
		dir := t.TempDir()
		rec, out, log := filepath.Join(dir, "rec"), filepath.Join(dir, "out"), filepath.Join(dir, "log")
		pkgs := stubPackages(t, rec, log, "0.3", "a", "b")
		names := [][]string{{"TestA1", "TestA2"}, {"TestB1", "TestB2"}}
		o := Options{Flags: &GoTestFlags{Timeout: time.Minute}, Parallel: parallel}
		got, interrupted, err := recordAll(t.Context(), o, pkgs, names, "", rec, out, &counter{total: 4})
		if err != nil || interrupted != nil {
			t.Fatalf("Parallel %d: %v, interrupted %v", parallel, err, interrupted)
		}
		for i, p := range got {
			var ran []string
			for _, tt := range p.Tests {
				ran = append(ran, tt.Name)
			}
			if p.ImportPath != pkgs[i].ImportPath || !slices.Equal(ran, names[i]) {
				t.Errorf("Parallel %d: package %d is %s with %v, want %s with %v", parallel, i, p.ImportPath, ran, pkgs[i].ImportPath, names[i])
			}
		}
		data, err := os.ReadFile(log)
		if err != nil {
			t.Fatal(err)
		}
		running := map[string]string{} // package -> its test running
		overlapped := false
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			f := strings.Fields(line)
			if len(f) != 3 {
				t.Fatalf("log line %q", line)
			}
			switch f[0] {
			case "start":
				if other := running[f[1]]; other != "" {
					t.Errorf("Parallel %d: %s started while %s of its package ran", parallel, f[2], other)
				}
				if len(running) > 0 {
					overlapped = true
				}
				running[f[1]] = f[2]
			case "end":
				delete(running, f[1])
			}
		}
		if want := parallel > 1; overlapped != want {
			t.Errorf("Parallel %d: two packages' tests overlapped: %v, want %v\n%s", parallel, overlapped, want, data)
		}
	}
}

// TestRecordAllStops checks how recordAll ends early: a package's own
// error stops the packages side by side with it and is returned alone; an
// interruption returns the packages recorded so far and the error it
// gave.
func TestRecordAllStops(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the test binaries are shell scripts")
	}
	dir := t.TempDir()
	rec, out, log := filepath.Join(dir, "rec"), filepath.Join(dir, "out"), filepath.Join(dir, "log")
	pkgs := stubPackages(t, rec, log, "0.2", "a", "b")
	names := [][]string{{"TestA1", "TestA2", "TestA3"}, {"TestB1", "TestB2", "TestB3"}}
	o := Options{Flags: &GoTestFlags{Timeout: time.Minute}, Parallel: 2}

	// Package a's output directory cannot be made: its error ends the run.
	if err := os.MkdirAll(out, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "example.com"), nil, 0o666); err != nil {
		t.Fatal(err)
	}
	got, interrupted, err := recordAll(t.Context(), o, pkgs, names, "", rec, out, &counter{})
	if err == nil || got != nil || interrupted != nil {
		t.Errorf("an output directory that cannot be made: %v, %v, interrupted %v; want its error alone", got, err, interrupted)
	}

	out = filepath.Join(dir, "out2")
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(300*time.Millisecond, cancel)
	got, interrupted, err = recordAll(ctx, o, pkgs, names, "", rec, out, &counter{})
	if err != nil || !errors.Is(interrupted, context.Canceled) {
		t.Fatalf("interrupted: %v, interrupted %v; want no error and the cancellation", err, interrupted)
	}
	for i, p := range got {
		if p == nil || len(p.Tests) == 0 || len(p.Tests) == len(names[i]) || p.Tests[len(p.Tests)-1].Outcome != Interrupted {
			t.Errorf("interrupted: package %d is %+v, want some of its tests, the last interrupted", i, p)
		}
	}
}
