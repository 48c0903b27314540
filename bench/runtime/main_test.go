package main

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/precog-dev/precog/pipeline/instrument"
)

func TestVariantEnv(t *testing.T) {
	env := []string{"HOME=/h", "GODEBUG=gctrace=1", "PATH=/p"}
	for _, c := range []struct {
		env      []string
		settings string
		want     []string
	}{
		{env, "", env},
		{env, "adaptivestackstart=0", []string{"HOME=/h", "PATH=/p", "GODEBUG=gctrace=1,adaptivestackstart=0"}},
		{[]string{"HOME=/h"}, "adaptivestackstart=0", []string{"HOME=/h", "GODEBUG=adaptivestackstart=0"}},
	} {
		if got := variantEnv(slices.Clone(c.env), c.settings); !slices.Equal(got, c.want) {
			t.Errorf("variantEnv(%q, %q) = %q, want %q", c.env, c.settings, got, c.want)
		}
	}
}

// TestSameOutcomes: a test that ends otherwise in one run drops the
// workload, but for the flaky ones and their subtests, and those that failed
// in a plain or -race run; a test missing from a run drops it too.
func TestSameOutcomes(t *testing.T) {
	run := func(o map[string]string) []sample { return []sample{{outcomes: o}} }
	pass := map[string]string{"TestA": "PASS", "TestFlaky": "PASS", "TestFlaky/sub": "PASS"}
	var all [numVariants][]sample
	for v := range numVariants {
		all[v] = run(pass)
	}
	if _, err := sameOutcomes(all, nil); err != nil {
		t.Errorf("the same outcomes: %v", err)
	}
	all[precog] = run(map[string]string{"TestA": "PASS", "TestFlaky": "FAIL", "TestFlaky/sub": "FAIL"})
	if _, err := sameOutcomes(all, []string{"TestFlaky"}); err != nil {
		t.Errorf("a flaky test's failure: %v", err)
	}
	if _, err := sameOutcomes(all, nil); err == nil {
		t.Error("a test that failed in a precog run only: no error")
	}
	all[race] = append(all[race], run(map[string]string{"TestA": "PASS", "TestFlaky": "FAIL", "TestFlaky/sub": "FAIL"})...)
	if byItself, err := sameOutcomes(all, nil); err != nil || !slices.Equal(byItself, []string{"TestFlaky"}) {
		t.Errorf("a test that failed in a -race run too: %v, left out %q; want TestFlaky left out", err, byItself)
	}
	all[race] = run(pass)
	all[precog] = run(map[string]string{"TestA": "FAIL", "TestFlaky": "PASS", "TestFlaky/sub": "PASS"})
	if _, err := sameOutcomes(all, []string{"TestFlaky"}); err == nil {
		t.Error("another test's failure beside a flaky one: no error")
	}
	all[precog] = run(map[string]string{"TestFlaky": "PASS"})
	if _, err := sameOutcomes(all, []string{"TestFlaky"}); err == nil {
		t.Error("a test missing from a run: no error")
	}
}

// TestPrecogEnv: tracebackancestors only for a build with marks, the
// user's settings kept after it either way.
func TestPrecogEnv(t *testing.T) {
	for _, c := range []struct {
		env   []string
		marks bool
		want  []string
	}{
		{[]string{"HOME=/h", "GODEBUG=gctrace=1"}, true, []string{"HOME=/h", "GODEBUG=tracebackancestors=5,gctrace=1"}},
		{[]string{"HOME=/h", "GODEBUG=gctrace=1"}, false, []string{"HOME=/h", "GODEBUG=gctrace=1"}},
		{[]string{"HOME=/h"}, true, []string{"HOME=/h", "GODEBUG=tracebackancestors=5"}},
		{[]string{"HOME=/h"}, false, []string{"HOME=/h"}},
	} {
		if got := precogEnv(slices.Clone(c.env), c.marks); !slices.Equal(got, c.want) {
			t.Errorf("precogEnv(%q, %v) = %q, want %q", c.env, c.marks, got, c.want)
		}
	}
}

// TestRunsMarks: a whole binary's run needs tracebackancestors when one of
// the tests it runs may reach a marked call: not a benchmark's.
func TestRunsMarks(t *testing.T) {
	for _, c := range []struct {
		marks []string
		tests map[string][]string
		want  bool
	}{
		{nil, nil, false},
		{[]string{"p"}, nil, true}, // every test
		{[]string{"p"}, map[string][]string{"p": {"BenchmarkA", "BenchmarkB"}}, false},
		{[]string{"p"}, map[string][]string{"p": {"BenchmarkA", "TestB"}}, true},
		{[]string{"q"}, map[string][]string{"q": {"TestB"}}, false},
	} {
		inst := &instrument.Result{Marks: c.marks, MarkTests: c.tests}
		if got := runsMarks(inst, "p"); got != c.want {
			t.Errorf("runsMarks(%v, %v) = %v, want %v", c.marks, c.tests, got, c.want)
		}
	}
}

// TestKeptMarks: a kept build's marks file decides; without one (an
// older harness's), tracebackancestors as precog then set it for every test.
func TestKeptMarks(t *testing.T) {
	dir := t.TempDir()
	if !keptMarks(dir) {
		t.Error("no marks file: false, want true")
	}
	for _, c := range []struct {
		text string
		want bool
	}{{"false\n", false}, {"true\n", true}} {
		if err := os.WriteFile(filepath.Join(dir, marksFile), []byte(c.text), 0o666); err != nil {
			t.Fatal(err)
		}
		if got := keptMarks(dir); got != c.want {
			t.Errorf("marks file %q: %v, want %v", c.text, got, c.want)
		}
	}
}

// TestRatios: a ratio is that of the totals over the rounds (not the
// median of the rounds' ratios, which a single slow round of one variant
// moves), its interval holds it, closes on it when every round has the
// same ratio, and narrows as rounds are added.
func TestRatios(t *testing.T) {
	cpu := func(s sample) float64 { return s.cpu.Seconds() }
	runs := func(secs ...float64) []sample {
		var s []sample
		for _, x := range secs {
			s = append(s, sample{cpu: time.Duration(x * float64(time.Second))})
		}
		return s
	}
	r := ratios(runs(2, 2, 2, 6), runs(1, 1, 1, 1), cpu)
	if math.Abs(r.est-3) > 1e-9 {
		t.Errorf("totals 12 s and 4 s: %v, want 3x (the median of the rounds' ratios is 2x)", r)
	}
	if r.lo > r.est || r.hi < r.est || r.lo >= r.hi {
		t.Errorf("rounds of ratios 2, 2, 2 and 6: interval %v does not hold 3x or is empty", r)
	}
	if r := ratios(runs(2, 4, 6), runs(1, 2, 3), cpu); r.est != 2 || r.lo != 2 || r.hi != 2 {
		t.Errorf("every round 2x: %v, want 2x (2.00–2.00)", r)
	}
	if r := ratios(nil, runs(1), cpu); !math.IsNaN(r.est) {
		t.Errorf("a variant not run: %v, want NaN", r)
	}
	// Runs that vary by about 15% around 0.2 s and 0.34 s (1.7x), as
	// golang-lru's at a load of 25, in 100 simulated runs of the harness:
	// the interval of 24 rounds is narrower than that of 6 on average, and
	// holds 1.7x in most runs (about 90 of 100: it is a 90% interval).
	rnd := rand.New(rand.NewPCG(7, 7))
	noisy := func(n int, mean float64) []sample {
		s := make([]sample, n)
		for i := range s {
			s[i].cpu = time.Duration(mean * (1 + 0.15*rnd.NormFloat64()) * float64(time.Second))
		}
		return s
	}
	var width [2]float64
	var held [2]int
	for range 100 {
		for i, n := range []int{6, 24} {
			r := ratios(noisy(n, 0.34), noisy(n, 0.2), cpu)
			width[i] += r.hi - r.lo
			if r.lo <= 1.7 && r.hi >= 1.7 {
				held[i]++
			}
		}
	}
	t.Logf("6 rounds: mean width %.3f, 1.7x held %d of 100; 24 rounds: %.3f, %d", width[0]/100, held[0], width[1]/100, held[1])
	if width[1] >= width[0]*0.7 {
		t.Errorf("mean width of the interval: 24 rounds %.3f, 6 rounds %.3f; want the first narrower by half (1/sqrt(4))", width[1]/100, width[0]/100)
	}
	if held[0] < 70 || held[1] < 75 {
		t.Errorf("1.7x in the interval of %d of 100 runs of 6 rounds, %d of 24: want about 90", held[0], held[1])
	}
	// The geometric mean of 2x and 8x is 4x; its interval holds it.
	g := geoRatio([]ratio{ratios(runs(2, 4, 7), runs(1, 2, 3), cpu), ratios(runs(8, 16, 23), runs(1, 2, 3), cpu)})
	if math.Abs(g.est-math.Sqrt(13.0/6*47.0/6)) > 1e-9 || g.lo > g.est || g.hi < g.est {
		t.Errorf("geometric mean: %v, want %.3f inside its interval", g, math.Sqrt(13.0/6*47.0/6))
	}
	if g := geoRatio([]ratio{ratios(nil, runs(1), cpu)}); !math.IsNaN(g.est) {
		t.Errorf("geometric mean of a variant not run: %v, want NaN", g)
	}
}

// TestMoreRounds: the warm-up and -rounds rounds always, rounded up to
// whole cycles of the orders, then cycles while the plain CPU is short of
// -min-cpu, never past -max-rounds.
func TestMoreRounds(t *testing.T) {
	defer func(r int, c time.Duration, m int) { *rounds, *minCPU, *maxRounds = r, c, m }(*rounds, *minCPU, *maxRounds)
	*rounds, *minCPU, *maxRounds = 5, 4*time.Second, 25
	for _, c := range []struct {
		m     int
		cpu   time.Duration
		cycle int
		want  bool
	}{
		{-1, 0, 2, true},                 // warm-up
		{4, time.Hour, 2, true},          // within -rounds
		{5, time.Hour, 2, true},          // the rest of the third cycle of two
		{6, time.Second, 2, true},        // short of -min-cpu: a cycle more
		{6, 4 * time.Second, 2, false},   // enough
		{7, 4 * time.Second, 2, true},    // the second of a cycle
		{22, time.Second, 2, true},       // the last cycle that fits
		{23, time.Second, 2, true},       // its second
		{24, time.Second, 2, false},      // -max-rounds
		{5, 4 * time.Second, 6, true},    // the rest of the first cycle of six
		{6, 4 * time.Second, 6, false},   // enough
		{18, time.Second, 6, true},       // 24 rounds fit
		{24, time.Second, 6, false},      // 30 would not
		{10, 4 * time.Second, 10, false}, // two cycles of five variants
	} {
		if got := moreRounds(c.m, c.cpu, c.cycle); got != c.want {
			t.Errorf("moreRounds(%d, %v, %d) = %v, want %v", c.m, c.cpu, c.cycle, got, c.want)
		}
	}
}

// TestWilliams: over a cycle of the orders, each variant runs at each
// place of a round equally often, and right after each other variant
// equally often, for two to five variants; two alternate as before.
func TestWilliams(t *testing.T) {
	all := []variant{plain, race, precog, nomaps, base}
	for n := 2; n <= len(all); n++ {
		vs := all[:n]
		rows := williams(vs)
		if want := map[bool]int{true: n, false: 2 * n}[n%2 == 0]; len(rows) != want {
			t.Errorf("%d variants: a cycle of %d rounds, want %d", n, len(rows), want)
		}
		place := map[[2]int]int{}
		after := map[[2]variant]int{}
		for _, row := range rows {
			if !slices.Equal(slices.Sorted(slices.Values(row)), vs) {
				t.Fatalf("%d variants: round %v does not run each once", n, row)
			}
			for i, v := range row {
				place[[2]int{int(v), i}]++
				if i > 0 {
					after[[2]variant{row[i-1], v}]++
				}
			}
		}
		for _, v := range vs {
			for i := range n {
				if got := place[[2]int{int(v), i}]; got != len(rows)/n {
					t.Errorf("%d variants: %s at place %d in %d rounds of %d, want %d", n, variantNames[v], i, got, len(rows), len(rows)/n)
				}
			}
			for _, u := range vs {
				if got := after[[2]variant{u, v}]; u != v && got != len(rows)/n {
					t.Errorf("%d variants: %s right after %s %d times, want %d", n, variantNames[v], variantNames[u], got, len(rows)/n)
				}
			}
		}
	}
	if got := williams([]variant{plain, precog}); !slices.Equal(got[0], []variant{plain, precog}) || !slices.Equal(got[1], []variant{precog, plain}) {
		t.Errorf("two variants: %v, want plain, precog then precog, plain", got)
	}
}

// TestHeadline: the geometric mean takes the workloads over the 0.05 s
// floor but a short one, whatever the load made its CPU.
func TestHeadline(t *testing.T) {
	find := func(name string) workload {
		i := slices.IndexFunc(workloads, func(w workload) bool { return w.name == name })
		if i < 0 {
			t.Fatalf("no workload %s", name)
		}
		return workloads[i]
	}
	lru, errgroup := find("golang-lru"), find("x/sync/errgroup")
	for _, c := range []struct {
		w    workload
		cpu  float64
		want bool
	}{{lru, 0.2, true}, {lru, 0.04, false}, {errgroup, 0.04, false}, {errgroup, 0.06, false}} {
		if got := headline(c.w, c.cpu); got != c.want {
			t.Errorf("headline(%s, %.2f s) = %v, want %v", c.w.name, c.cpu, got, c.want)
		}
	}
}

func TestKernelShare(t *testing.T) {
	s := func(cpu, sys time.Duration) sample { return sample{cpu: cpu, sys: sys} }
	// Two rounds: precog costs 1.0 s more in all, 0.25 s of it in the
	// kernel; a third precog run without a plain one is left out.
	precog := []sample{s(1500*time.Millisecond, 300*time.Millisecond), s(1300*time.Millisecond, 200*time.Millisecond), s(9*time.Second, 9*time.Second)}
	plain := []sample{s(1000*time.Millisecond, 150*time.Millisecond), s(800*time.Millisecond, 100*time.Millisecond)}
	if got := kernelShare(precog, plain); math.Abs(got-0.25) > 1e-9 {
		t.Errorf("kernelShare = %v, want 0.25", got)
	}
	// The share of the sums, not the mean of the rounds' shares (0.1
	// and 0.5 here: 0.3).
	precog = []sample{s(2*time.Second, 200*time.Millisecond), s(1200*time.Millisecond, 200*time.Millisecond)}
	plain = []sample{s(1*time.Second, 100*time.Millisecond), s(1*time.Second, 100*time.Millisecond)}
	if got := kernelShare(precog, plain); math.Abs(got-200.0/1200) > 1e-9 {
		t.Errorf("kernelShare = %v, want %v", got, 200.0/1200)
	}
	if got := kernelShare(plain, plain); !math.IsNaN(got) {
		t.Errorf("kernelShare of equal runs = %v, want NaN", got)
	}
}
