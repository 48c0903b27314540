package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/precog-dev/precog/pipeline/proc"
)

// tmpPrefix names precog's temporary directory after its process id
// (precog-PID-RANDOM), so that a later precog can tell a directory whose
// process is gone.
func tmpPrefix() string { return fmt.Sprintf("precog-%d-", os.Getpid()) }

// sweepStale removes, in parent, the temporary directories of precog
// processes that are gone without removing theirs: precog removes its
// own on every way out it can see (the end, a signal), but not after a
// SIGKILL (a CI job's timeout after its grace, the OOM killer), and a
// killed precog test can leave gigabytes of traces there. Only names of
// tmpPrefix's form whose process no longer exists, and that nothing has
// changed for staleAfter, are removed; another user's, a live process's
// and every other name stay. The age guards a temporary directory shared
// across PID namespaces (a host's /tmp mounted into containers), where a
// live precog of another namespace looks gone: its go commands create
// their work directories in it, which changes it.
func sweepStale(parent string) {
	dirs, _ := filepath.Glob(filepath.Join(parent, "precog-*-*"))
	for _, d := range dirs {
		rest := strings.TrimPrefix(filepath.Base(d), "precog-")
		pidText, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil || pid <= 0 || pid == os.Getpid() || proc.Alive(pid) {
			continue
		}
		if fi, err := os.Lstat(d); err != nil || !fi.IsDir() || time.Since(fi.ModTime()) < staleAfter {
			continue
		}
		os.RemoveAll(d)
	}
}

// staleAfter is how long a gone process's directory must have been left
// unchanged before sweepStale removes it.
const staleAfter = time.Hour
