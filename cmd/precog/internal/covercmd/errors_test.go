package covercmd

import (
	"bytes"
	"github.com/precog-dev/precog/internal/testmod"
	"strings"
	"testing"

	"github.com/precog-dev/precog/cmd/precog/internal/cli"
	"github.com/precog-dev/precog/internal/testcache"
)

// TestErrors: a bad command line costs one line on stderr and exit
// status 2 (a usage error), before anything is built.
func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"cover", "-runs", "0", "./lu"}, "-runs must be between 1 and 100, got 0"},
		{[]string{"cover", "-runs", "101", "./lu"}, "-runs must be between 1 and 100, got 101"},
		{[]string{"cover", "-timeout", "-1s", "./lu"}, "-timeout must be 0 (no limit) or positive"},
		{[]string{"cover", "-record-budget", "-1s", "./lu"}, "-record-budget must be 0 (no limit) or positive"},
		{[]string{"cover", "-p", "0", "./lu"}, "-p must be at least 1, got 0"},
		{[]string{"cover", "-nosuchflag", "./lu"}, "flag provided but not defined: -nosuchflag"},
	} {
		var out, errs bytes.Buffer
		code := cli.Main(t.Context(), &cli.Env{Stdout: &out, Stderr: &errs, Dir: corpus}, []*cli.Command{Command()}, tc.args)
		if code != cli.ExitUsage || !strings.Contains(errs.String(), tc.want) || strings.Count(strings.TrimSpace(errs.String()), "\n") > 0 && !strings.Contains(tc.want, "flag") {
			t.Errorf("precog %v: exit %d, stderr %q; want 2 and %q", tc.args, code, errs.String(), tc.want)
		}
		if out.Len() > 0 {
			t.Errorf("precog %v wrote to stdout: %q", tc.args, out.String())
		}
	}
}

// TestUnlisted checks that a package whose TestMain exits before its tests
// can be listed (it wants an environment variable, as go test would run
// it) is left out with one line saying why and the exit status 1, and the
// other package is measured, as precog record and precog test do.
func TestUnlisted(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	dir := testmod.New(t, testmod.Unlisted())
	var out, errs bytes.Buffer
	code := cli.Main(t.Context(), &cli.Env{Stdout: &out, Stderr: &errs, Dir: dir}, []*cli.Command{Command()}, []string{"cover", "-cache", testcache.Dir(), "./..."})
	if want := "not measured: package example.com/m/env: listing its tests: ENV_SERVER is not set\n"; code != cli.ExitError || !strings.HasSuffix(errs.String(), want) {
		t.Errorf("precog cover exited %d, stderr:\n%s\nwant %d and it ending %q", code, errs.String(), cli.ExitError, want)
	}
	if !strings.HasPrefix(out.String(), "example.com/m/ok: ") || strings.Contains(out.String(), "example.com/m/env") {
		t.Errorf("stdout:\n%s\nwant ok's coverage only", out.String())
	}
}
