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
//
// The executable's hash would still keep each test process to entries of
// its own: every package's test binary is a different executable, though
// the precog code in it that computes the entries is the same. So Dir
// also makes exehash.Sum, in its process, a hash of that code's source
// instead (codeHash), and the test processes of one tree share the
// entries: the standard library packages behind the tests' modules are
// analysed for their facts by the first process that needs them, under
// the race detector, not by each (testcmd's TestDepsRerun took 38 s of
// CPU in a new test binary, 13 s in the same binary again).
package testcache

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync"

	"github.com/precog-dev/precog/internal/exehash"
)

// Dir returns the shared cache directory: $PRECOG_TEST_CACHE if set, or
// precog-test-cache-<uid> in the temporary directory. The first call
// makes exehash.Sum return codeHash's hash, if it has one.
func Dir() string {
	useCodeHash()
	if d := os.Getenv("PRECOG_TEST_CACHE"); d != "" {
		return d
	}
	return filepath.Join(os.TempDir(), "precog-test-cache-"+strconv.Itoa(os.Getuid()))
}

var useCodeHash = sync.OnceFunc(func() {
	if sum := codeHash(); sum != "" {
		exehash.Use(sum)
	}
})

// codeHash returns a hash of what a test binary of this module is built
// from, or "" if it cannot tell: the Go version and the build settings
// (-race, GOARCH, GOEXPERIMENT, ...) of the running binary, and the path
// and content of every file of the module's tree but for testdata
// directories (which no package is built from), .git, and Markdown files
// (documents, which nothing embeds: an edit of bench/RESULTS.md keeps the
// hash, and go test's cached results, whose key holds what a test
// opened). That takes in go.mod and go.sum, which fix the other modules'
// code, every package of this module, and the test files, whatever
// package's test the binary is: two test binaries of one tree hold the
// same precog code, and an edit to the tree gives a new hash. It reads
// the tree (about 7 MB) once per process: a fraction of a second.
func codeHash() string {
	info, ok := debug.ReadBuildInfo()
	_, file, _, ok2 := runtime.Caller(0)
	if !ok || !ok2 {
		return ""
	}
	root := filepath.Join(filepath.Dir(file), "..", "..")
	if mod, err := os.ReadFile(filepath.Join(root, "go.mod")); err != nil || !bytes.HasPrefix(mod, []byte("module github.com/precog-dev/precog\n")) {
		return "" // not the tree the binary was built from (-trimpath)
	}
	h := sha256.New()
	fmt.Fprintf(h, "precog test binary\n%s\n%s\n", runtime.Version(), info.GoVersion)
	for _, s := range info.Settings {
		fmt.Fprintf(h, "setting %s=%s\n", s.Key, s.Value)
	}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); name == "testdata" || name == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Name() == ".git" || filepath.Ext(path) == ".md" || !d.Type().IsRegular() {
			return nil // a worktree's .git file; documents; symbolic links
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		fh := sha256.New()
		if _, err := io.Copy(fh, f); err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		fmt.Fprintf(h, "file %s %x\n", filepath.ToSlash(rel), fh.Sum(nil))
		return nil
	})
	if err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}
