package instrument

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"github.com/precog-dev/precog/internal/testmod"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/precog-dev/precog/shim/trace"
)

// The kernels of testdata/kernels that kernelEvents names are instrumented
// and built once (into a copy of the module, so that the test can check
// that the tree is left as it was) and shared by the tests below.
var kernels struct {
	once     sync.Once
	dir      string // the copy of testdata/kernels
	cache    string
	bin      string // directory of the test binaries, <pkg>.test
	res      *Result
	before   string // hash of the copy before instrumenting
	err      error
	tmp      string
	sitesTab *trace.SiteTable
}

// sharedCache is the cache directory of the tests that build: sharing it
// lets them share the shim's compiled packages in the go build cache, as
// the shim's directory is part of what the build cache keys.
var sharedCache string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "precog-instrument-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	sharedCache = dir
	code := m.Run()
	os.RemoveAll(sharedCache)
	if kernels.tmp != "" {
		os.RemoveAll(kernels.tmp)
	}
	os.Exit(code)
}

// buildKernels instruments and builds the kernels, or skips the test when
// the go command is missing or the build would be too slow for -short.
func buildKernels(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds instrumented test binaries (about 20 s)")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	kernels.once.Do(func() {
		kernels.err = setupKernels()
	})
	if kernels.err != nil {
		t.Fatal(kernels.err)
	}
}

func setupKernels() error {
	tmp, err := os.MkdirTemp("", "precog-instrument-test-")
	if err != nil {
		return err
	}
	kernels.tmp = tmp
	kernels.dir = filepath.Join(tmp, "kernels")
	kernels.cache = sharedCache
	kernels.bin = filepath.Join(tmp, "bin")
	if err := os.CopyFS(kernels.dir, os.DirFS("../../testdata/kernels")); err != nil {
		return err
	}
	if kernels.before, err = treeHash(kernels.dir); err != nil {
		return err
	}
	kernels.res, err = Instrument(context.Background(), Config{
		Dir: kernels.dir, Patterns: kernelPatterns(), CacheDir: kernels.cache,
	})
	if err != nil {
		return fmt.Errorf("Instrument: %v", err)
	}
	if kernels.sitesTab, err = trace.LoadSites(kernels.res.Sites); err != nil {
		return err
	}
	args := append([]string{"test", "-c", "-o", kernels.bin + string(filepath.Separator)}, kernels.res.BuildFlags...)
	if out, err := goCmd(kernels.dir, append(args, kernelPatterns()...)...); err != nil {
		return fmt.Errorf("go test -c: %v\n%s", err, out)
	}
	return nil
}

func goCmd(dir string, args ...string) ([]byte, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=readonly", "GOPROXY=off", "GOWORK=off")
	return cmd.CombinedOutput()
}

// treeHash hashes the names, modes and contents of the files below dir.
func treeHash(dir string) (string, error) {
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s %v\n", p, info.Mode())
		if d.Type().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h.Write(data)
		}
		return nil
	})
	return fmt.Sprintf("%x", h.Sum(nil)), err
}

// runKernel runs the test binary of one kernel with recording on and
// returns its events.
func runKernel(t *testing.T, pkg string) []trace.Event {
	t.Helper()
	tr := filepath.Join(t.TempDir(), "trace")
	cmd := exec.Command(filepath.Join(kernels.bin, pkg+".test"), "-test.count=1", "-test.timeout=60s")
	cmd.Dir = filepath.Join(kernels.dir, pkg)
	cmd.Env = append(os.Environ(), "PRECOG_TRACE="+tr)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s.test: %v\n%s", pkg, err, out)
	}
	f, err := os.Open(tr)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := trace.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var evs []trace.Event
	for {
		ev, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("reading the trace of %s: %v", pkg, err)
		}
		evs = append(evs, ev)
	}
	return evs
}

// An expectation is an event a kernel's trace must hold: its kind and the
// source line of its site, found by a snippet of that line.
type expectation struct {
	kind    string
	file    string // in the kernel's directory
	snippet string
}

var kernelEvents = map[string][]expectation{
	"apache": {
		{"Fork", "apache_test.go", "go func() {"},
		{"Read", "apache.go", "if b.outcnt+n > len(b.outbuf) { // S1"},
		{"Write", "apache.go", "b.outcnt += n // W"},
		{"WGWait", "apache_test.go", "wg.Wait()"},
	},
	"click": {
		{"Fork", "click.go", "go t.driver()"},
		{"Write", "click.go", "t.router = nil // S1"},
		{"Read", "click.go", "for _, task := range t.router.tasks { // S2"},
		{"ChanClose", "click.go", "close(t.stop)"},
	},
	"doneadd": {
		{"WGAdd", "doneadd.go", "s.inflight.Add(1) // S1"},
		{"WGDone", "doneadd.go", "defer s.inflight.Done()"},
		{"Lock", "doneadd.go", "s.mu.Lock()"},
	},
	"fft": {
		{"Write", "fft.go", "gEnd = now() // S1"},
		{"Read", "fft.go", `fmt.Fprintf(out, "End at %d\n", gEnd-gStart) // S2`},
	},
	"mapwrites": {
		{"MapRead", "mapwrites.go", "addrs, ok := r.cache[host] // S1"},
		{"MapWrite", "mapwrites.go", "r.cache[host] = addrs // S2"},
		{"RLock", "mapwrites.go", "r.mu.RLock()"},
	},
	"mysql": {
		{"Write", "mysql.go", "thd.procInfo = nil // S3"},
		{"Read", "mysql.go", "if thd.procInfo != nil { // S1"},
		{"Read", "mysql.go", "io.WriteString(w, *thd.procInfo) // S2"},
		{"Lock", "mysql.go", "s.mu.Lock()"},
	},
	"pbzip2mutex": {
		{"Lock", "pbzip2mutex.go", "q.mu.Lock() // S2"},
		{"CondBroadcast", "pbzip2mutex.go", "q.notEmpty.Broadcast()"},
		{"Write", "pbzip2mutex.go", "q.mu = nil // S1"},
	},
	"pbzip2queue": {
		{"ChanSend", "pbzip2queue.go", "q.out <- block{seq: b.seq, data: compress(b.data)} // S2"},
		{"ChanClose", "pbzip2queue.go", "defer close(q.in)"},
	},
	"tlogafter": {
		{"ChanClose", "tlogafter.go", "close(w.events)"},
		{"Lock", "tlogafter.go", "w.mu.Lock()"},
	},
	"transmission": {
		{"Fork", "transmission.go", "go h.eventLoop()"},
		{"Write", "transmission.go", "h.band = newBandwidth(h) // S1"},
	},
}

// kernelPatterns are the packages of the kernels that TestKernels runs,
// sorted: the rest of the corpus serves the detectors' end-to-end test.
func kernelPatterns() []string {
	var ps []string
	for p := range kernelEvents {
		ps = append(ps, "./"+p)
	}
	slices.Sort(ps)
	return ps
}

// lineOf returns the line of path that contains snippet.
func lineOf(t *testing.T, path, snippet string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "//") && strings.Contains(l, snippet) {
			return i + 1
		}
	}
	t.Fatalf("%s has no line with %q", path, snippet)
	return 0
}

// TestKernels runs each instrumented kernel twice and checks the events its
// bug involves and that the logical goroutine ids are the same both times.
func TestKernels(t *testing.T) {
	buildKernels(t)
	pkgs := make([]string, 0, len(kernelEvents))
	for p := range kernelEvents {
		pkgs = append(pkgs, p)
	}
	slices.Sort(pkgs)
	for _, pkg := range pkgs {
		t.Run(pkg, func(t *testing.T) {
			evs := runKernel(t, pkg)
			for _, want := range kernelEvents[pkg] {
				path := filepath.Join(kernels.dir, pkg, want.file)
				line := lineOf(t, path, want.snippet)
				if !slices.ContainsFunc(evs, func(ev trace.Event) bool {
					s, ok := kernels.sitesTab.Lookup(ev.Site)
					return ok && ev.Kind.String() == want.kind && s.File == path && s.Line == line
				}) {
					t.Errorf("no %s event at %s:%d (%s)", want.kind, want.file, line, want.snippet)
				}
			}
			again := runKernel(t, pkg)
			if a, b := goroutineIDs(evs), goroutineIDs(again); !slices.Equal(a, b) {
				t.Errorf("logical goroutine ids differ between two runs:\n%v\n%v", a, b)
			}
		})
	}
}

// goroutineIDs lists the forks of a trace as "site->child", sorted: the
// logical ids the parents assigned.
func goroutineIDs(evs []trace.Event) []string {
	var out []string
	for _, ev := range evs {
		if ev.Kind == trace.EvFork {
			out = append(out, fmt.Sprintf("%d->%d", ev.Site, ev.Peer))
		}
	}
	slices.Sort(out)
	return out
}

// TestCacheHit checks that a second Instrument gives the same files and
// that the go build cache then has every instrumented package.
func TestCacheHit(t *testing.T) {
	buildKernels(t)
	res, err := Instrument(context.Background(), Config{Dir: kernels.dir, Patterns: kernelPatterns(), CacheDir: kernels.cache})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.BuildFlags, kernels.res.BuildFlags) || res.Sites != kernels.res.Sites {
		t.Errorf("second run gave %+v, first %+v", res, kernels.res)
	}
	args := append([]string{"test", "-c", "-x", "-o", t.TempDir() + string(filepath.Separator)}, res.BuildFlags...)
	out, err := goCmd(kernels.dir, append(args, "./mysql", "./apache")...)
	if err != nil {
		t.Fatalf("go test -c: %v\n%s", err, out)
	}
	for _, l := range strings.Split(string(out), "\n") {
		if strings.Contains(l, "/compile ") && strings.Contains(l, "precog.example/kernels") {
			t.Errorf("second build recompiled an instrumented package:\n%s", l)
		}
	}
}

// TestTreeUnchanged checks that nothing was written into the module.
func TestTreeUnchanged(t *testing.T) {
	buildKernels(t)
	after, err := treeHash(kernels.dir)
	if err != nil {
		t.Fatal(err)
	}
	if after != kernels.before {
		t.Error("instrumenting and building changed the module's directory")
	}
}

// TestSites checks the site table: ids from 1 without gaps, and files that
// exist.
func TestSites(t *testing.T) {
	buildKernels(t)
	for i, s := range kernels.sitesTab.Sites {
		if s.ID != uint32(i+1) {
			t.Fatalf("site %d has id %d", i, s.ID)
		}
		if !strings.HasPrefix(s.File, kernels.dir+string(filepath.Separator)) {
			t.Fatalf("site %d is in %s, outside the module", s.ID, s.File)
		}
	}
	if len(kernels.sitesTab.Sites) == 0 {
		t.Error("no sites")
	}
}

// TestErrors checks that what cannot be instrumented is said in one line.
func TestErrors(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	work := t.TempDir()
	os.WriteFile(filepath.Join(work, "go.work"), []byte("go 1.22\n\nuse ./m\n"), 0o666)
	os.MkdirAll(filepath.Join(work, "m"), 0o777)
	os.WriteFile(filepath.Join(work, "m", "go.mod"), []byte("module m\n\ngo 1.22\n"), 0o666)
	os.WriteFile(filepath.Join(work, "m", "m.go"), []byte("package m\n"), 0o666)
	kdir, _ := filepath.Abs("../../testdata/kernels")
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"no patterns", Config{Dir: kdir}, "package pattern list is empty"},
		{"empty pattern", Config{Dir: kdir, Patterns: []string{""}}, "empty package pattern"},
		{"missing dir", Config{Dir: filepath.Join(kdir, "nonesuch"), Patterns: []string{"./..."}}, "no such file or directory"},
		{"does not compile", Config{Dir: "testdata/broken", Patterns: []string{"./..."}}, "bad.go:4:27"},
		{"no match", Config{Dir: kdir, Patterns: []string{"precog.example/kernels/nonesuch/..."}}, "no packages matched"},
		{"deps pattern", Config{Dir: kdir, Patterns: []string{"./..."}, Deps: "./vendor/..."}, "-instrument-deps pattern"},
		{"deps pattern matches nothing", Config{Dir: kdir, Patterns: []string{"./..."}, Deps: "example.com/nosuchdep/..."}, `-instrument-deps pattern "example.com/nosuchdep/..." matches no package`},
		{"standard library", Config{Dir: kdir, Patterns: []string{"unsafe"}}, "standard library packages are never instrumented"},
		{"workspace", Config{Dir: filepath.Join(work, "m"), Patterns: []string{"./..."}}, "go.work workspaces are not supported"},
		{"vendor", Config{Dir: kdir, Patterns: []string{"./..."}, BuildFlags: []string{"-mod=vendor"}}, "-mod=vendor"},
		{"cover", Config{Dir: kdir, Patterns: []string{"./..."}, BuildFlags: []string{"-cover"}}, "-cover ignores the overlay"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.CacheDir = t.TempDir()
			_, err := Instrument(context.Background(), tc.cfg)
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q: want one line containing %q", err, tc.want)
			}
		})
	}
}

// TestDeps instruments a dependency from the module cache through a copy
// and runs the test that uses it.
func TestDeps(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test binary")
	}
	modCache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Skip("no go command")
	}
	dep := filepath.Join(strings.TrimSpace(string(modCache)), "golang.org", "x", "sync@v0.24.0")
	if _, err := os.Stat(dep); err != nil {
		t.Skip("golang.org/x/sync@v0.24.0 is not in the module cache")
	}
	dir, _ := filepath.Abs("testdata/deps")
	cache := sharedCache
	res, err := Instrument(context.Background(), Config{
		Dir: dir, Patterns: []string{"./..."}, Deps: "golang.org/x/sync/errgroup", CacheDir: cache,
		All: true, // the build through the copy is the point, not the filter
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(res.Packages, "golang.org/x/sync/errgroup") {
		t.Errorf("errgroup not instrumented: %v", res.Packages)
	}
	ov, err := os.ReadFile(strings.TrimPrefix(res.BuildFlags[0], "-overlay="))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(ov, []byte(dep)) {
		t.Errorf("the overlay names files in the module cache:\n%s", ov)
	}
	copyDir := filepath.Join(cache, "deps", "golang.org", "x", "sync@v0.24.0")
	if !bytes.Contains(ov, []byte(filepath.Join(copyDir, "errgroup", "errgroup.go"))) {
		t.Errorf("the overlay does not rewrite the copy of errgroup.go:\n%s", ov)
	}
	out, err := goCmd(dir, append(append([]string{"test", "-count=1"}, res.BuildFlags...), "-v", "./...")...)
	if err != nil {
		t.Fatalf("go test: %v\n%s", err, out)
	}
	if !bytes.Contains(out, []byte("--- PASS: TestSum")) {
		t.Errorf("go test output:\n%s", out)
	}
}

// TestSharedFilter compares the access sites that the shared-location
// filter keeps with those of -all, on the same packages (the kernels
// buildKernels instrumented), and checks that the filter keeps fewer but
// still every access the kernels' bugs involve (TestKernels checks the
// latter at run time).
func TestSharedFilter(t *testing.T) {
	buildKernels(t)
	all, err := Instrument(context.Background(), Config{Dir: kernels.dir, Patterns: kernelPatterns(), CacheDir: kernels.cache, All: true})
	if err != nil {
		t.Fatal(err)
	}
	allSites, err := trace.LoadSites(all.Sites)
	if err != nil {
		t.Fatal(err)
	}
	// Without the stored result, the run computes everything again
	// (loading, analysis, rewriting, site numbering): the same bytes, so
	// the same paths. (Every map that the run ranges over is ranged in a
	// new order.)
	if err := os.RemoveAll(filepath.Join(kernels.cache, "results")); err != nil {
		t.Fatal(err)
	}
	again, err := Instrument(context.Background(), Config{Dir: kernels.dir, Patterns: kernelPatterns(), CacheDir: kernels.cache, All: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(again.BuildFlags, all.BuildFlags) || again.Sites != all.Sites {
		t.Errorf("recomputed run gave %+v, first %+v", again, all)
	}
	a, s := memorySites(allSites), memorySites(kernels.sitesTab)
	t.Logf("memory access sites: -all %d, shared %d (%.0f%%); all sites: -all %d, shared %d",
		a, s, 100*float64(s)/float64(max(a, 1)), len(allSites.Sites), len(kernels.sitesTab.Sites))
	if s >= a {
		t.Errorf("the shared filter kept %d of %d access sites", s, a)
	}
}

// memorySites counts the sites of memory and map accesses.
func memorySites(t *trace.SiteTable) int {
	n := 0
	for _, s := range t.Sites {
		if s.Kind == "read" || s.Kind == "write" || strings.HasPrefix(s.Kind, "map") {
			n++
		}
	}
	return n
}

// TestOldGoVersion instruments and tests modules whose go line is older
// than the shim's: old (go1.20) keeps its version, with the shim's go.mod
// taking it and its files a go1.22 build constraint (a go1.22 line would
// change what old's loop captures); ancient (go1.13, before generics) is
// raised to go1.18 by the overlaid go.mod, so the rewritten files may call
// the shim's generic functions, and its build says -mod=readonly: the
// raised go line would turn on vendoring, which ancient's go line leaves
// off, and fail on its vendor/modules.txt of go1.13 (nxadm/tail's case).
// old has no vendor directory, and its build names no -mod.
func TestOldGoVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test binary")
	}
	for _, mod := range []string{"old", "ancient"} {
		t.Run(mod, func(t *testing.T) {
			dir, _ := filepath.Abs(filepath.Join("testdata", mod))
			res, err := Instrument(context.Background(), Config{Dir: dir, Patterns: []string{"./..."}, CacheDir: sharedCache, All: true})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := slices.Contains(res.BuildFlags, "-mod=readonly"), mod == "ancient"; got != want {
				t.Errorf("-mod=readonly in the build flags %v: %v, want %v", res.BuildFlags, got, want)
			}
			// As a user runs it: no GOFLAGS=-mod=readonly (goCmd's)
			// to hide a build that turned vendoring on.
			cmd := exec.Command("go", append(append([]string{"test", "-count=1"}, res.BuildFlags...), "./...")...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "GOFLAGS=", "GOPROXY=off", "GOWORK=off")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("go test: %v\n%s", err, out)
			}
		})
	}
}

// TestResultCache checks that a stored result is used only while its
// inputs are unchanged.
func TestResultCache(t *testing.T) {
	if testing.Short() {
		t.Skip("loads packages from source")
	}
	dir := filepath.Join(t.TempDir(), "tiny")
	if err := os.CopyFS(dir, os.DirFS("testdata/tiny")); err != nil {
		t.Fatal(err)
	}
	var steps []string
	cfg := Config{Dir: dir, Patterns: []string{"./..."}, CacheDir: t.TempDir(), Progress: func(s string) { steps = append(steps, s) }}
	first, err := Instrument(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	// The steps of the first run are reported in order; a stored result
	// has none.
	want := []string{
		"loading the packages",
		"analysed 0 of 1 packages (with their dependencies); analysing precog.example/tiny/tiny",
		"analysed 1 of 1 packages (with their dependencies)",
		"rewriting the files (1)",
	}
	if !slices.Equal(steps, want) {
		t.Errorf("steps %q, want %q", steps, want)
	}
	steps = nil
	again, err := Instrument(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) > 0 {
		t.Errorf("a stored result reported the steps %q", steps)
	}
	if !slices.Equal(first.BuildFlags, again.BuildFlags) {
		t.Errorf("unchanged inputs gave %v, then %v", first.BuildFlags, again.BuildFlags)
	}
	src := filepath.Join(dir, "tiny", "tiny.go")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	data = bytes.Replace(data, []byte("x = 2"), []byte("x = 3"), 1)
	if err := os.WriteFile(src, data, 0o666); err != nil {
		t.Fatal(err)
	}
	changed, err := Instrument(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(first.BuildFlags, changed.BuildFlags) {
		t.Error("an edited file gave the stored result")
	}
	// A stored result whose files are gone is not used.
	os.RemoveAll(filepath.Join(cfg.CacheDir, "files"))
	redone, err := Instrument(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	ov, err := os.ReadFile(strings.TrimPrefix(redone.BuildFlags[0], "-overlay="))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(ov, []byte("tiny.go")) {
		t.Fatalf("overlay without tiny.go:\n%s", ov)
	}
	if _, err := os.Stat(filepath.Join(cfg.CacheDir, "files")); err != nil {
		t.Errorf("the rewritten files were not written again: %v", err)
	}
}

// TestBrokenTestVariant checks a package whose own tests do not
// type-check but whose code another package's tests use: its tests are
// left out (Result.Broken), and its files, whose preferred variant ("p
// [p.test]") was the one analysed and failed, are rewritten from the
// package itself with every access recorded. The control, q.go, is
// analysed: its access to a local is not.
func TestBrokenTestVariant(t *testing.T) {
	if testing.Short() {
		t.Skip("loads packages from source")
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":      "module example.com/m\n\ngo 1.22\n",
		"p/p.go":      "package p\n\nvar X int\n\nfunc Inc() { X++ }\n",
		"p/p_test.go": "package p\n\nimport \"testing\"\n\nfunc TestP(t *testing.T) { var s string = 1; _ = s }\n",
		"q/q.go":      "package q\n\nimport \"example.com/m/p\"\n\nfunc Do() int {\n\tn := new(int)\n\t*n = 1\n\tp.Inc()\n\treturn *n\n}\n",
		"q/q_test.go": "package q\n\nimport \"testing\"\n\nfunc TestDo(t *testing.T) {\n\tdone := make(chan bool)\n\tgo func() { Do(); done <- true }()\n\tDo()\n\t<-done\n}\n",
	}
	testmod.Write(t, dir, files)
	res, err := Instrument(context.Background(), Config{Dir: dir, Patterns: []string{"./..."}, CacheDir: t.TempDir(), SkipBroken: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Broken) != 1 || !strings.HasPrefix(res.Broken[0], "package example.com/m/p: ") || !slices.Equal(res.Tested, []string{"example.com/m/q"}) {
		t.Fatalf("broken %q, tested %q; want p broken, q tested", res.Broken, res.Tested)
	}
	tab, err := trace.LoadSites(res.Sites)
	if err != nil {
		t.Fatal(err)
	}
	got := make(map[string]bool) // base:line of the memory access sites
	for _, s := range tab.Sites {
		if s.Kind == "read" || s.Kind == "write" {
			got[fmt.Sprintf("%s:%d", filepath.Base(s.File), s.Line)] = true
		}
	}
	if !got["p.go:5"] {
		t.Errorf("X++ in p.go is not recorded: sites %v", got)
	}
	if got["q.go:7"] || got["q.go:9"] {
		t.Errorf("q.go's local *n is recorded: sites %v", got)
	}
}

// TestConcurrentRuns runs two Instruments on one empty cache at once, as
// two precog processes may: both must succeed with the same result.
func TestConcurrentRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("loads packages from source")
	}
	dir, _ := filepath.Abs("testdata/tiny")
	cfg := Config{Dir: dir, Patterns: []string{"./..."}, CacheDir: t.TempDir()}
	var wg sync.WaitGroup
	var res [2]*Result
	var errs [2]error
	for i := range res {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res[i], errs[i] = Instrument(context.Background(), cfg)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(res[0].BuildFlags, res[1].BuildFlags) || res[0].Sites != res[1].Sites {
		t.Errorf("concurrent runs differ: %+v, %+v", res[0], res[1])
	}
	leftovers, _ := filepath.Glob(filepath.Join(cfg.CacheDir, "*", ".tmp-*"))
	if len(leftovers) > 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}

// TestSelfHosted instruments a package of precog's own module, which
// provides the shim's import path itself: no shim module is injected, and
// no file of the shim is overlaid.
func TestSelfHosted(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test binary")
	}
	root, _ := filepath.Abs("../..")
	res, err := Instrument(context.Background(), Config{Dir: root, Patterns: []string{"./internal/leakcheck"}, CacheDir: sharedCache, All: true})
	if err != nil {
		t.Fatal(err)
	}
	ov, err := os.ReadFile(strings.TrimPrefix(res.BuildFlags[0], "-overlay="))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(ov, []byte(filepath.Join(root, "shim")+string(filepath.Separator))) {
		t.Errorf("the overlay touches the shim:\n%s", ov)
	}
	if bytes.Contains(ov, []byte(filepath.Join(root, "go.mod"))) {
		t.Errorf("the overlay changes precog's go.mod:\n%s", ov)
	}
	out, err := goCmd(root, append(append([]string{"test", "-count=1"}, res.BuildFlags...), "./internal/leakcheck")...)
	if err != nil {
		t.Fatalf("go test: %v\n%s", err, out)
	}
}

// TestOldDependency instruments gopkg.in/yaml.v3, whose go.mod predates
// graph pruning and generics: its copy needs a newer go line.
func TestOldDependency(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test binary")
	}
	modCache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Skip("no go command")
	}
	mc := strings.TrimSpace(string(modCache))
	for _, p := range []string{"gopkg.in/yaml.v3@v3.0.1", "cache/download/gopkg.in/check.v1/@v/v0.0.0-20161208181325-20d25e280405.mod"} {
		if _, err := os.Stat(filepath.Join(mc, p)); err != nil {
			t.Skipf("%s is not in the module cache", p)
		}
	}
	dir, _ := filepath.Abs("testdata/olddep")
	res, err := Instrument(context.Background(), Config{Dir: dir, Patterns: []string{"./..."}, Deps: "gopkg.in/yaml.v3", CacheDir: sharedCache, All: true})
	if err != nil {
		t.Fatal(err)
	}
	ov, err := os.ReadFile(strings.TrimPrefix(res.BuildFlags[0], "-overlay="))
	if err != nil {
		t.Fatal(err)
	}
	copyMod, err := os.ReadFile(filepath.Join(sharedCache, "deps", "gopkg.in", "yaml.v3@v3.0.1", "go.mod"))
	if err != nil {
		t.Fatalf("no copy of yaml.v3: %v\n%s", err, ov)
	}
	if !bytes.Contains(copyMod, []byte("\ngo 1.21\n")) {
		t.Errorf("the copy's go.mod does not say go 1.21:\n%s", copyMod)
	}
	out, err := goCmd(dir, append(append([]string{"test", "-count=1"}, res.BuildFlags...), "./...")...)
	if err != nil {
		t.Fatalf("go test: %v\n%s", err, out)
	}
}

// TestGoModSum checks the go.sum hash of a go.mod file computed from the
// module cache against the one go mod download gives.
func TestGoModSum(t *testing.T) {
	modCache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Skip("no go command")
	}
	mc := strings.TrimSpace(string(modCache))
	const path, version = "gopkg.in/check.v1", "v0.0.0-20161208181325-20d25e280405"
	if _, err := os.Stat(filepath.Join(mc, "cache", "download", path, "@v", version+".mod")); err != nil {
		t.Skip("not in the module cache")
	}
	got, err := goModSum(context.Background(), mc, path, version)
	if want := "h1:Co6ibVJAznAaIkqp8huTwlJQCZ016jof/cbN4VW5Yz0="; got != want || err != nil {
		t.Errorf("goModSum = %q, %v; want %q", got, err, want)
	}
	m := missingGoModSum.FindStringSubmatch("\tgopkg.in/check.v1@" + version + ": missing go.sum entry for go.mod file; to add it:")
	if len(m) != 3 || m[1] != path || m[2] != version {
		t.Errorf("missingGoModSum matched %q", m)
	}
}

// TestEmbeddedSource: a source file that its package's test embeds
// (//go:embed p.go, as a file server's tests serve their own source) is
// left as it is, so that the test sees the file on disk; the package's
// other file is instrumented, and its calls into the embedded file's
// functions pass no Local (the build compiles). Without the rule the
// test fails only when instrumented.
func TestEmbeddedSource(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs an instrumented test")
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.22\n",
		"p/p.go": "package p\n\nvar X int\n\nfunc inc() { X++ }\n",
		"p/q.go": "package p\n\nvar Y int\n\nfunc Do() { Y++; inc() }\n",
		"p/p_test.go": "package p\n\nimport (\n\t_ \"embed\"\n\t\"os\"\n\t\"testing\"\n)\n\n//go:embed p.go\nvar src string\n\n" +
			"func TestSource(t *testing.T) {\n\tDo()\n\tdisk, err := os.ReadFile(\"p.go\")\n\tif err != nil || string(disk) != src {\n\t\tt.Fatalf(\"embedded p.go differs from the file: %q\", src)\n\t}\n}\n",
	}
	testmod.Write(t, dir, files)
	res, err := Instrument(context.Background(), Config{Dir: dir, Patterns: []string{"./..."}, CacheDir: sharedCache})
	if err != nil {
		t.Fatal(err)
	}
	tab, err := trace.LoadSites(res.Sites)
	if err != nil {
		t.Fatal(err)
	}
	files2 := make(map[string]bool)
	for _, s := range tab.Sites {
		files2[filepath.Base(s.File)] = true
	}
	if files2["p.go"] || !files2["q.go"] {
		t.Errorf("sites in %v: want q.go's and none in the embedded p.go", files2)
	}
	if out, err := goCmd(dir, append(append([]string{"test"}, res.BuildFlags...), "./p")...); err != nil {
		t.Errorf("the instrumented test: %v\n%s", err, out)
	}
}
