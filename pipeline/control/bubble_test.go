package control

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/precog-dev/precog/pipeline/instrument"
	"github.com/precog-dev/precog/shim/plan"
	"github.com/precog-dev/precog/shim/trace"
)

// TestKernelBubbleForced is issue 15's check that forcing cannot make a
// synctest bubble do what it cannot: in testdata/kernels/bubblecache the
// nil store S1 runs one virtual second after the read S2. Forcing S1
// before S2 holds the reader at a gate; the held goroutine must not count
// as durably blocked (or the bubble's clock would advance, the store run
// and the order be "confirmed"), so the run must end diverged, with the
// bubble named in the reason, and without crashing. Forcing the program's
// own order, S2 before S1, must be confirmed: gates work in bubbles.
func TestKernelBubbleForced(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs an instrumented test binary")
	}
	dir, err := filepath.Abs("../../testdata/kernels")
	if err != nil {
		t.Fatal(err)
	}
	res, err := instrument.Instrument(context.Background(), instrument.Config{Dir: dir, Patterns: []string{"./bubblecache"}, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "bubblecache.test")
	build := exec.Command("go", append(append([]string{"test", "-c", "-o", bin}, res.BuildFlags...), "./bubblecache")...)
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go test -c: %v\n%s", err, out)
	}
	run := func(env ...string) (failed bool, out string) {
		// Bounded: a gate that let nothing go would hang the bubble.
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, "-test.run=^TestFresh$", "-test.count=1")
		cmd.Dir = filepath.Join(dir, "bubblecache")
		cmd.Env = append(os.Environ(), env...)
		b, err := cmd.CombinedOutput()
		if ctx.Err() != nil {
			t.Fatalf("the run did not end within a minute:\n%s", b)
		}
		return err != nil, string(b)
	}

	tracePath := filepath.Join(tmp, "trace")
	if failed, out := run("PRECOG_TRACE=" + tracePath); failed {
		t.Fatalf("the recorded run failed:\n%s", out)
	}
	sites, err := trace.LoadSites(res.Sites)
	if err != nil {
		t.Fatal(err)
	}
	lines := markedLines(t, filepath.Join(dir, "bubblecache", "bubblecache.go"))
	f, err := os.Open(tracePath)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := trace.ReadAll(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	steps := map[string]plan.Point{}
	for i, pt := range Points(tr.Events) {
		ev := tr.Events[i]
		s, ok := sites.Lookup(ev.Site)
		if !ok || filepath.Base(s.File) != "bubblecache.go" {
			continue
		}
		for mark, line := range lines {
			want := trace.EvRead
			if mark == "S1" {
				want = trace.EvWrite
			}
			if s.Line == line && ev.Kind == want && strings.Contains(s.Expr, "entry") {
				if _, dup := steps[mark]; !dup {
					pt.Kind = ""
					steps[mark] = pt
				}
			}
		}
	}
	if len(steps) != 2 {
		t.Fatalf("found steps %v in the trace, want S1 and S2", steps)
	}
	planPath := filepath.Join(tmp, "plan.json")
	force := func(before, after string) (*Result, string) {
		p := &plan.Plan{Mode: "force", TimeoutMS: 500, Result: filepath.Join(tmp, "result-"+before+".jsonl"),
			Edges: []plan.Edge{{Before: steps[before], After: steps[after]}}}
		if err := WritePlan(planPath, p); err != nil {
			t.Fatal(err)
		}
		failed, out := run(plan.EnvVar + "=" + planPath)
		if failed {
			t.Errorf("forcing %s before %s: the test failed:\n%s", before, after, out)
		}
		r, err := ReadResultFile(p.Result, p)
		if err != nil {
			t.Fatal(err)
		}
		return r, out
	}
	if r, out := force("S1", "S2"); r.State != plan.Diverged || !strings.Contains(r.Reason, "synctest bubble") {
		t.Errorf("forcing the nil store before the read: %s (%s), want diverged for the bubble\n%s", r.State, r.Reason, out)
	} else {
		t.Logf("S1 before S2: %s: %s", r.State, r.Reason)
	}
	if r, out := force("S2", "S1"); r.State != plan.Confirmed {
		t.Errorf("forcing the read before the nil store: %s (%s), want confirmed\n%s", r.State, r.Reason, out)
	}
}
