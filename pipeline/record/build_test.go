package record

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
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
	mod := t.TempDir()
	files := map[string]string{
		"go.mod":          "module example.com/m\n\ngo 1.22\n",
		"a/x/x_test.go":   named("x", "TestFromA", "x.test"),
		"b/x/x_test.go":   named("x", "TestFromB", "x.test"),
		"c/y/y_test.go":   named("y", "TestFromC", "y.test"),
		"c/y/y_unused.go": "package y\n",
	}
	for name, content := range files {
		p := filepath.Join(mod, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	pkgs, err := listTestPackages(t.Context(), mod, nil, []string{"./..."})
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	var built [][2]int
	if err := buildTests(t.Context(), mod, out, nil, pkgs, func(n, of int) { built = append(built, [2]int{n, of}) }); err != nil {
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
		watchBuilt(out, 3, time.Millisecond, func(n, of int) { calls <- [2]int{n, of} }, stop)
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
	mod := t.TempDir()
	files := map[string]string{
		"go.mod":        "module example.com/m\n\ngo 1.22\n",
		"a/a_test.go":   "package a\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) {}\n",
		"a/a_unused.go": "package a\n",
	}
	for name, content := range files {
		p := filepath.Join(mod, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o666); err != nil {
			t.Fatal(err)
		}
	}
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
