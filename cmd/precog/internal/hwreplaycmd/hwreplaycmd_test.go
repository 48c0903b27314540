package hwreplaycmd_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/precog-dev/precog/cmd/precog/internal/cli"
	"github.com/precog-dev/precog/cmd/precog/internal/hwreplaycmd"
	"github.com/precog-dev/precog/cmd/precog/internal/recordcmd"
	"github.com/precog-dev/precog/internal/leakcheck"
	"github.com/precog-dev/precog/internal/testcache"
)

func TestMain(m *testing.M) { os.Exit(leakcheck.Main(m)) }

var kernels, _ = filepath.Abs(filepath.Join("..", "..", "..", "..", "testdata", "kernels"))

func precog(t *testing.T, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errs bytes.Buffer
	env := &cli.Env{Stdout: &out, Stderr: &errs, Dir: dir}
	code = cli.Main(t.Context(), env, []*cli.Command{recordcmd.Command(), hwreplaycmd.Command()}, args)
	return out.String(), errs.String(), code
}

// verdict is the part of a -json line the test reads.
type verdict struct {
	Kind  string `json:"kind"`
	Sites []struct {
		File string `json:"file"`
		Line int    `json:"line"`
	} `json:"sites"`
	Hardware struct {
		Verdict string `json:"verdict"`
		Reason  string `json:"reason"`
		Detail  string `json:"detail"`
	} `json:"hardware"`
}

// verdicts runs hwreplay -json and returns the verdicts by the first site,
// "file:line".
func verdicts(t *testing.T, args ...string) map[string]verdict {
	t.Helper()
	out, stderr, code := precog(t, "", append([]string{"hwreplay", "-json"}, args...)...)
	if code != cli.ExitFindings {
		t.Fatalf("hwreplay exited %d, want %d:\n%s", code, cli.ExitFindings, stderr)
	}
	vs := make(map[string]verdict)
	for line := range strings.SplitSeq(strings.TrimSpace(out), "\n") {
		var v verdict
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		key := filepath.Base(v.Sites[0].File) + ":" + itoa(v.Sites[0].Line)
		vs[key] = v
	}
	return vs
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// TestKernels records OSCS kernels and replays them: what the paper's
// hardware would report, and what an AHB of 4 entries loses.
//
//   - mozilla1 runs each critical section once, one goroutine after the
//     other. The hardware catches both pairs, as the paper's caught
//     Mozilla-1, because the test's goroutine made the runtime object on
//     another core (hwmodel's InitByParent, the default); without that,
//     the compile's sections touch a line no other core has, and the
//     hardware records neither (not-shared).
//   - oscsloop repeats its critical sections, as the paper's benchmarks
//     do: kept either way; with 4 AHB entries, the eight statistics each
//     section updates evict the count's entry first (ahb-evicted).
func TestKernels(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the kernels' test binaries")
	}
	out := filepath.Join(t.TempDir(), "rec")
	if _, stderr, code := precog(t, kernels, "record", "-baseline=false", "-cache", testcache.Dir(), "-o", out, "./oscsloop", "./mozilla1"); code != 0 {
		t.Fatalf("precog record exited %d:\n%s", code, stderr)
	}
	check := func(name string, vs map[string]verdict, want map[string][2]string) {
		t.Helper()
		for at, w := range want {
			v, ok := vs[at]
			if !ok {
				t.Errorf("%s: no finding at %s", name, at)
				continue
			}
			if v.Kind != "oscs" || v.Hardware.Verdict != w[0] || v.Hardware.Reason != w[1] {
				t.Errorf("%s: %s: %s, hardware %s (%s), want oscs, %s (%s)", name, at, v.Kind, v.Hardware.Verdict, v.Hardware.Reason, w[0], w[1])
			}
		}
		if len(vs) != len(want) {
			t.Errorf("%s: %d findings, want %d: %v", name, len(vs), len(want), vs)
		}
	}
	check("default", verdicts(t, out), map[string][2]string{
		"oscsloop.go:37": {"kept", ""},
		"mozilla1.go:43": {"kept", ""},
		"mozilla1.go:49": {"kept", ""},
	})
	check("-init-parent=false", verdicts(t, "-init-parent=false", out), map[string][2]string{
		"oscsloop.go:37": {"kept", ""},
		"mozilla1.go:43": {"lost", "not-shared"},
		"mozilla1.go:49": {"lost", "not-shared"},
	})
	small := verdicts(t, "-ahb-entries", "4", out)
	check("-ahb-entries 4", small, map[string][2]string{
		"oscsloop.go:37": {"lost", "ahb-evicted"},
		"mozilla1.go:43": {"kept", ""},
		"mozilla1.go:49": {"kept", ""},
	})
	if d := small["oscsloop.go:37"].Hardware.Detail; !strings.Contains(d, "evicted") {
		t.Errorf("4 AHB entries: oscsloop's detail %q does not name the eviction", d)
	}

	// The text output and summary say the same.
	text, stderr, code := precog(t, "", "hwreplay", "-ahb-entries", "4", out)
	if code != cli.ExitFindings {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(text, "hardware: lost (ahb-evicted): ") {
		t.Errorf("text output lacks the eviction:\n%s", text)
	}
	if !strings.Contains(stderr, "OSCS-Opt: 3 findings; OSCS-HW keeps 2 (coverage 66.7%), loses 1 (ahb-evicted 1), reports 0 more") {
		t.Errorf("summary:\n%s", stderr)
	}

	// The sweep: everything is kept at every setting of the paper's study
	// (oscsloop needs 9 entries, and each 8-way set holds 8 of them).
	sweep, stderr, code := precog(t, "", "hwreplay", "-sweep", "-json", out)
	if code != cli.ExitFindings {
		t.Fatalf("sweep exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(sweep), "\n")
	if len(lines) != 7 {
		t.Fatalf("sweep printed %d settings, want 7:\n%s", len(lines), sweep)
	}
	for _, l := range lines {
		var s struct {
			AHBEntries int     `json:"ahbEntries"`
			CacheScale float64 `json:"cacheScale"`
			Software   int     `json:"software"`
			Kept       int     `json:"kept"`
		}
		if err := json.Unmarshal([]byte(l), &s); err != nil {
			t.Fatal(err)
		}
		if s.Software != 3 || s.Kept != 3 {
			t.Errorf("sweep setting %d entries, caches %gx: %d kept of %d, want 3 of 3", s.AHBEntries, s.CacheScale, s.Kept, s.Software)
		}
	}
}

func TestErrors(t *testing.T) {
	dir := t.TempDir()
	notTrace := filepath.Join(dir, "x.trace")
	os.WriteFile(notTrace, []byte("hello"), 0o644)
	os.WriteFile(filepath.Join(dir, "sites.json"), []byte(`{"sites":[]}`), 0o644)
	for _, tc := range []struct {
		args []string
		want string
		code int
	}{
		{nil, "hwreplay needs at least one trace file or recording directory", cli.ExitUsage},
		{[]string{t.TempDir()}, "has no index.json", cli.ExitError},
		{[]string{"-ahb-entries", "96", notTrace}, "ahb: 96 entries in 8 ways is 12 sets, not a power of two", cli.ExitError},
		{[]string{"-cache-scale", "0", notTrace}, "-cache-scale must be positive", cli.ExitUsage},
		{[]string{notTrace}, "not a precog trace", cli.ExitError},
		{[]string{"-nosuchflag"}, "flag provided but not defined: -nosuchflag", cli.ExitUsage},
	} {
		_, stderr, code := precog(t, dir, append([]string{"hwreplay"}, tc.args...)...)
		if code != tc.code || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("hwreplay %q: exit %d, stderr %q; want exit %d and one line with %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
}
