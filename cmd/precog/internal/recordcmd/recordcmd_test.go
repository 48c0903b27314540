package recordcmd_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"github.com/precog-dev/precog/internal/testmod"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/precog-dev/precog/cmd/precog/internal/cli"
	"github.com/precog-dev/precog/cmd/precog/internal/recordcmd"
	"github.com/precog-dev/precog/detect/hb"
	"github.com/precog-dev/precog/detect/races"
	"github.com/precog-dev/precog/internal/leakcheck"
	"github.com/precog-dev/precog/internal/precogbin"
	"github.com/precog-dev/precog/internal/testcache"
	"github.com/precog-dev/precog/pipeline/control"
	"github.com/precog-dev/precog/pipeline/record"
	"github.com/precog-dev/precog/shim/trace"
)

var update = flag.Bool("update", false, "rewrite the golden files of the kernels")

func TestMain(m *testing.M) {
	code := leakcheck.Main(m)
	precogbin.Remove()
	os.Exit(code)
}

// kernels is the module of runtime bug kernels and negative controls.
var kernels, _ = filepath.Abs(filepath.Join("..", "..", "..", "..", "testdata", "kernels"))

func precog(t *testing.T, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errs bytes.Buffer
	env := &cli.Env{Stdout: &out, Stderr: &errs, Dir: dir}
	code = cli.Main(t.Context(), env, []*cli.Command{recordcmd.Command()}, args)
	return out.String(), errs.String(), code
}

// recording is one record of the kernels module, shared by the tests that
// read it, since it builds two test binaries per package.
type recording struct {
	dir    string
	index  *record.Index
	sites  *trace.SiteTable
	stderr string
}

// recordKernels records the golden packages into out with precogbin's
// binary, built without the race detector: the other tests here keep
// precog record's code under it (TestRecordKernels' CPU in .ci/run's
// setting, a new precog cache: 66.8 s in this process, 60.8 s so).
func recordKernels(t *testing.T, out string) *recording {
	t.Helper()
	args := append([]string{"record", "-o", out, "-cache", cacheDir}, goldenPackages...)
	_, stderr, code := precogbin.Run(t, kernels, args...)
	if code != 0 {
		t.Fatalf("precog record exited %d:\n%s", code, stderr)
	}
	ix, _ := readIndex(t, out)
	r := &recording{dir: out, index: ix, stderr: stderr}
	var err error
	if r.sites, err = trace.LoadSites(filepath.Join(out, r.index.Sites)); err != nil {
		t.Fatal(err)
	}
	return r
}

// readIndex reads the index.json that precog record wrote into out, and
// returns it with its text, for messages.
func readIndex(t *testing.T, out string) (*record.Index, []byte) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(out, record.IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	ix := new(record.Index)
	if err := json.Unmarshal(data, ix); err != nil {
		t.Fatal(err)
	}
	return ix, data
}

// test returns the recording's entry of the named test, or nil.
func (r *recording) test(importPath, name string) *record.Test {
	for _, p := range r.index.Packages {
		if p.ImportPath != importPath {
			continue
		}
		for _, t := range p.Tests {
			if t.Name == name {
				return t
			}
		}
	}
	return nil
}

var cacheDir string

// goldenPackages are the kernels whose recordings have goldens, and the
// recording controls. The rest of the corpus is for the detectors: its
// tests may fail under some schedules, which this test must not depend on.
var goldenPackages = []string{
	"./apache", "./click", "./controls", "./doneadd", "./fft", "./mapwrites",
	"./mysql", "./pbzip2mutex", "./pbzip2queue", "./tlogafter", "./transmission",
}

// TestRecordKernels records every kernel and control twice and checks the
// index, the summary, that the logical goroutine ids of each test are the
// same in both recordings, and that one of the two of each bug kernel
// shows the bug's sites and matches its golden (usualSchedule).
func TestRecordKernels(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs two test binaries per kernel package")
	}
	cacheDir = testcache.Dir()
	first := recordKernels(t, t.TempDir())
	second := recordKernels(t, t.TempDir())

	if !strings.Contains(first.stderr, "recorded ") || !strings.Contains(first.stderr, " uninstrumented (") {
		t.Errorf("summary missing from stderr:\n%s", first.stderr)
	}
	if len(first.index.Packages) < 11 {
		t.Errorf("recorded %d packages, want every kernel and the controls", len(first.index.Packages))
	}
	for _, p := range first.index.Packages {
		kernel := filepath.Base(filepath.FromSlash(p.ImportPath))
		for _, test := range p.Tests {
			t.Run(kernel+"/"+test.Name, func(t *testing.T) {
				if test.Broken != "" {
					t.Errorf("broken trace: %s", test.Broken)
				}
				// A bug kernel's test hides its bug by timing (pbzip2mutex's
				// consumer normally runs 1 ms before the producer deletes
				// the queue), which load can outlast in one run: one of the
				// two recordings must give the plain run's outcome.
				if test.PlainOutcome != test.Outcome {
					if t2 := second.test(p.ImportPath, test.Name); t2 == nil || t2.PlainOutcome != t2.Outcome {
						t.Errorf("outcome %s recorded, %s plain, in both recordings", test.Outcome, test.PlainOutcome)
					}
				}
				if h := readHeader(t, filepath.Join(first.dir, test.Trace)); h.Test != test.Name || h.Package != p.ImportPath {
					t.Errorf("trace header names test %q of %q, want %q of %q", h.Test, h.Package, test.Name, p.ImportPath)
				}
				evs := readEvents(t, filepath.Join(first.dir, test.Trace))
				sameOrder(t, filepath.Join(first.dir, test.Trace))
				sameStreamedRaces(t, filepath.Join(first.dir, test.Trace), evs, first.sites)
				again := readEvents(t, filepath.Join(second.dir, test.Trace))
				if a, b := goroutines(evs), goroutines(again); !slices.Equal(a, b) {
					t.Errorf("logical goroutine ids differ between two recordings:\n%v\n%v", a, b)
				}
				if kernel == "controls" {
					return
				}
				golden := filepath.Join(kernels, "golden", kernel+"."+test.Name+".txt")
				if *update {
					if err := os.MkdirAll(filepath.Dir(golden), 0o777); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(golden, []byte(canonical(evs, first.sites)), 0o666); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (run go test -update to write it)", err)
				}
				// The kernels' tests take their usual schedule by
				// timing (mysql's statement runs 2 ms after SHOW
				// PROCESSLIST may start): on a loaded machine one
				// recording can take another. One of the two must
				// show the bug's sites and the golden's events.
				marks := markedSites(t, filepath.Join(kernels, kernel))
				problems := usualSchedule(evs, first.sites, marks, string(want), golden)
				if len(problems) > 0 && len(usualSchedule(again, second.sites, marks, string(want), golden)) > 0 {
					for _, p := range problems {
						t.Error(p)
					}
				}
			})
		}
	}
}

// usualSchedule returns what differs in the recording evs from the
// kernel's usual schedule: a bug site (marked // S<n>) with no event, or
// events other than the golden's.
func usualSchedule(evs []trace.Event, sites *trace.SiteTable, marks []string, golden, goldenFile string) []string {
	var problems []string
	for _, site := range marks {
		if !recordedAt(evs, sites, site) && !unrecordedMarks[site] {
			problems = append(problems, fmt.Sprintf("no event at %s, a site of the bug (marked // S<n> in the kernel)", site))
		}
	}
	if got := canonical(evs, sites); !matchesGolden(golden, got) {
		problems = append(problems, fmt.Sprintf("trace differs from %s:\n%s", goldenFile, diff(golden, got)))
	}
	return problems
}

// unrecordedMarks are bug sites that are not instrumented operations:
// tlogafter's t.Logf (a testing call: the shim records the test's end, not
// the log) and the closing brace of its test (the end of the test's
// lifetime, recorded as TestEnd, which has no site).
var unrecordedMarks = map[string]bool{
	"tlogafter_test.go:15": true,
	"tlogafter_test.go:21": true,
}

// markedSites lists the lines of a kernel's files marked as sites of its
// bug with a comment "// S1", "// S2", ..., as file:line.
func markedSites(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var sites []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			if _, comment, ok := strings.Cut(line, "// S"); ok && len(comment) > 0 && comment[0] >= '1' && comment[0] <= '9' && !strings.HasPrefix(strings.TrimSpace(line), "//") {
				sites = append(sites, fmt.Sprintf("%s:%d", filepath.Base(f), i+1))
			}
		}
	}
	if len(sites) == 0 {
		t.Fatalf("no bug sites marked in %s", dir)
	}
	return sites
}

// recordedAt reports whether an event in evs comes from file:line site.
func recordedAt(evs []trace.Event, sites *trace.SiteTable, site string) bool {
	for _, ev := range evs {
		if s, ok := sites.Lookup(ev.Site); ok && fmt.Sprintf("%s:%d", filepath.Base(s.File), s.Line) == site {
			return true
		}
	}
	return false
}

func readEvents(t *testing.T, path string) []trace.Event {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, err := trace.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	return tr.Events
}

// sameStreamedRaces checks that the streamed race check (races.CheckStream
// over a trace.OrderedReader) gives, with a window longer than the trace,
// the in-memory path's race findings byte for byte (hb.Analyze with
// LockOrder, races.Check, the witnesses' Locks named by
// control.NameLocks, as precog test does), and with windows of 64 and 1
// events only races whose accesses the in-memory graph leaves unordered.
func sameStreamedRaces(t *testing.T, path string, evs []trace.Event, sites *trace.SiteTable) {
	t.Helper()
	g := hb.Analyze(evs, hb.Options{Sites: sites, LockOrder: true})
	fs := races.Check(g, sites, races.Options{})
	pts := control.Points(evs)
	for i := range fs {
		for j := range fs[i].Witnesses {
			control.NameLocks(evs, pts, &fs[i].Witnesses[j])
		}
	}
	want, _ := json.Marshal(fs)
	for _, window := range []int{len(evs) + 1, 64, 1} {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		fi, err := f.Stat()
		if err != nil {
			t.Fatal(err)
		}
		o, err := trace.NewOrderedReader(f, fi.Size())
		if err != nil {
			t.Fatal(err)
		}
		var st races.Stats
		got, err := races.CheckStream(o.Next, sites, races.Options{Window: window, Stats: &st})
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if window > len(evs) {
			if gotJSON, _ := json.Marshal(got); string(gotJSON) != string(want) {
				t.Errorf("streamed races:\n%s\nin memory:\n%s", gotJSON, want)
			}
			continue
		}
		for _, f := range got {
			ev := f.Witnesses[0].Events
			if !g.Concurrent(ev[0].Index, ev[1].Index) {
				t.Errorf("window %d: %s: its accesses %d and %d are ordered in memory", window, f.Message, ev[0].Index, ev[1].Index)
			}
		}
	}
}

// sameOrder checks that trace.ReadAll, which merges a trace's batches in
// the global order, reads what the shim wrote as a reader in file order
// followed by a sort does: the whole file, with its padding and its
// goroutines' interleaved batches, and the file cut at a few places (a
// cut at a batch's middle is damage; one in padding is not).
func sameOrder(t *testing.T, path string) {
	t.Helper()
	file, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sorted := func(b []byte) ([]trace.Event, error) {
		r, err := trace.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil, err
		}
		var evs []trace.Event
		for {
			ev, err := r.Next()
			if err != nil {
				if err == io.EOF {
					err = nil
				}
				trace.Sort(evs)
				return evs, err
			}
			evs = append(evs, ev)
		}
	}
	for _, n := range []int{len(file), len(file) / 2, len(file) / 3, 2 * len(file) / 3, max(len(file)-100, 0)} {
		want, wantErr := sorted(file[:n])
		tr, err := trace.ReadAll(bytes.NewReader(file[:n]))
		var got []trace.Event
		if tr != nil {
			got = tr.Events
		}
		if fmt.Sprint(err) != fmt.Sprint(wantErr) || !slices.Equal(got, want) {
			t.Errorf("first %d bytes of %d: ReadAll read %d events, error %v; in file order and sorted, %d, error %v", n, len(file), len(got), err, len(want), wantErr)
		}
	}
}

func readHeader(t *testing.T, path string) trace.Header {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := trace.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	return r.Header()
}

// goroutines lists the logical ids of the goroutines of a trace: those
// that began, and those a go statement (or a task) forked, whether or not
// they ran before the process ended (tlogafter's logger, which the test
// does not wait for, sometimes does not get to run on a loaded machine).
func goroutines(evs []trace.Event) []uint64 {
	var ids []uint64
	for _, ev := range evs {
		switch ev.Kind {
		case trace.EvBegin, trace.EvTestStart:
			ids = append(ids, ev.Goroutine)
		case trace.EvFork, trace.EvTaskGo:
			ids = append(ids, ev.Peer)
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// canonical renders a trace in a form that does not change from run to
// run of a deterministic kernel: each goroutine's events in program order
// (the order between goroutines is the scheduler's), goroutines named by
// where they were forked (logical ids hash site ids, which change whenever
// the instrumenter numbers sites differently), sites as file:line:col,
// addresses named after the expression of the site that first touched them
// in that order, written values as zero or nonzero (a nil store is what
// matters; times and counters vary), and no seqs or GC epochs.
func canonical(evs []trace.Event, sites *trace.SiteTable) string {
	byG := map[uint64][]trace.Event{}
	for _, ev := range evs {
		if ev.Kind != trace.EvGCEpoch {
			byG[ev.Goroutine] = append(byG[ev.Goroutine], ev)
		}
	}
	pos := func(site uint32) string {
		s, _ := sites.Lookup(site)
		return fmt.Sprintf("%s:%d:%d", filepath.Base(s.File), s.Line, s.Col)
	}
	// Name the goroutines: a root after its test, a child after its
	// parent, the go statement and how many children that statement had
	// forked before it.
	gname := map[uint64]string{}
	var nameChildren func(id uint64)
	nameChildren = func(id uint64) {
		forks := map[uint32]int{}
		for _, ev := range byG[id] {
			if ev.Kind == trace.EvFork || ev.Kind == trace.EvTaskGo {
				gname[ev.Peer] = fmt.Sprintf("%s > %s#%d", gname[id], pos(ev.Site), forks[ev.Site])
				forks[ev.Site]++
				nameChildren(ev.Peer)
			}
		}
	}
	var roots []string
	rootID := map[string]uint64{}
	for id, evs := range byG {
		if evs[0].Kind == trace.EvBegin && evs[0].Peer != trace.NoParent {
			continue
		}
		n := "root"
		for _, ev := range evs {
			if ev.Kind == trace.EvTestStart {
				n = ev.Name
				break
			}
		}
		for rootID[n] != 0 {
			n += "'"
		}
		rootID[n] = id
		roots = append(roots, n)
	}
	slices.Sort(roots)
	for _, n := range roots {
		gname[rootID[n]] = n
		nameChildren(rootID[n])
	}
	ids := make([]uint64, 0, len(byG))
	for id := range byG {
		if _, ok := gname[id]; !ok {
			gname[id] = fmt.Sprintf("unforked g=%d", id)
		}
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b uint64) int { return strings.Compare(gname[a], gname[b]) })

	names := map[uint64]string{}
	count := map[string]int{}
	name := func(addr uint64, site uint32) string {
		if addr == 0 {
			return "nil"
		}
		if n, ok := names[addr]; ok {
			return n
		}
		base := "?"
		if s, ok := sites.Lookup(site); ok && s.Expr != "" {
			base = s.Expr
		}
		count[base]++
		n := fmt.Sprintf("[%s]", base)
		if c := count[base]; c > 1 {
			n = fmt.Sprintf("[%s #%d]", base, c)
		}
		names[addr] = n
		return n
	}
	var out strings.Builder
	for _, id := range ids {
		fmt.Fprintf(&out, "%s\n", gname[id])
		for _, ev := range byG[id] {
			out.WriteString("\t" + ev.Kind.String())
			if ev.Site != 0 {
				out.WriteString(" " + pos(ev.Site))
			}
			switch ev.Kind {
			case trace.EvTestStart:
				fmt.Fprintf(&out, " %q", ev.Name)
			case trace.EvTestEnd:
				fmt.Fprintf(&out, " %s", trace.Outcome(ev.Value))
			}
			if ev.Addr != 0 || ev.Kind == trace.EvSelect {
				out.WriteString(" " + name(ev.Addr, ev.Site))
			}
			switch ev.Kind {
			case trace.EvWrite, trace.EvAtomicLoad, trace.EvAtomicStore:
				out.WriteString(map[bool]string{true: " zero", false: " nonzero"}[ev.Value == 0])
			case trace.EvChanMake:
				fmt.Fprintf(&out, " cap=%d", ev.Value)
			case trace.EvChanRecv, trace.EvTryLock, trace.EvSelect:
				fmt.Fprintf(&out, " ok=%v", ev.Value == 1)
			case trace.EvWGAdd:
				fmt.Fprintf(&out, " delta=%d", ev.Arg)
			}
			if ev.Kind == trace.EvSelect {
				fmt.Fprintf(&out, " case=%d", ev.Arg)
			}
			out.WriteString("\n")
		}
	}
	return out.String()
}

// matchesGolden reports whether the canonical trace got matches the golden
// want, goroutine by goroutine. A goroutine that got has not ended (no End)
// may have been cut short, or not have run at all, when the process exited:
// a goroutine the test does not wait for (tlogafter's logger) runs within
// its test's last sleep on an idle machine but not always under load. Its
// events must then be the start of the golden's. Every other goroutine must
// be the same.
func matchesGolden(want, got string) bool {
	w, g := sections(want), sections(got)
	for name, gl := range g {
		if _, ok := w[name]; !ok {
			return false
		}
		if len(gl) == 0 || gl[len(gl)-1] != "\tEnd" {
			continue // compared as a prefix below
		}
		if !slices.Equal(gl, w[name]) {
			return false
		}
	}
	for name, wl := range w {
		gl := g[name]
		if len(gl) > len(wl) || !slices.Equal(gl, wl[:len(gl)]) {
			return false
		}
		if len(gl) < len(wl) && !cutShort(name, g) {
			return false
		}
	}
	return true
}

// cutShort reports whether goroutine name, which has fewer events in g than
// in w, may have been cut short by the process's end: it is a forked
// goroutine (a test's own goroutine always runs to its End) whose parent
// is in g.
func cutShort(name string, g map[string][]string) bool {
	i := strings.LastIndex(name, " > ")
	if i < 0 {
		return false
	}
	_, parentRan := g[name[:i]]
	return parentRan
}

// sections splits a canonical trace into its goroutines' event lines, by
// goroutine name.
func sections(canon string) map[string][]string {
	out := map[string][]string{}
	var cur string
	for _, line := range strings.Split(strings.TrimSuffix(canon, "\n"), "\n") {
		if !strings.HasPrefix(line, "\t") {
			cur = line
			out[cur] = []string{}
			continue
		}
		out[cur] = append(out[cur], line)
	}
	return out
}

// diff shows the first lines where want and got differ.
func diff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(w), len(g)) {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return fmt.Sprintf("line %d:\nwant %q\ngot  %q", i+1, a, b)
		}
	}
	return "(no difference)"
}

func TestRecordErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
		code int
	}{
		{[]string{"record", "./..."}, "record needs an output directory: -o DIR", cli.ExitUsage},
		{[]string{"record", "-o", "out", "-cover", "./..."}, "coverage is not supported", cli.ExitUsage},
		{[]string{"record", "-o", "out", "-race", "./..."}, "run go test -race separately", cli.ExitUsage},
		{[]string{"record", "-o", "out", "-timeout", "-1s", "./..."}, "-timeout must be 0 (no limit) or positive", cli.ExitUsage},
		{[]string{"record", "-o", "out", "-record-budget", "-1s", "./..."}, "-record-budget must be 0 (no limit) or positive", cli.ExitUsage},
		{[]string{"record", "-o", "out", "-max-record", "-1", "./..."}, "-max-record must be 0 (no limit) or a positive number of MiB, got -1", cli.ExitUsage},
		{[]string{"record", "-o", "out", "-p", "0", "./..."}, "-p must be at least 1, got 0", cli.ExitUsage},
		{[]string{"record", "-o", "out", "./..."}, "no go.mod file", cli.ExitError},
		{[]string{"record", "-o", dir, "-C", kernels, "./nosuchdir"}, "nosuchdir", cli.ExitError},
		{[]string{"record", "-o", "out", "-C", "nosuchdir", "./..."}, "-C: ", cli.ExitError},
	} {
		_, stderr, code := precog(t, dir, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("precog %s: exit %d, stderr %q; want exit %d and %q", strings.Join(tc.args, " "), code, stderr, tc.code, tc.want)
		}
		if n := strings.Count(strings.TrimSpace(stderr), "\n"); n > 0 {
			t.Errorf("precog %s: %d lines of error, want one:\n%s", strings.Join(tc.args, " "), n+1, stderr)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a failed record left files in its directory: %v", entries)
	}
	// A directory that is not precog's output is refused before anything
	// is instrumented: the cache stays empty, the user's index.json as it
	// was.
	foreign, cache := filepath.Join(dir, "mine"), filepath.Join(t.TempDir(), "cache")
	os.Mkdir(foreign, 0o777)
	os.WriteFile(filepath.Join(foreign, "index.json"), []byte("mine"), 0o666)
	_, stderr, code := precog(t, kernels, "record", "-o", foreign, "-cache", cache, "./mysql")
	if code != cli.ExitError || !strings.Contains(stderr, "was not written by precog") {
		t.Errorf("record -o into a foreign directory: exit %d, stderr %q", code, stderr)
	}
	if data, _ := os.ReadFile(filepath.Join(foreign, "index.json")); string(data) != "mine" {
		t.Errorf("the user's index.json became %q", data)
	}
	if _, err := os.Stat(cache); !os.IsNotExist(err) {
		t.Errorf("record instrumented before refusing the directory: %v", err)
	}
}

// TestRecordPurePackage records a package without goroutines or shared
// state, in a module of its own outside precog's tree: its test still gets a
// trace, with the test's start and end. With a -record-budget spent at its
// first test, only that test runs, and the other is counted as not run.
func TestRecordPurePackage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":       "module example.com/pure\n\ngo 1.22\n",
		"pure.go":      "package pure\n\nfunc Double(n int) int { return 2 * n }\n",
		"pure_test.go": "package pure\n\nimport \"testing\"\n\nfunc TestDouble(t *testing.T) {\n\tif Double(2) != 4 {\n\t\tt.Fatal(\"wrong\")\n\t}\n}\n\nfunc TestTwice(t *testing.T) {\n\tif Double(Double(1)) != 4 {\n\t\tt.Fatal(\"wrong\")\n\t}\n}\n",
	}
	testmod.Write(t, dir, files)
	out := t.TempDir()
	// The shared cache: a fresh one costs about 11 s of CPU for the
	// shim's build, which is not what this test is about.
	_, stderr, code := precog(t, dir, "record", "-o", out, "-cache", testcache.Dir(), "-run", "^TestDouble$", ".")
	if code != 0 {
		t.Fatalf("precog record exited %d:\n%s", code, stderr)
	}
	ix, data := readIndex(t, out)
	if len(ix.Packages) != 1 || len(ix.Packages[0].Tests) != 1 {
		t.Fatalf("index %s, want one package with one test", data)
	}
	test := ix.Packages[0].Tests[0]
	if test.Outcome != record.Pass || test.Broken != "" {
		t.Fatalf("test recorded as %+v, want a pass", test)
	}
	var kinds []string
	for _, ev := range readEvents(t, filepath.Join(out, test.Trace)) {
		kinds = append(kinds, ev.Kind.String())
	}
	// The Read after TestStart names the test's T (site 0) for the
	// lifetime check of t.Log after the test; nothing else is recorded.
	if want := []string{"Begin", "TestStart", "Read", "TestEnd", "End"}; !slices.Equal(kinds, want) {
		t.Errorf("events %v, want %v", kinds, want)
	}
	_, stderr, code = precog(t, dir, "record", "-o", out, "-cache", testcache.Dir(), "-baseline=false", "-record-budget", "1ns", ".")
	if want := "recorded 1 test in 1 package"; code != 0 || !strings.Contains(stderr, want) || !strings.Contains(stderr, "recording stopped after 1ns (-record-budget) with 1 test not run\n") {
		t.Errorf("-record-budget 1ns: exit %d, stderr:\n%s\nwant 0, %q and one test not run", code, stderr, want)
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != len(files) {
		t.Errorf("the module directory changed: %v, %v", entries, err)
	}
}

// TestRecordGodebug: only a test binary whose build holds a marked call
// (a call into a package precog does not instrument that may start
// goroutines: httptest.NewServer) runs under GODEBUG=tracebackancestors,
// which the runtime pays at every go statement; the user's GODEBUG is
// kept in both. Package plain has a go statement and no mark; package
// marked marks NewServer in its test and gets its handler's EvAfter;
// package viadep has no mark of its own, but its test calls package
// server's, which marks NewServer. Only the tests that may reach a marked
// call run with the setting: marked's TestUnmarked, whose binary holds
// TestMarked's mark, runs without (index.json's Test.Marks).
func TestRecordGodebug(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	t.Setenv("GODEBUG", "madvdontneed=1")
	dir := t.TempDir()
	const show = "\tfmt.Printf(\"GODEBUG=[%s]\\n\", os.Getenv(\"GODEBUG\"))\n"
	const greeter = "type Greeter struct{ Greeting string }\n\nfunc (g *Greeter) ServeHTTP(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, g.Greeting) }\n"
	const get = "\tresp, err := http.Get(srv.URL)\n\tif err != nil {\n\t\tt.Fatal(err)\n\t}\n\tdefer resp.Body.Close()\n\tif body, _ := io.ReadAll(resp.Body); string(body) != \"hello\" {\n\t\tt.Fatalf(\"got %q\", body)\n\t}\n"
	files := map[string]string{
		"go.mod":              "module example.com/marks\n\ngo 1.22\n",
		"plain/plain_test.go": "package plain\n\nimport (\n\t\"fmt\"\n\t\"os\"\n\t\"testing\"\n)\n\nvar n int\n\nfunc TestPlain(t *testing.T) {\n" + show + "\tdone := make(chan bool)\n\tgo func() { n++; done <- true }()\n\t<-done\n\tif n != 1 {\n\t\tt.Fatal(n)\n\t}\n}\n",
		"marked/marked.go":    "package marked\n\nimport (\n\t\"fmt\"\n\t\"net/http\"\n)\n\n" + greeter,
		"marked/marked_test.go": "package marked\n\nimport (\n\t\"fmt\"\n\t\"io\"\n\t\"net/http\"\n\t\"net/http/httptest\"\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestMarked(t *testing.T) {\n" + show + "\tg := &Greeter{}\n\tdone := make(chan bool)\n\tgo func() { g.Greeting = \"hello\"; done <- true }()\n\t<-done\n\tsrv := httptest.NewServer(g)\n\tdefer srv.Close()\n" + get + "}\n\n" +
			// A test of the same binary that reaches no marked call
			// runs without the setting (instrument's markTests).
			"func TestUnmarked(t *testing.T) {\n" + show + "\tg := &Greeter{}\n\tdone := make(chan bool)\n\tgo func() { g.Greeting = \"hello\"; done <- true }()\n\t<-done\n\trec := httptest.NewRecorder()\n\tg.ServeHTTP(rec, nil)\n\tif rec.Body.String() != \"hello\" {\n\t\tt.Fatal(rec.Body)\n\t}\n}\n",
		"server/server.go":      "package server\n\nimport (\n\t\"net/http\"\n\t\"net/http/httptest\"\n)\n\nfunc Start(h http.Handler) *httptest.Server {\n\treturn httptest.NewServer(h)\n}\n",
		"viadep/viadep.go":      "package viadep\n\nimport (\n\t\"fmt\"\n\t\"net/http\"\n)\n\n" + greeter,
		"viadep/viadep_test.go": "package viadep\n\nimport (\n\t\"fmt\"\n\t\"io\"\n\t\"net/http\"\n\t\"os\"\n\t\"testing\"\n\n\t\"example.com/marks/server\"\n)\n\nfunc TestViaDep(t *testing.T) {\n" + show + "\tg := &Greeter{}\n\tdone := make(chan bool)\n\tgo func() { g.Greeting = \"hello\"; done <- true }()\n\t<-done\n\tsrv := server.Start(g)\n\tdefer srv.Close()\n" + get + "}\n",
	}
	testmod.Write(t, dir, files)
	out := t.TempDir()
	_, stderr, code := precog(t, dir, "record", "-o", out, "-cache", testcache.Dir(), "-baseline=false", "./...")
	if code != 0 {
		t.Fatalf("precog record exited %d:\n%s", code, stderr)
	}
	ix, data := readIndex(t, out)
	want := map[string]string{
		"example.com/marks/plain.TestPlain":     "madvdontneed=1",
		"example.com/marks/marked.TestMarked":   "tracebackancestors=5,madvdontneed=1",
		"example.com/marks/marked.TestUnmarked": "madvdontneed=1",
		"example.com/marks/viadep.TestViaDep":   "tracebackancestors=5,madvdontneed=1",
	}
	if ix.Version != record.IndexVersion || len(ix.Packages) != 3 {
		t.Fatalf("index %s, want version %d and the tests %v", data, record.IndexVersion, slices.Sorted(maps.Keys(want)))
	}
	seen := 0
	for _, p := range ix.Packages {
		for _, test := range p.Tests {
			godebug, ok := want[p.ImportPath+"."+test.Name]
			if !ok {
				t.Errorf("test %s.%s, want one of %v", p.ImportPath, test.Name, slices.Sorted(maps.Keys(want)))
				continue
			}
			seen++
			if test.Outcome != record.Pass {
				t.Errorf("%s.%s: %s, want a pass", p.ImportPath, test.Name, test.Outcome)
			}
			if marks := godebug != "madvdontneed=1"; test.Marks != marks {
				t.Errorf("%s.%s: index's marks %v, want %v", p.ImportPath, test.Name, test.Marks, marks)
			}
			if marks := p.ImportPath != "example.com/marks/plain"; p.Marks != marks {
				t.Errorf("%s: index's marks %v, want %v", p.ImportPath, p.Marks, marks)
			}
			log, err := os.ReadFile(filepath.Join(out, test.Log))
			if err != nil {
				t.Fatal(err)
			}
			if line := "GODEBUG=[" + godebug + "]\n"; !strings.Contains(string(log), line) {
				t.Errorf("%s.%s printed:\n%s\nwant %q", p.ImportPath, test.Name, log, line)
			}
			after := 0
			for _, ev := range readEvents(t, filepath.Join(out, test.Trace)) {
				if ev.Kind == trace.EvAfter {
					after++
				}
			}
			// The handler's goroutine is ordered after the test's mark
			// (two creation sections: NewServer's server goroutine
			// started the connection's).
			if got, want := after > 0, test.Marks; got != want {
				t.Errorf("%s.%s: %d EvAfter events, want some: %v", p.ImportPath, test.Name, after, want)
			}
		}
	}
	if seen != len(want) {
		t.Errorf("index %s: %d of the tests %v", data, seen, slices.Sorted(maps.Keys(want)))
	}
}

func TestMatchesGolden(t *testing.T) {
	const golden = "T\n\tBegin\n\tFork a.go:1:1\n\tEnd\nT > a.go:1:1#0\n\tBegin\n\tRead a.go:2:1 [x]\n\tEnd\n"
	for _, c := range []struct {
		name string
		got  string
		want bool
	}{
		{"same", golden, true},
		{"child never ran", "T\n\tBegin\n\tFork a.go:1:1\n\tEnd\n", true},
		{"child cut short", "T\n\tBegin\n\tFork a.go:1:1\n\tEnd\nT > a.go:1:1#0\n\tBegin\n", true},
		{"child ended early", "T\n\tBegin\n\tFork a.go:1:1\n\tEnd\nT > a.go:1:1#0\n\tBegin\n\tEnd\n", false},
		{"child did something else", "T\n\tBegin\n\tFork a.go:1:1\n\tEnd\nT > a.go:1:1#0\n\tBegin\n\tWrite a.go:2:1 [x]\n", false},
		{"root cut short", "T\n\tBegin\n\tFork a.go:1:1\n", false},
		{"extra goroutine", golden + "T > a.go:3:1#0\n\tBegin\n", false},
		{"extra event", strings.Replace(golden, "\tEnd\nT >", "\tRead a.go:9:1 [y]\n\tEnd\nT >", 1), false},
	} {
		if got := matchesGolden(golden, c.got); got != c.want {
			t.Errorf("%s: matchesGolden = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestRecordUnlisted checks that a package whose TestMain exits before its
// tests can be listed (it wants an environment variable, as go test would
// run it) is left out with one line saying why and the exit status 1, as
// go test fails it alone, and the other package is recorded.
func TestRecordUnlisted(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	dir := testmod.New(t, testmod.Unlisted())
	out := t.TempDir()
	_, stderr, code := precog(t, dir, "record", "-o", out, "-cache", testcache.Dir(), "./...")
	if want := "not recorded: package example.com/m/env: listing its tests: ENV_SERVER is not set\n"; code != 1 || !strings.HasSuffix(stderr, want) {
		t.Errorf("precog record exited %d, stderr:\n%s\nwant 1 and it ending %q", code, stderr, want)
	}
	ix, data := readIndex(t, out)
	if len(ix.Packages) != 1 || ix.Packages[0].ImportPath != "example.com/m/ok" || len(ix.Unlisted) != 1 {
		t.Errorf("index %s, want ok recorded and env unlisted", data)
	}
}
