// Package testcache names the precog cache that precog's end-to-end tests
// share across test processes.
//
// go test ./... runs each package's tests in a process of its own, and
// several of them instrument and build the same kernels. With a cache per
// process (or per test) each paid for instrumenting and compiling them
// again, and for compiling the shim: the instrumented files' paths are
// part of what the go build cache keys, so a fresh precog cache is a cold
// go build too. One directory for all of them makes the second build of a
// kernel a cache hit, in the same go test run and the next.
//
// Sharing is safe because precog's cache is built for it: entries are
// content addressed or keyed by the precog executable's hash, and written
// through a temporary file renamed into place, so concurrent runs on one
// cache see whole entries (pipeline/instrument's TestConcurrentRuns).
// Like the go build cache the directory persists, and precog trims what
// no run used for five days. Tests that check the cache itself, or a cold
// run, keep a directory of their own.
package testcache

import (
	"os"
	"path/filepath"
	"strconv"
)

// Dir returns the shared cache directory: $PRECOG_TEST_CACHE if set, or
// precog-test-cache-<uid> in the temporary directory.
func Dir() string {
	if d := os.Getenv("PRECOG_TEST_CACHE"); d != "" {
		return d
	}
	return filepath.Join(os.TempDir(), "precog-test-cache-"+strconv.Itoa(os.Getuid()))
}
