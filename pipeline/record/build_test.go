package record

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/precog-dev/precog/internal/testmod"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestBuildTestsCollidingNames builds the test binaries of two packages
// whose import paths end alike, which one go test -c -o dir/ refuses, and
// runs each to check it is its own package's, named as go test names it
// (its test fails under another name; c/y's, the control, under its own).
func TestBuildTestsCollidingNames(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two test binaries")
	}
	mod := writeModule(t, map[string]string{
		"go.mod":          "module example.com/m\n\ngo 1.22\n",
		"a/x/x_test.go":   named("x", "TestFromA", "x.test"),
		"b/x/x_test.go":   named("x", "TestFromB", "x.test"),
		"c/y/y_test.go":   named("y", "TestFromC", "y.test"),
		"c/y/y_unused.go": "package y\n",
	})
	pkgs, err := listTestPackages(t.Context(), mod, nil, []string{"./..."})
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	var built [][2]int
	if err := buildTests(t.Context(), mod, out, nil, pkgs, func(n, of int) { built = append(built, [2]int{n, of}) }, ""); err != nil {
		t.Fatal(err)
	}
	if len(built) == 0 || built[0] != [2]int{0, 3} {
		t.Errorf("progress of the build %v, want 0 of 3 first", built)
	}
	want := map[string]string{"example.com/m/a/x": "TestFromA", "example.com/m/b/x": "TestFromB", "example.com/m/c/y": "TestFromC"}
	if len(pkgs) != len(want) {
		t.Fatalf("listed %d packages, want %d", len(pkgs), len(want))
	}
	for _, p := range pkgs {
		list, err := exec.Command(testBinary(out, p), "-test.list=.").Output()
		if err != nil {
			t.Fatalf("%s: %v", p.ImportPath, err)
		}
		if got := strings.TrimSpace(string(list)); got != want[p.ImportPath] {
			t.Errorf("test binary of %s lists %q, want %q", p.ImportPath, got, want[p.ImportPath])
		}
		if out, err := exec.Command(testBinary(out, p), "-test.run=.").CombinedOutput(); err != nil {
			t.Errorf("test binary of %s: %v: %s", p.ImportPath, err, out)
		}
	}
}

// TestLinkCache builds the test binaries of a module three times through
// one link cache: the second build links nothing again (the cache's
// binaries are the same files, which the go command only touches), and each run's binaries are
// hard links to the cache's; after an edit of one package, the third
// build relinks that package's binary alone, and the second run's link to
// it still runs the binary before the edit.
func TestLinkCache(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	mod := writeModule(t, map[string]string{
		"go.mod":      "module example.com/m\n\ngo 1.22\n",
		"a/a_test.go": "package a\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) {}\n",
		"b/b_test.go": "package b\n\nimport \"testing\"\n\nfunc TestB(t *testing.T) {}\n",
	})
	pkgs, err := listTestPackages(t.Context(), mod, nil, []string{"./..."})
	if err != nil {
		t.Fatal(err)
	}
	links := t.TempDir()
	cached := func(p listedPackage) os.FileInfo {
		t.Helper()
		fi, err := os.Stat(filepath.Join(links, linkKey(mod, nil), "0", BinaryName(p.ImportPath)))
		if err != nil {
			t.Fatal(err)
		}
		return fi
	}
	build := func() string {
		t.Helper()
		out := filepath.Join(links, "run"+strconv.Itoa(rand.Int()))
		if err := buildTests(t.Context(), mod, out, nil, pkgs, nil, links); err != nil {
			t.Fatal(err)
		}
		for _, p := range pkgs {
			fi, err := os.Stat(testBinary(out, p))
			if err != nil {
				t.Fatal(err)
			}
			if !os.SameFile(fi, cached(p)) {
				t.Errorf("%s: the run's binary is not a link to the cache's", p.ImportPath)
			}
		}
		return out
	}
	build()
	first := map[string]os.FileInfo{}
	for _, p := range pkgs {
		first[p.ImportPath] = cached(p)
	}
	second := build()
	for _, p := range pkgs {
		if !os.SameFile(cached(p), first[p.ImportPath]) {
			t.Errorf("%s: linked again with nothing changed", p.ImportPath)
		}
	}
	if err := os.WriteFile(filepath.Join(mod, "a", "a_test.go"), []byte("package a\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) {}\n\nfunc TestEdited(t *testing.T) {}\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	build()
	for _, p := range pkgs {
		relinked := !os.SameFile(cached(p), first[p.ImportPath])
		if edited := p.ImportPath == "example.com/m/a"; relinked != edited {
			t.Errorf("%s: relinked %v after an edit of a alone", p.ImportPath, relinked)
		}
		if p.ImportPath == "example.com/m/a" {
			list, err := exec.Command(testBinary(second, p), "-test.list=.").Output()
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSpace(string(list)); got != "TestA" {
				t.Errorf("the second run's binary of a lists %q after the third build, want its own TestA", got)
			}
		}
	}
}

// named is a test file of package pkg whose test fails unless its binary
// is named bin.
func named(pkg, test, bin string) string {
	return "package " + pkg + "\n\nimport (\n\t\"os\"\n\t\"path/filepath\"\n\t\"testing\"\n)\n\n" +
		"func " + test + "(t *testing.T) {\n\tif got := filepath.Base(os.Args[0]); got != \"" + bin + "\" {\n\t\tt.Fatalf(\"binary named %s\", got)\n\t}\n}\n"
}

// TestWatchBuilt: the build's progress says how many test binaries are
// linked, when that changes, until the build ends.
func TestWatchBuilt(t *testing.T) {
	out := t.TempDir()
	for _, d := range []string{"0", "1"} {
		if err := os.Mkdir(filepath.Join(out, d), 0o777); err != nil {
			t.Fatal(err)
		}
	}
	calls := make(chan [2]int, 10)
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		watchBuilt(out, time.Time{}, 3, time.Millisecond, func(n, of int) { calls <- [2]int{n, of} }, stop)
	}()
	want := func(n int) {
		t.Helper()
		if got := <-calls; got != [2]int{n, 3} {
			t.Errorf("progress %v, want %d of 3", got, n)
		}
	}
	want(0)
	for i, name := range []string{"0/a.test", "1/a.test"} {
		if err := os.WriteFile(filepath.Join(out, filepath.FromSlash(name)), nil, 0o666); err != nil {
			t.Fatal(err)
		}
		want(i + 1)
	}
	close(stop)
	<-done
	if len(calls) > 0 {
		t.Errorf("progress %v with nothing changed", <-calls)
	}
	if got := BuildingLine(1, 3); got != "building the tests: 1 of 3 test binaries linked" {
		t.Errorf("BuildingLine(1, 3) = %q", got)
	}
}

// TestBuildErrorInCopy checks that a compile error in an instrumented copy
// (the overlay's replacement of a file) names the user's file and says
// the copy is precog's, while an error in the user's own file, the
// control, is said as go says it.
func TestBuildErrorInCopy(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test -c")
	}
	mod, cache := t.TempDir(), t.TempDir()
	files := map[string]string{
		"go.mod":      "module example.com/m\n\ngo 1.22\n",
		"a/a.go":      "package a\n\nfunc A() int { return 1 }\n",
		"a/a_test.go": "package a\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) { A() }\n",
		"b/b.go":      "package b\n\nfunc B() int { return \"b\" }\n",
		"b/b_test.go": "package b\n\nimport \"testing\"\n\nfunc TestB(t *testing.T) { B() }\n",
		"copy/a.go":   "package a\n\nfunc A() int { return &map[int]int{} }\n",
	}
	for name, content := range files {
		dir := mod
		if strings.HasPrefix(name, "copy/") {
			dir = cache
		}
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	user, copied := filepath.Join(mod, "a", "a.go"), filepath.Join(cache, "copy", "a.go")
	ov, err := json.Marshal(map[string]map[string]string{"Replace": {user: copied}})
	if err != nil {
		t.Fatal(err)
	}
	overlay := filepath.Join(cache, "overlay.json")
	if err := os.WriteFile(overlay, ov, 0o666); err != nil {
		t.Fatal(err)
	}
	build := []string{"-overlay=" + overlay}
	err = goTestC(t.Context(), mod, t.TempDir()+string(filepath.Separator), build, []string{"./a"})
	if err == nil || !strings.Contains(err.Error(), user+":3:") || strings.Contains(err.Error(), copied) ||
		!strings.HasSuffix(err.Error(), "(in precog's instrumented copy of the file, not in your code: a precog bug, please report it)") {
		t.Errorf("error in the copy: %v; want it at %s, said to be precog's", err, user)
	}
	err = goTestC(t.Context(), mod, t.TempDir()+string(filepath.Separator), build, []string{"./b"})
	if err == nil || !strings.Contains(err.Error(), "b.go:3:") || strings.Contains(err.Error(), "precog") {
		t.Errorf("error in the user's file: %v; want go's own line", err)
	}
}

// TestBuildThenReuse checks that Build leaves the test binaries in BinDir
// and that a Run with Reuse records with them without building (precog
// test builds before it divides -deadline among its stages), and the
// control: a Run without Reuse builds again.
func TestBuildThenReuse(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test binary")
	}
	mod := writeModule(t, map[string]string{
		"go.mod":        "module example.com/m\n\ngo 1.22\n",
		"a/a_test.go":   "package a\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) {}\n",
		"a/a_unused.go": "package a\n",
	})
	sites := filepath.Join(t.TempDir(), "sites.json")
	if err := os.WriteFile(sites, []byte("{}"), 0o666); err != nil {
		t.Fatal(err)
	}
	inst := &Instrumented{Sites: sites}
	binDir := t.TempDir()
	builds := 0
	o := Options{Dir: mod, Patterns: []string{"./..."}, BinDir: binDir, Flags: &GoTestFlags{Timeout: time.Minute}, Built: func(n, of int) { builds++ }}
	if err := Build(t.Context(), o, inst); err != nil {
		t.Fatal(err)
	}
	if builds == 0 {
		t.Error("Build did not report its progress")
	}
	bin := InstrumentedBinary(binDir, "example.com/m/a")
	before, err := os.Stat(bin)
	if err != nil {
		t.Fatalf("Build left no test binary: %v", err)
	}
	for _, reuse := range []bool{true, false} {
		builds = 0
		o.Reuse, o.Out = reuse, filepath.Join(t.TempDir(), "out")
		ix, err := Run(t.Context(), o, inst)
		if err != nil {
			t.Fatal(err)
		}
		if tot := ix.Totals(); tot.Tests != 1 {
			t.Errorf("reuse %v: recorded %d tests, want TestA", reuse, tot.Tests)
		}
		after, err := os.Stat(bin)
		if err != nil {
			t.Fatal(err)
		}
		if rebuilt := builds > 0 || !after.ModTime().Equal(before.ModTime()); rebuilt == reuse {
			t.Errorf("reuse %v: built again %v (progress calls %d)", reuse, rebuilt, builds)
		}
		before = after
	}
}

// TestBuildCut checks Options.BuildLimit: a build still running at the
// limit is stopped, the test binaries linked by then are kept, Build says
// how many, and a Run with Reuse records those packages and lists the
// others as not built. A stand-in go command (first in PATH) links a's
// binary (built beforehand) and then never ends; go list is the real
// one's.
func TestBuildCut(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the go command's stand-in is a shell script")
	}
	realGo, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	mod := writeModule(t, map[string]string{
		"go.mod":      "module example.com/m\n\ngo 1.22\n",
		"a/a_test.go": "package a\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) {}\n",
		"b/b_test.go": "package b\n\nimport \"testing\"\n\nfunc TestB(t *testing.T) {}\n",
	})
	fake := t.TempDir()
	// a's real test binary, which the stand-in links: a stopped build
	// keeps only whole executables.
	aTest := filepath.Join(fake, "a.test")
	build := exec.Command(realGo, "test", "-c", "-o", aTest, "./a")
	build.Dir = mod
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go test -c ./a: %v\n%s", err, out)
	}
	// go test -c -o DIR/ PKGS...: a's binary, then a build that never
	// ends.
	script := "#!/bin/sh\n" +
		"if [ \"$1\" = test ]; then\n" +
		"\tmkdir -p \"$4\"\n" +
		"\tcp " + aTest + " \"${4}a.test\"\n" +
		"\texec sleep 60\n" +
		"fi\n" +
		"exec " + realGo + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(fake, "go"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", fake+string(os.PathListSeparator)+os.Getenv("PATH"))
	sites := filepath.Join(t.TempDir(), "sites.json")
	if err := os.WriteFile(sites, []byte("{}"), 0o666); err != nil {
		t.Fatal(err)
	}
	inst := &Instrumented{Sites: sites}
	o := Options{Dir: mod, Patterns: []string{"./..."}, BinDir: t.TempDir(), Flags: &GoTestFlags{Timeout: time.Minute}, BuildLimit: time.Second}
	start := time.Now()
	err = Build(t.Context(), o, inst)
	var cut *BuildCutError
	if !errors.As(err, &cut) || cut.Linked != 1 || cut.Of != 2 || cut.Limit != time.Second {
		t.Fatalf("Build: %v, want 1 of 2 test binaries linked at the limit", err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("the stopped build took %v", d)
	}
	o.Reuse, o.Out = true, filepath.Join(t.TempDir(), "out")
	ix, err := Run(t.Context(), o, inst)
	if err != nil {
		t.Fatal(err)
	}
	if len(ix.Packages) != 1 || ix.Packages[0].ImportPath != "example.com/m/a" || len(ix.Packages[0].Tests) != 1 {
		t.Errorf("recorded %+v, want a's TestA alone", ix.Packages)
	}
	if !slices.Equal(ix.NotBuilt, []string{"example.com/m/b"}) {
		t.Errorf("not built: %q, want b", ix.NotBuilt)
	}
	// The control: without a limit, the same stand-in's build is
	// stopped only by its context, and that is no cut.
	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	o.BuildLimit, o.Reuse = 0, false
	if err := Build(ctx, o, inst); err == nil || errors.As(err, &cut) {
		t.Errorf("a build stopped by its context: %v, want its error, not a cut", err)
	}
}

// writeModule writes files (slash-separated paths relative to the module
// root, and their contents) into a new temporary directory and returns it.
func writeModule(t *testing.T, files map[string]string) string {
	t.Helper()
	return testmod.New(t, files)
}

// TestStoppedBuildKeepsWholeBinaries checks that a stopped build keeps
// the test binaries written whole and leaves out one written halfway (the
// go command copies a binary into place where it cannot rename it, and a
// copy stopped midway is not an executable). The whole one is this test's
// own binary; the other its first half.
func TestStoppedBuildKeepsWholeBinaries(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	whole, half := listedPackage{ImportPath: "example.com/m/whole"}, listedPackage{ImportPath: "example.com/m/half"}
	if err := os.MkdirAll(filepath.Join(out, "0"), 0o777); err != nil {
		t.Fatal(err)
	}
	for p, b := range map[string][]byte{whole.ImportPath: data, half.ImportPath: data[:len(data)/2]} {
		if err := os.WriteFile(filepath.Join(out, "0", execName(p)+".test"), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := moveBinaries(out, out, [][]listedPackage{{whole, half}}, false, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(testBinary(out, whole)); err != nil {
		t.Errorf("the whole binary was not kept: %v", err)
	}
	if _, err := os.Stat(testBinary(out, half)); err == nil {
		t.Error("the binary written halfway was kept")
	}

	// From the link cache, a whole binary an earlier build left, which
	// this build may not have brought up to date before it was stopped,
	// is left out too.
	links, run := t.TempDir(), t.TempDir()
	earlier := listedPackage{ImportPath: "example.com/m/earlier"}
	for p, b := range map[string][]byte{whole.ImportPath: data, half.ImportPath: data[:len(data)/2], earlier.ImportPath: data} {
		if err := os.MkdirAll(filepath.Join(links, "0"), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(links, "0", execName(p)+".test"), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	old := start.Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(links, "0", execName(earlier.ImportPath)+".test"), old, old); err != nil {
		t.Fatal(err)
	}
	if err := moveBinaries(links, run, [][]listedPackage{{whole, half, earlier}}, false, start.Add(-time.Minute)); err != nil {
		t.Fatal(err)
	}
	for _, p := range []listedPackage{whole, half, earlier} {
		keep := p.ImportPath == whole.ImportPath
		if _, err := os.Stat(testBinary(run, p)); (err == nil) != keep {
			t.Errorf("%s from the link cache: kept %v, want %v", p.ImportPath, err == nil, keep)
		}
	}
}

// TestLinkLockWaitsForItsContext: a build waits for another holder of the
// link cache's lock only until its context ends, and takes the lock once
// it is released.
func TestLinkLockWaitsForItsContext(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no file locks")
	}
	name := filepath.Join(t.TempDir(), "lock")
	unlock, err := lockFile(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if again, err := lockFile(ctx, name); err == nil {
		again()
		t.Fatal("took a lock another holder held")
	} else if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("waiting past the context: %v, want its deadline", err)
	}
	unlock()
	again, err := lockFile(t.Context(), name)
	if err != nil {
		t.Fatalf("after the release: %v", err)
	}
	again()
}
