package reprocmd_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/precog-dev/precog/cmd/precog/internal/cli"
	"github.com/precog-dev/precog/cmd/precog/internal/reprocmd"
	"github.com/precog-dev/precog/cmd/precog/internal/testcmd"
	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/internal/leakcheck"
	"github.com/precog-dev/precog/internal/testcache"
)

func TestMain(m *testing.M) { os.Exit(leakcheck.Main(m)) }

func precog(t *testing.T, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errs bytes.Buffer
	env := &cli.Env{Stdout: &out, Stderr: &errs, Dir: dir}
	code = cli.Main(t.Context(), env, []*cli.Command{testcmd.Command(), reprocmd.Command()}, args)
	return out.String(), errs.String(), code
}

// copyKernel copies the MySQL kernel into a module of its own under a
// temporary directory, so that the test can edit it.
func copyKernel(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join("..", "..", "..", "..", "testdata", "kernels")
	files := map[string]string{"go.mod": "go.mod", "mysql/mysql.go": "mysql/mysql.go", "mysql/mysql_test.go": "mysql/mysql_test.go"}
	for to, from := range files {
		data, err := os.ReadFile(filepath.Join(src, from))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, to)), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, to), data, 0o666); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestRepro confirms the MySQL kernel's bug with precog test, reproduces it
// with precog repro, keeps reproducing it after an edit that moves no site
// of the schedule, and reports the code changed after one that moves the
// dereference.
func TestRepro(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs instrumented test binaries")
	}
	dir := copyKernel(t)
	// The shared cache: the copy's files are new to it, but the shim's
	// build is not.
	cache, out := testcache.Dir(), filepath.Join(t.TempDir(), "out")
	stdout, stderr, code := precog(t, dir, "test", "-json", "-cache", cache, "-o", out, "./mysql")
	if code != cli.ExitFindings {
		t.Fatalf("precog test exited %d:\n%s", code, stderr)
	}
	var f finding.Finding
	if err := json.Unmarshal([]byte(strings.SplitN(stdout, "\n", 2)[0]), &f); err != nil {
		t.Fatal(err)
	}
	if f.Status != finding.Confirmed || !strings.Contains(f.Repro, "repro -o ") || !strings.HasSuffix(f.Repro, " "+f.ID) {
		t.Fatalf("finding %s is %s with reproducer %q: want confirmed, with precog repro -o DIR ID", f.ID, f.Status, f.Repro)
	}

	repro := func() (string, string, int) {
		return precog(t, dir, "repro", "-cache", cache, "-o", out, "-count", "3", f.ID)
	}
	stdout, stderr, code = repro()
	if code != cli.ExitFindings || !strings.Contains(stdout, "reproduced in 3 of 3 runs") {
		t.Fatalf("precog repro exited %d:\n%s\n%s", code, stdout, stderr)
	}

	// An edit below every site of the schedule: still the same code.
	path := filepath.Join(dir, "mysql", "mysql.go")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(data, "\n// Unrelated is an edit elsewhere.\nfunc Unrelated() int { return 1 }\n"...), 0o666); err != nil {
		t.Fatal(err)
	}
	if stdout, stderr, code = repro(); code != cli.ExitFindings {
		t.Errorf("after an unrelated edit, precog repro exited %d:\n%s\n%s", code, stdout, stderr)
	}

	// A line inserted above the dereference moves it.
	moved := strings.Replace(string(data), "\t\tif thd.procInfo != nil { // S1", "\t\t_ = 0\n\t\tif thd.procInfo != nil { // S1", 1)
	if moved == string(data) {
		t.Fatal("the kernel has no S1 line to move")
	}
	if err := os.WriteFile(path, []byte(moved), 0o666); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code = repro(); code != cli.ExitError || !strings.Contains(stderr, "the code changed: site") || !strings.Contains(stderr, "run precog test again") {
		t.Errorf("after moving the dereference, precog repro exited %d:\n%s", code, stderr)
	}

	if _, stderr, code = precog(t, dir, "repro", "-cache", cache, "-o", out, "nosuchid"); code != cli.ExitError || !strings.Contains(stderr, "no reproducer for nosuchid") {
		t.Errorf("an unknown ID: exit %d:\n%s", code, stderr)
	}
}
