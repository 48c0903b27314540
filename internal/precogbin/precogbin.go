// Package precogbin runs the precog command, built from this module, for
// end-to-end tests that run it over a whole corpus. The binary is built
// once per test process and without the race detector, even under go test
// -race: the analyses of a corpus take about twice the CPU under the race
// detector (testcmd's TestKernels measured it), and each command's
// in-process tests keep its code under the race detector.
//
// go test caches a package's result keyed by what the test imports, not
// by what a binary it builds contains: a test package that uses precogbin
// should import the commands it runs, so that a change to their code
// invalidates the cached result.
package precogbin

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var (
	once sync.Once
	dir  string // the temporary directory that holds the binary
	path string
	err  error
)

// Path returns the path of the binary, building it on first use.
func Path(t testing.TB) string {
	t.Helper()
	once.Do(func() {
		if dir, err = os.MkdirTemp("", "precogbin-"); err != nil {
			return
		}
		path = filepath.Join(dir, "precog")
		out, buildErr := exec.Command("go", "build", "-o", path, "github.com/precog-dev/precog/cmd/precog").CombinedOutput()
		if buildErr != nil {
			err = fmt.Errorf("building precog: %v\n%s", buildErr, out)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// Run runs the binary with args in directory wd and returns what it wrote
// and its exit status. It fails the test if the binary cannot be started.
func Run(t testing.TB, wd string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errs bytes.Buffer
	cmd := exec.CommandContext(t.Context(), Path(t), args...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = wd, &out, &errs
	runErr := cmd.Run()
	if ee := (*exec.ExitError)(nil); errors.As(runErr, &ee) {
		code = ee.ExitCode()
	} else if runErr != nil {
		t.Fatalf("precog %s: %v", strings.Join(args, " "), runErr)
	}
	return out.String(), errs.String(), code
}

// Remove removes the binary, if it was built. Call it from TestMain once
// the tests have run.
func Remove() {
	if dir != "" {
		os.RemoveAll(dir)
	}
}
