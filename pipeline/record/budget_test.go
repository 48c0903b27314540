package record

import (
	"cmp"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestBudget checks Options.Budget: its clock starts with the first test,
// a test that starts within it and ends within its grace runs to its end,
// and the tests after it, in that package or in a later call sharing the
// budget (CFP's guided run after its cheap run), are not started but
// counted. Each test's progress names the budget and when it stops
// starting tests.
func TestBudget(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the test binary is a shell script")
	}
	dir := t.TempDir()
	// A stand-in for a test binary: each run takes 200ms and passes.
	bin := filepath.Join(dir, "pkg.test")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\nsleep 0.2\necho PASS\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		limit time.Duration
		// ran lists, for each of two calls sharing the budget, the
		// tests that ran.
		ran [2][]string
	}{
		{"none", 0, [2][]string{{"TestA", "TestB"}, {"TestC"}}},
		{"long enough", time.Minute, [2][]string{{"TestA", "TestB"}, {"TestC"}}},
		{"spent during the first test", 100 * time.Millisecond, [2][]string{{"TestA"}, nil}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var progress []Progress
			o := Options{Flags: &GoTestFlags{Timeout: time.Minute}, Budget: &Budget{Limit: tc.limit, Name: "-record-budget"},
				Progress: func(p Progress) { progress = append(progress, p) }}
			time.Sleep(150 * time.Millisecond) // the build: the clock starts at the first test
			start := time.Now()
			c := &counter{}
			notRun := 0
			for i, names := range [][]string{{"TestA", "TestB"}, {"TestC"}} {
				p, err := recordPackage(context.Background(), o, listedPackage{ImportPath: "example.com/pkg", Dir: dir}, names, "", bin, t.TempDir(), c)
				if err != nil {
					t.Fatal(err)
				}
				var ran []string
				for _, tt := range p.Tests {
					if tt.Outcome != Pass {
						t.Errorf("%s: %s, want pass", tt.Name, tt.Outcome)
					}
					ran = append(ran, tt.Name)
				}
				if !slices.Equal(ran, tc.ran[i]) {
					t.Errorf("call %d ran %v, want %v", i+1, ran, tc.ran[i])
				}
				notRun += len(names) - len(tc.ran[i])
			}
			if c.notRun != notRun {
				t.Errorf("%d tests counted as not run, want %d", c.notRun, notRun)
			}
			for _, p := range progress {
				switch {
				case tc.limit == 0 && (!p.Ends.IsZero() || p.Budget != ""):
					t.Errorf("%s: no budget, yet progress says it ends at %v (%q)", p.Test, p.Ends, p.Budget)
				case tc.limit > 0 && (p.Ends.Before(start.Add(tc.limit)) || p.Ends.After(time.Now().Add(tc.limit)) || p.Budget != "-record-budget"):
					t.Errorf("%s: progress says the budget %q ends %v after the first test's start, want %v, named -record-budget", p.Test, p.Budget, p.Ends.Sub(start), tc.limit)
				}
			}
		})
	}
}

// TestBudgetAfter checks Budget.Half and Budget.After, CFP's cheap run's
// budget and the guided run's after it: half the whole with a grace of an
// eighth of it at most (the default grace for a long budget), then what
// is left of the whole with its grace, and at least the share the cheap
// run was not given, however long its runs went on; spent already if
// nothing is.
func TestBudgetAfter(t *testing.T) {
	for _, tc := range []struct {
		whole        *Budget
		limit, grace time.Duration
	}{
		{&Budget{Limit: time.Minute}, 30 * time.Second, 7500 * time.Millisecond},
		{&Budget{Limit: 10 * time.Minute}, 5 * time.Minute, StopGrace},
		{&Budget{Limit: 10 * time.Minute, Grace: time.Second}, 5 * time.Minute, time.Second},
	} {
		if h := tc.whole.Half(); h.Limit != tc.limit || h.grace() != tc.grace {
			t.Errorf("half of %v (grace %v): limit %v, grace %v; want %v, %v", tc.whole.Limit, tc.whole.Grace, h.Limit, h.grace(), tc.limit, tc.grace)
		}
	}
	whole := &Budget{Limit: time.Minute, Name: "-record-budget"}
	if h, a := whole.Half(), whole.Half().After(whole); h.Name != "half of -record-budget" || a.Name != "-record-budget" {
		t.Errorf("names: half %q, after %q; want half of -record-budget, -record-budget", h.Name, a.Name)
	}
	unused := &Budget{Limit: time.Minute}
	if b := unused.After(&Budget{Limit: 2 * time.Minute, Grace: time.Second}); b.Limit != 2*time.Minute || b.Grace != time.Second || b.spent() {
		t.Errorf("after an unused budget: limit %v, grace %v, spent %v; want 2m, the whole's 1s, and not spent", b.Limit, b.Grace, b.spent())
	}
	within := &Budget{Limit: time.Hour}
	within.spent() // its first test starts the clock
	over := &Budget{Limit: time.Millisecond}
	over.spent()
	time.Sleep(5 * time.Millisecond)
	if b := within.After(&Budget{Limit: 2 * time.Hour}); b.Limit > 2*time.Hour-5*time.Millisecond || b.Limit <= time.Hour || b.spent() {
		t.Errorf("after 5ms of a 1h share of 2h: limit %v, spent %v; want under 2h-5ms and not spent", b.Limit, b.spent())
	}
	// The cheap run was given 1ms of 1h+1ms and ran 5ms: the guided run
	// keeps its own hour.
	if b := over.After(&Budget{Limit: time.Hour + time.Millisecond}); b.Limit != time.Hour || b.spent() {
		t.Errorf("after 5ms of a 1ms share of 1h+1ms: limit %v, spent %v; want 1h and not spent", b.Limit, b.spent())
	}
	if b := over.After(&Budget{Limit: time.Millisecond}); !b.spent() {
		t.Errorf("after 5ms of a 1ms share of 1ms: not spent")
	}
}

// TestBudgetStop checks how a spent Budget ends the test that is running:
// its process starts with -test.timeout cut to what is left of the budget
// and its grace, so that a test binary's own alarm stops it (the stand-in
// prints what the testing package prints then), and one that does not
// stop is killed, with the children it started, a little later; either
// way the test is Stopped, recorded up to there, and the tests after it
// are not run. The controls: a test that ends within the grace passes,
// and one that reaches the user's shorter -timeout timed out by itself.
func TestBudgetStop(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the test binary is a shell script")
	}
	dump, err := os.ReadFile(filepath.Join("..", "failure", "testdata", "timeout.txt"))
	if err != nil {
		t.Fatal(err)
	}
	// A stand-in for a test binary that runs for $RUN seconds and
	// honours -test.timeout as the testing package does: it writes its
	// arguments to args, starts a child that holds none of its pipes
	// (its pid in child), and if -test.timeout (given in ms or s, as
	// Budget's cuts are) comes first, it prints the alarm's panic and
	// goroutines and exits 2.
	honours := `#!/bin/sh
echo "$@" >> args
sleep 60 </dev/null >/dev/null 2>&1 &
echo $! > child
for a; do case $a in -test.timeout=*) t=${a#-test.timeout=};; esac; done
limit=$(echo "$t" | awk '/ms$/ { print substr($0, 1, length($0)-2) / 1000; next } /[0-9]s$/ { print substr($0, 1, length($0)-1); next } { print "bad" }')
if [ "$limit" = bad ]; then echo "unexpected -test.timeout=$t"; exit 3; fi
if awk "BEGIN { exit !($RUN < $limit) }"; then sleep $RUN; echo PASS; exit 0; fi
sleep $limit
cat dump.txt
exit 2
`
	// A test binary that ignores -test.timeout: it starts a child as
	// the other does, and sleeps.
	ignores := `#!/bin/sh
echo "$@" >> args
sleep 60 </dev/null >/dev/null 2>&1 &
echo $! > child
sleep 60
`
	for _, tc := range []struct {
		name    string
		script  string
		run     string        // $RUN, the honouring test's seconds
		timeout time.Duration // the user's -timeout
		want    Outcome
		wall    time.Duration // at most
	}{
		{"stopped by its alarm", honours, "5", time.Minute, Stopped, 4 * time.Second},
		{"killed", ignores, "", time.Minute, Stopped, 4 * time.Second},
		{"ends within the grace", honours, "0.25", time.Minute, Pass, 4 * time.Second},
		{"timed out by itself", honours, "5", 200 * time.Millisecond, Timeout, 4 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			bin := filepath.Join(dir, "pkg.test")
			if err := os.WriteFile(bin, []byte(tc.script), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "dump.txt"), dump, 0o666); err != nil {
				t.Fatal(err)
			}
			t.Setenv("RUN", tc.run)
			// The grace leaves the test that ends in 0.25 s most of a
			// second to spare on a loaded machine (300 ms once did not).
			b := &Budget{Limit: 100 * time.Millisecond, Grace: time.Second}
			o := Options{Flags: &GoTestFlags{Timeout: tc.timeout}, Budget: b, Runs: 2, Perturb: Perturb{Off: true}}
			c := &counter{}
			start := time.Now()
			p, err := recordPackage(t.Context(), o, listedPackage{ImportPath: "example.com/pkg", Dir: dir}, []string{"TestA", "TestB"}, "", bin, t.TempDir(), c)
			if err != nil {
				t.Fatal(err)
			}
			if d := time.Since(start); d > tc.wall {
				t.Errorf("recording took %v, want at most %v", d, tc.wall)
			}
			if len(p.Tests) != 1 || p.Tests[0].Name != "TestA" {
				t.Fatalf("recorded %d tests, want TestA alone", len(p.Tests))
			}
			ta := p.Tests[0]
			if ta.Outcome != tc.want {
				t.Errorf("TestA: %s, want %s", ta.Outcome, tc.want)
			}
			if len(ta.Runs) != 0 {
				t.Errorf("TestA had %d more runs after the budget was spent, want none", len(ta.Runs))
			}
			if c.notRun != 1 || c.done != 1 {
				t.Errorf("%d tests recorded and %d not run, want 1 and 1", c.done, c.notRun)
			}
			args, err := os.ReadFile(filepath.Join(dir, "args"))
			if err != nil {
				t.Fatal(err)
			}
			cut := b.Limit + b.Grace
			if tc.timeout < cut {
				cut = tc.timeout
			}
			if !strings.Contains(string(args), "-test.timeout=") {
				t.Fatalf("no -test.timeout in the arguments %q", args)
			}
			v := strings.Fields(strings.SplitN(string(args), "-test.timeout=", 2)[1])[0]
			if d, err := time.ParseDuration(v); err != nil || d > cut {
				t.Errorf("-test.timeout=%s, want at most %v", v, cut)
			}
			data, err := os.ReadFile(filepath.Join(dir, "child"))
			if err != nil {
				t.Fatal(err)
			}
			pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == Pass {
				syscall.Kill(pid, syscall.SIGKILL) // the test's own leftover
				return
			}
			// A test stopped or timed out leaves no process behind.
			for deadline := time.Now().Add(5 * time.Second); alive(pid); time.Sleep(50 * time.Millisecond) {
				if time.Now().After(deadline) {
					syscall.Kill(pid, syscall.SIGKILL)
					t.Fatalf("the test's child %d outlived its stop", pid)
				}
			}
		})
	}
}

// alive reports whether process pid runs: it exists and is not a zombie
// (a container's init may not reap the orphans it adopts).
func alive(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return syscall.Kill(pid, 0) == nil
	}
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	return len(f) > 0 && f[0] != "Z"
}

// TestBudgetMore checks Budget.More: asked only once Limit has passed and
// a test is about to start, with the events recorded under the budget
// (a run under way counted from its trace's size, at the bytes an event
// of the finished ones) and how long ago the end passed; a positive
// answer lets the test start and moves the end, none spends the budget;
// a lane that comes past the same end while another asks takes its
// answer, unasked. The control: a budget whose tests all start within
// Limit never asks (a job whose tests fit keeps its behaviour).
func TestBudgetMore(t *testing.T) {
	type ask struct {
		events int
		late   time.Duration
	}
	var asked []ask
	answer := time.Hour
	var b *Budget
	b = &Budget{Limit: time.Nanosecond, More: func(events int, late time.Duration) time.Duration {
		asked = append(asked, ask{events, late})
		return answer
	}}
	if b.spent() {
		t.Fatal("spent at its first test")
	}
	b.ran(7, 70, "")
	b.ran(5, 50, "")
	under := filepath.Join(t.TempDir(), "under.trace")
	if err := os.WriteFile(under, make([]byte, 40), 0o666); err != nil {
		t.Fatal(err)
	}
	b.run(under) // 40 bytes at 10 an event: 4 events
	b.ends = time.Now().Add(-time.Minute)
	if b.spent() {
		t.Errorf("spent after More gave an hour")
	}
	if len(asked) != 1 || asked[0].events != 16 || asked[0].late < time.Minute {
		t.Errorf("More asked with %v, want 16 events (12 recorded, 4 under way), a minute late", asked)
	}
	b.ran(0, 0, under)
	if e := b.end(); time.Until(e) < 59*time.Minute {
		t.Errorf("the end moved to %v from now, want about an hour", time.Until(e))
	}
	if b.spent() || len(asked) != 1 {
		t.Errorf("asked again (%v) within the hour it gave", asked)
	}
	// Another lane past the same end while More is asked: it waits for
	// the answer and starts its test on it, unasked.
	asked = nil
	b.ends = time.Now().Add(-time.Second)
	other := make(chan bool, 1)
	b.More = func(events int, late time.Duration) time.Duration {
		asked = append(asked, ask{events, late})
		if len(asked) == 1 {
			go func() { other <- b.spent() }()
			time.Sleep(50 * time.Millisecond) // the other lane's turn
		}
		return answer
	}
	if b.spent() {
		t.Error("spent after More gave an hour")
	}
	if <-other || len(asked) != 1 {
		t.Errorf("two lanes past one end: More asked %d times, want once", len(asked))
	}
	answer = 0
	b.ends = time.Now().Add(-time.Second) // the hour has passed
	if !b.spent() || len(asked) != 2 {
		t.Errorf("More answered 0 (asked %v): the budget is not spent", asked)
	}
	// The control.
	fits := &Budget{Limit: time.Hour, More: func(int, time.Duration) time.Duration { t.Error("More asked within Limit"); return 0 }}
	for range 3 {
		if fits.spent() {
			t.Error("spent within its hour")
		}
	}
	// After carries More to the guided run's budget.
	if a := (&Budget{Limit: time.Minute}).After(b); a.More == nil {
		t.Error("After dropped More")
	}
}

// TestBudgetFair checks Budget.Fair's arithmetic: a test process that
// starts gets what is left of Limit, times the lanes, over the tests not
// yet started (itself included), but at least Fair, and its stop is the
// budget's (Stopped); without Fair, what is left and the grace, as before.
func TestBudgetFair(t *testing.T) {
	near := func(got, want time.Duration) bool { return got <= want && got > want-time.Second }
	for _, tc := range []struct {
		name         string
		fair         time.Duration
		tests, lanes int
		started      int
		want         time.Duration
		bounded      bool
		user         time.Duration // the user's -timeout: 10m if 0
	}{
		// The README's job: -timeout 20s, under twice the floor of
		// 18.75s, is left as it is.
		{"a short -timeout of its own", 18750 * time.Millisecond, 1000, 1, 1, 20 * time.Second, false, 20 * time.Second},
		{"ten tests, one lane", 5 * time.Second, 10, 1, 1, 6 * time.Minute, true, 0},
		{"ten tests, two lanes", 5 * time.Second, 10, 2, 1, 10 * time.Minute, false, 0},  // 12 m: the user's 10 m first
		{"the last of ten", 5 * time.Second, 10, 1, 10, time.Hour + StopGrace, false, 0}, // all that is left: the user's 10 m
		{"a thousand tests: the floor", 5 * time.Second, 1000, 1, 1, 5 * time.Second, true, 0},
		{"no Fair", 0, 1000, 1, 1, 10 * time.Minute, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := &Budget{Limit: time.Hour, Fair: tc.fair}
			b.plan(tc.tests, tc.lanes)
			b.spent()
			for range tc.started {
				b.start()
			}
			user := &GoTestFlags{Timeout: cmp.Or(tc.user, 10*time.Minute)}
			f, bounded := b.flags(user)
			if want := min(tc.want, user.Timeout); !near(f.Timeout, want) || bounded != tc.bounded {
				t.Errorf("-timeout %v (bounded %v), want about %v (%v)", f.Timeout, bounded, want, tc.bounded)
			}
		})
	}
}

// TestBudgetFairStops records a package whose first test blocks and
// whose second takes no time, under a 3 s budget with Fair: the first
// is stopped at its fair part (1.5 s, half of what is left for two tests)
// and the second runs. Before Fair the first held the budget to its end
// and the second was not run (TestBudgetStop has that path).
func TestBudgetFairStops(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the test binary is a shell script")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "pkg.test")
	script := `#!/bin/sh
case "$*" in *TestBlocked*) exec sleep 60;; esac
echo PASS
`
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	b := &Budget{Limit: 3 * time.Second, Grace: 100 * time.Millisecond, Fair: 200 * time.Millisecond}
	b.plan(2, 1)
	o := Options{Flags: &GoTestFlags{Timeout: time.Minute}, Budget: b}
	c := &counter{}
	p, err := recordPackage(t.Context(), o, listedPackage{ImportPath: "example.com/pkg", Dir: dir}, []string{"TestBlocked", "TestQuick"}, "", bin, t.TempDir(), c)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tt := range p.Tests {
		got = append(got, tt.Name+" "+string(tt.Outcome))
	}
	if want := []string{"TestBlocked " + string(Stopped), "TestQuick " + string(Pass)}; !slices.Equal(got, want) {
		t.Errorf("recorded %v, want %v", got, want)
	}
}

// TestRecordLast checks Options.Last: the tests it names run after every
// package's others, one package at a time here (-p 1), and each package's
// index keeps its tests, the last ones at its end. The control: without
// Last, each package's tests run in their order, package by package.
func TestRecordLast(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the test binary is a shell script")
	}
	dir := t.TempDir()
	bin := t.TempDir()
	ran := filepath.Join(dir, "ran")
	pkgs := []listedPackage{{ImportPath: "example.com/a", Dir: dir}, {ImportPath: "example.com/b", Dir: dir}}
	for _, lp := range pkgs {
		path := testBinary(bin, lp)
		if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
			t.Fatal(err)
		}
		script := "#!/bin/sh\nfor a; do case $a in -test.run=*) echo \"" + lp.ImportPath + " ${a#-test.run=}\" >> " + ran + ";; esac; done\necho PASS\n"
		if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	names := [][]string{{"TestLong", "TestA"}, {"TestB"}}
	for _, tc := range []struct {
		name string
		last func(pkg, test string) bool
		want []string
	}{
		{"last", func(pkg, test string) bool { return test == "TestLong" }, []string{"a TestA", "b TestB", "a TestLong"}},
		{"control", nil, []string{"a TestLong", "a TestA", "b TestB"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(ran)
			o := Options{Flags: &GoTestFlags{Timeout: time.Minute}, Parallel: 1, Last: tc.last}
			recorded, interrupted, err := recordLast(t.Context(), o, pkgs, names, "", bin, t.TempDir(), &counter{})
			if err != nil || interrupted != nil {
				t.Fatal(err, interrupted)
			}
			data, err := os.ReadFile(ran)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
				f := strings.Fields(strings.TrimPrefix(l, "example.com/"))
				got = append(got, f[0]+" "+strings.Trim(f[1], "^$"))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("ran %v, want %v", got, tc.want)
			}
			var index []string
			for _, p := range recorded {
				for _, tt := range p.Tests {
					index = append(index, p.ImportPath+"."+tt.Name)
				}
			}
			if want := []string{"example.com/a.TestA", "example.com/a.TestLong", "example.com/b.TestB"}; tc.last != nil && !slices.Equal(index, want) {
				t.Errorf("index %v, want %v", index, want)
			}
		})
	}
}
