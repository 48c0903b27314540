package control

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/precog-dev/precog/shim/plan"
	"github.com/precog-dev/precog/shim/trace"
)

// TestKernelBubbleForced is issue 15's check that forcing cannot make a
// synctest bubble do what it cannot. In testdata/kernels/bubblecache the
// nil store S1 runs one virtual second after the read S2 (time.Sleep); in
// bubbletimer the nil stores S1 and S4 run when a timer fires and in a
// time.AfterFunc callback, one virtual second after the first read S2.
// Forcing a store before the read holds the reader at a gate; the held
// goroutine must not count as durably blocked (or the bubble's clock would
// advance, the timer fire, the store run and the order be "confirmed"), so
// the run must end diverged, with the bubble named in the reason, and
// without crashing. Forcing the program's own order, the read before the
// store, must be confirmed: gates work in bubbles.
func TestKernelBubbleForced(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs an instrumented test binary")
	}
	for _, k := range []struct {
		name       string
		impossible [][2]string // forced orders no run can take
		possible   [][2]string // and ones the program takes by itself
	}{
		{"bubblecache", [][2]string{{"S1", "S2"}}, [][2]string{{"S2", "S1"}}},
		{"bubbletimer", [][2]string{{"S1", "S2"}, {"S4", "S2"}}, [][2]string{{"S2", "S4"}}},
	} {
		t.Run(k.name, func(t *testing.T) {
			force := bubbleKernel(t, k.name)
			for _, o := range k.impossible {
				if r, out := force(o[0], o[1]); r.State != plan.Diverged || !strings.Contains(r.Reason, "synctest bubble") {
					t.Errorf("forcing %s before %s: %s (%s), want diverged for the bubble\n%s", o[0], o[1], r.State, r.Reason, out)
				} else {
					t.Logf("%s before %s: %s: %s", o[0], o[1], r.State, r.Reason)
				}
			}
			for _, o := range k.possible {
				if r, out := force(o[0], o[1]); r.State != plan.Confirmed {
					t.Errorf("forcing %s before %s: %s (%s), want confirmed\n%s", o[0], o[1], r.State, r.Reason, out)
				}
			}
		})
	}
}

// bubbleKernel builds the kernel's instrumented test, records TestFresh,
// finds the kernel's marked accesses of c.entry in the trace (S2 a read,
// the others writes; the first of each) and returns a function that forces
// one mark before another and reads the result.
func bubbleKernel(t *testing.T, kernel string) func(before, after string) (*Result, string) {
	dir, res := instrumentedKernels(t)
	tmp := t.TempDir()
	bin := filepath.Join(tmp, kernel+".test")
	build := exec.Command("go", append(append([]string{"test", "-c", "-o", bin}, res.BuildFlags...), "./"+kernel)...)
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go test -c: %v\n%s", err, out)
	}
	run := func(env ...string) (failed bool, out string) {
		// Bounded: a gate that let nothing go would hang the bubble.
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, "-test.run=^TestFresh$", "-test.count=1")
		cmd.Dir = filepath.Join(dir, kernel)
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
	lines := bubbleMarks(t, filepath.Join(dir, kernel, kernel+".go"))
	tr := readTrace(t, tracePath)
	steps := map[string]plan.Point{}
	for i, pt := range Points(tr.Events) {
		ev := tr.Events[i]
		s, ok := sites.Lookup(ev.Site)
		if !ok || filepath.Base(s.File) != kernel+".go" {
			continue
		}
		for mark, line := range lines {
			want := trace.EvWrite
			if mark == "S2" {
				want = trace.EvRead
			}
			if s.Line == line && ev.Kind == want && strings.Contains(s.Expr, "entry") {
				if _, dup := steps[mark]; !dup {
					pt.Kind = ""
					steps[mark] = pt
				}
			}
		}
	}
	if len(steps) != len(lines) {
		t.Fatalf("found steps %v in the trace, want %v", steps, lines)
	}
	planPath := filepath.Join(tmp, "plan.json")
	return func(before, after string) (*Result, string) {
		p := &plan.Plan{Mode: "force", TimeoutMS: 500, Result: filepath.Join(tmp, "result-"+before+"-"+after+".jsonl"),
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
}

// bubbleMarks returns the lines of the "// S<n>" comments of a bubble
// kernel's file, by mark.
func bubbleMarks(t *testing.T, path string) map[string]int {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]int{}
	for i, l := range strings.Split(string(data), "\n") {
		if _, c, ok := strings.Cut(l, "// S"); ok && c != "" && c[0] >= '1' && c[0] <= '9' && (len(c) == 1 || c[1] == ':' || c[1] == ' ') {
			m["S"+c[:1]] = i + 1
		}
	}
	return m
}
