package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// TestSweepStale: a directory of tmpPrefix's form whose process is gone
// and that was left unchanged for staleAfter is removed, with what it
// holds; one whose process is gone but that changed lately, one of a live
// process, precog's own and other names stay.
func TestSweepStale(t *testing.T) {
	gone := exec.Command("go", "env", "GOROOT") // any short-lived process
	if err := gone.Run(); err != nil {
		t.Skip("no process to outlive:", err)
	}
	dead := strconv.Itoa(gone.Process.Pid)
	live := strconv.Itoa(os.Getppid())
	own := strconv.Itoa(os.Getpid())
	parent := t.TempDir()
	old := time.Now().Add(-2 * staleAfter)
	for name, want := range map[string]bool{ // kept?
		"precog-" + dead + "-1":     false,
		"precog-" + dead + "-2":     true, // changed lately
		"precog-" + live + "-3":     true,
		"precog-" + own + "-4":      true,
		"precog-bench-runtime-5":    true,
		"precog-instrument-cache-6": true,
		"precog-1234567":            true, // an older precog's name
		"other-" + dead + "-7":      true,
	} {
		d := filepath.Join(parent, name)
		if err := os.MkdirAll(filepath.Join(d, "go"), 0o700); err != nil {
			t.Fatal(err)
		}
		if name != "precog-"+dead+"-2" {
			if err := os.Chtimes(d, old, old); err != nil {
				t.Fatal(err)
			}
		}
		t.Cleanup(func() {
			_, err := os.Stat(d)
			if kept := err == nil; kept != want {
				t.Errorf("%s: kept %v, want %v", name, kept, want)
			}
		})
	}
	sweepStale(parent)
}
