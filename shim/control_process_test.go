package shim

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/precog-dev/precog/shim/plan"
)

// The process tests run this test binary again with PRECOG_CONTROL set, as
// a driver runs a test: the shim's init loads the plan, and the child test
// (TestControlChild) runs a program whose goroutines have the same logical
// ids in every process.

const childEnv = "PRECOG_CONTROL_TEST_CHILD"

// childRoot is the logical id of the root goroutine of the child programs.
const childRoot = 0x6368696c64

// TestControlChild is the child's side; it runs only when a process test
// asks for it.
func TestControlChild(t *testing.T) {
	mode := os.Getenv(childEnv)
	if mode == "" {
		t.Skip("run by the process tests")
	}
	if v := os.Getenv("PRECOG_CONTROL"); v != "" {
		fmt.Printf("PRECOG_CONTROL=%s is still set: the shim must unset it\n", v)
		os.Exit(1)
	}
	// The child exits as soon as its program is done, without TestMain's
	// leak check (it has its own TMPDIR, which the parent removes).
	defer os.Exit(0)
	switch mode {
	case "mysql":
		childMySQL()
	case "panic":
		childPanic()
	case plan.Perturb:
		racyAppends(childRoot, nil)
	case plan.Replay:
		list := racyAppends(childRoot, nil)
		fmt.Printf("list %v\n", list)
		if out := os.Getenv(childEnv + "_TRACE"); out != "" {
			data, err := os.ReadFile(tracePath)
			if err == nil {
				err = os.WriteFile(out, data, 0o644)
			}
			if err != nil {
				fmt.Println(err)
				os.Exit(1)
			}
		}
	}
}

// childMySQL is testdata/kernels/mysql's TestProcInfo as the instrumenter
// writes it, crash included: SHOW PROCESSLIST dereferences thd.procInfo at
// S2.
func childMySQL() {
	done := make(chan struct{})
	go func() {
		Begin(childRoot)
		defer End()
		defer close(done)
		var thd procInfo
		running := make(chan struct{})
		finished := make(chan struct{})
		shown := make(chan string)
		now := make(chan struct{})
		close(now)
		spawn(siteSession, now, func() {
			defer close(finished)
			state := "executing"
			W(siteSet, &thd.p, &state)
			close(running)
			time.Sleep(2 * time.Millisecond)
			W(siteS3, &thd.p, nil)
		})
		spawn(siteShow, now, func() {
			<-running
			var out strings.Builder
			out.WriteString("1")
			if *R(siteS1, &thd.p) != nil {
				io.WriteString(&out, "\t")
				io.WriteString(&out, **R(siteS2, &thd.p))
			}
			shown <- out.String()
		})
		<-shown
		<-finished
	}()
	<-done
}

// childPanic runs two goroutines: the first panics before it reaches
// siteSet, the step a force plan puts before the second's write at siteS3.
func childPanic() {
	done := make(chan struct{})
	go func() {
		Begin(childRoot)
		defer End()
		var p *string
		now := make(chan struct{})
		close(now)
		spawn(siteSession, now, func() {
			if len(os.Args) > 0 {
				panic("boom before the step")
			}
			W(siteSet, &p, nil)
		})
		_, second := spawn(siteShow, now, func() { W(siteS3, &p, nil) })
		<-second
	}()
	<-done
}

// TestControlProcessPanicked runs childPanic under a plan that holds the
// second goroutine until the first passes its step: the first panics
// before it, and the result says so ("panicked") and has no final line,
// the second still held when the process died of the panic.
func TestControlProcessPanicked(t *testing.T) {
	first := childID(childRoot, siteSession, 0)
	second := childID(childRoot, siteShow, 0)
	before, after := plan.Point{G: first, Site: siteSet}, plan.Point{G: second, Site: siteS3}
	res, crashed, out := runChild(t, t.TempDir(), "panic", &plan.Plan{Mode: plan.Force, Edges: []plan.Edge{{Before: before, After: after}}})
	if !crashed || !strings.Contains(out, "panic: boom before the step") {
		t.Fatalf("the child did not die of its panic:\n%s", out)
	}
	recs := readResult(t, res)
	var panicked bool
	for _, r := range recs {
		switch {
		case r.Event == plan.EvPanicked && r.Point != nil && keyOf(*r.Point) == keyOf(before):
			panicked = true
		case r.Event == plan.EvPassed && r.Point != nil && keyOf(*r.Point) == keyOf(after):
			t.Errorf("the held step passed: %+v", r)
		}
	}
	if !panicked || final(recs).Event != "" {
		t.Errorf("want a panicked line for %v and no final line; the result:\n%+v", before, recs)
	}
}

// runChild runs the child program mode under plan p (none if nil) and
// returns its result file (if p) and whether it crashed.
func runChild(t *testing.T, dir, mode string, p *plan.Plan, env ...string) (result string, crashed bool, out string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestControlChild$", "-test.count=1", "-test.v")
	// GORACE: a race-enabled child would sleep a second at exit.
	cmd.Env = append(append(os.Environ(), childEnv+"="+mode, "TMPDIR="+dir, "GORACE=atexit_sleep_ms=0"), env...)
	if p != nil {
		f, err := os.CreateTemp(dir, "plan")
		if err != nil {
			t.Fatal(err)
		}
		p.Result = f.Name() + ".result"
		if err := json.NewEncoder(f).Encode(p); err != nil {
			t.Fatal(err)
		}
		f.Close()
		cmd.Env = append(cmd.Env, "PRECOG_CONTROL="+f.Name())
		result = p.Result
	}
	b, err := cmd.CombinedOutput()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return result, err != nil, string(b)
}

// TestControlProcessMySQL forces the proc_info crash in child processes,
// against its natural rate.
func TestControlProcessMySQL(t *testing.T) {
	runs := 100
	if testing.Short() || raceEnabled {
		runs = 10
	}
	dir := t.TempDir()
	session := childID(childRoot, siteSession, 0)
	show := childID(childRoot, siteShow, 0)
	natural, forced := 0, 0
	for range runs {
		if raceEnabled {
			break // the unforced kernel races, as it should
		}
		if _, crashed, out := runChild(t, dir, "mysql", nil); crashed {
			natural++
			if !strings.Contains(out, "nil pointer dereference") {
				t.Fatalf("unforced child failed:\n%s", out)
			}
		}
	}
	for i := range runs {
		res, crashed, out := runChild(t, dir, "mysql", procInfoPlan(session, show))
		if crashed && strings.Contains(out, "nil pointer dereference") {
			forced++
		}
		if f := final(readResult(t, res)); f.State != plan.Confirmed {
			t.Errorf("run %d: final %+v\n%s", i, f, out)
		}
	}
	t.Logf("proc_info crashes: %d of %d runs natural, %d of %d forced", natural, runs, forced, runs)
	if forced < runs*95/100 {
		t.Errorf("the forced order crashed %d of %d runs", forced, runs)
	}
}

// TestControlProcessPerturb runs a racy program in three processes, two
// with the same seed: those make the same decisions at the same points.
func TestControlProcessPerturb(t *testing.T) {
	dir := t.TempDir()
	decisions := func(seed uint64) map[plan.Point]string {
		res, crashed, out := runChild(t, dir, "perturb", &plan.Plan{Mode: "perturb", Seed: seed, Delay: 0.2, Yield: 0.3, MaxDelayUS: 100})
		if crashed {
			t.Fatalf("child failed:\n%s", out)
		}
		m := map[plan.Point]string{}
		for _, r := range readResult(t, res) {
			if r.Event == "delay" || r.Event == "yield" {
				m[*r.Point] = r.Event + time.Duration(r.WaitUS*1000).String()
			}
		}
		return m
	}
	a, b, c := decisions(3), decisions(3), decisions(4)
	if len(a) == 0 || !mapsEqual(a, b) {
		t.Errorf("seed 3 made %d and %d decisions, not the same", len(a), len(b))
	}
	if mapsEqual(a, c) {
		t.Error("seeds 3 and 4 made the same decisions")
	}
}

// TestControlProcessReplay records a racy program in one process and
// replays its order in others, as execution suppression will: each replay
// appends in the recorded order.
func TestControlProcessReplay(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "trace")
	// The recorded run is perturbed, to record an order the program
	// rarely takes by itself.
	perturb := &plan.Plan{Mode: "perturb", Seed: 5, Delay: 0.3, Yield: 0.3, MaxDelayUS: 200}
	_, crashed, out := runChild(t, dir, "replay", perturb, childEnv+"_TRACE="+tr)
	if crashed {
		t.Fatalf("recording child failed:\n%s", out)
	}
	want := listLine(out)
	ids := map[uint64]bool{}
	for _, id := range children(childRoot) {
		ids[id] = true
	}
	order := orderOf(readTrace(t, tr), ids, 0, ^uint64(0))
	if len(order) != 30 {
		t.Fatalf("the order has %d events, want 30", len(order))
	}
	for i := range 3 {
		res, crashed, out := runChild(t, dir, "replay", &plan.Plan{Mode: "replay", Order: order})
		if crashed {
			t.Fatalf("replaying child failed:\n%s", out)
		}
		if got := listLine(out); got != want {
			t.Errorf("replay %d: %s, recorded %s", i, got, want)
		}
		if f := final(readResult(t, res)); f.State != plan.Confirmed {
			t.Errorf("replay %d: final %+v", i, f)
		}
	}
}

// listLine returns the child's "list" line.
func listLine(out string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "list ") {
			return l
		}
	}
	return ""
}

// TestControlProcessBadPlan: a plan the shim rejects leaves the reason in
// the result file, and the program runs without control.
func TestControlProcessBadPlan(t *testing.T) {
	res, crashed, out := runChild(t, t.TempDir(), "perturb", &plan.Plan{Mode: "sideways"})
	if crashed || !strings.Contains(out, "precog shim: no control: unknown control mode") {
		t.Errorf("child: crashed %v\n%s", crashed, out)
	}
	if f := final(readResult(t, res)); f.State != "error" || !strings.Contains(f.Reason, "sideways") {
		t.Errorf("final %+v", f)
	}
}
