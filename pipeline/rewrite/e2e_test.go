package rewrite

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/precog-dev/precog"
	"github.com/precog-dev/precog/internal/corpus"
	"github.com/precog-dev/precog/shim/trace"
)

// TestRewriteKernels rewrites every file of the kernels module
// (testdata/kernels) and type-checks the rewritten packages.
func TestRewriteKernels(t *testing.T) {
	root := corpus.Dir()
	pkgs, err := corpus.Packages(root)
	if err != nil {
		t.Fatal(err)
	}
	next := uint32(1)
	for _, locals := range []bool{false, true} {
		for _, name := range pkgs {
			dir := filepath.Join(root, filepath.FromSlash(name))
			sub := name
			if locals {
				sub = "locals/" + name // precog explain's full tracing
			}
			t.Run(sub, func(t *testing.T) {
				names, _ := filepath.Glob(filepath.Join(dir, "*.go"))
				fset := token.NewFileSet()
				var files []*ast.File
				var srcs [][]byte
				for _, n := range names {
					src, err := os.ReadFile(n)
					if err != nil {
						t.Fatal(err)
					}
					f, err := parser.ParseFile(fset, n, src, parser.ParseComments|parser.SkipObjectResolution)
					if err != nil {
						t.Fatal(err)
					}
					files, srcs = append(files, f), append(srcs, src)
				}
				// An external test package (package p_test, as pond's
				// users are outside its ring buffer's package) imports
				// the kernel, which this importer cannot: its files are
				// left to the tests that build the kernels.
				var kept []int
				for i, f := range files {
					if !strings.HasSuffix(f.Name.Name, "_test") || !strings.HasSuffix(names[i], "_test.go") {
						kept = append(kept, i)
					}
				}
				if len(kept) < len(files) {
					var fs []*ast.File
					var ss [][]byte
					var ns []string
					for _, i := range kept {
						fs, ss, ns = append(fs, files[i]), append(ss, srcs[i]), append(ns, names[i])
					}
					files, srcs, names = fs, ss, ns
				}
				pkg, info := checkFiles(t, fset, "precog.example/kernels/"+name, files)
				im := newTestImporter()
				im.mu.Lock()
				ofset := im.fset
				im.mu.Unlock()
				var out []*ast.File
				for i, f := range files {
					r, text, err := rewriteFile(fset, f, srcs[i], pkg, info, Options{FirstSite: next, Funcs: true, Locals: locals})
					if err != nil {
						t.Fatal(err)
					}
					if r == nil {
						text = srcs[i]
					} else {
						next += uint32(len(r.sites))
						for reason, n := range r.skipped {
							t.Logf("%s: skipped %d: %s", filepath.Base(names[i]), n, reason)
						}
					}
					if strings.Count(string(text), "\n") != strings.Count(string(srcs[i]), "\n") {
						t.Errorf("%s: line count changed", names[i])
					}
					im.mu.Lock()
					of, err := parser.ParseFile(ofset, names[i], text, parser.SkipObjectResolution)
					im.mu.Unlock()
					if err != nil {
						t.Fatal(err)
					}
					out = append(out, of)
				}
				conf := types.Config{Importer: im}
				if _, err := conf.Check(pkg.Path(), ofset, out, nil); err != nil {
					t.Errorf("rewritten package does not type-check: %v", err)
				}
			})
		}
	}
	t.Logf("%d sites", next-1)
}

// writeFS writes the non-test files of fsys under dir.
func writeFS(t *testing.T, fsys fs.FS, dir string) {
	t.Helper()
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, "_test.go") {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, p), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func rwGo(t *testing.T, dir string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// TestRewriteEndToEnd rewrites testdata/e2e, builds its test binary
// against the shim, runs it recording a trace and checks the events; it
// also checks that a panic's stack names the same lines as the original's.
func TestRewriteEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two test binaries")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip(err)
	}
	tmp := t.TempDir()
	shimDir := filepath.Join(tmp, "shim")
	shimSrc, err := fs.Sub(precog.ShimSource, "shim")
	if err != nil {
		t.Fatal(err)
	}
	writeFS(t, shimSrc, shimDir)
	os.WriteFile(filepath.Join(shimDir, "go.mod"), []byte("module "+shimPath+"\n\ngo 1.22\n"), 0o644)

	name := filepath.Join("testdata", "e2e", "prog_test.go")
	src, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	plainDir, instDir := filepath.Join(tmp, "plain"), filepath.Join(tmp, "inst")
	os.MkdirAll(plainDir, 0o755)
	os.MkdirAll(instDir, 0o755)
	os.WriteFile(filepath.Join(plainDir, "go.mod"), []byte("module prog\n\ngo 1.22\n"), 0o644)
	os.WriteFile(filepath.Join(plainDir, "prog_test.go"), src, 0o644)

	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filepath.Join(instDir, "prog_test.go"), src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	pkg, info := checkFiles(t, fset, "prog", []*ast.File{f})
	out, sites, changed, err := File(fset, f, src, pkg, info, Options{FirstSite: 1})
	if err != nil || !changed {
		t.Fatalf("File: changed %v, %v", changed, err)
	}
	os.WriteFile(filepath.Join(instDir, "go.mod"), []byte("module prog\n\ngo 1.22\n\nrequire "+shimPath+
		" v0.0.0-00010101000000-000000000000\n\nreplace "+shimPath+" => ../shim\n"), 0o644)
	os.WriteFile(filepath.Join(instDir, "prog_test.go"), out, 0o644)
	rwGo(t, plainDir, "test", "-c", "-o", "prog.test")
	rwGo(t, instDir, "test", "-c", "-o", "prog.test")

	// Record TestProgram.
	tr := filepath.Join(tmp, "trace")
	cmd := exec.Command(filepath.Join(instDir, "prog.test"), "-test.run", "^TestProgram$")
	cmd.Env = append(os.Environ(), "PRECOG_TRACE="+tr)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("instrumented test: %v\n%s", err, b)
	}
	fh, err := os.Open(tr)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	trc, err := trace.ReadAll(fh)
	if err != nil {
		t.Fatal(err)
	}
	table := &trace.SiteTable{Sites: sites}
	lineOf := func(text string) int { return 1 + strings.Count(string(src[:strings.Index(string(src), text)]), "\n") }
	forkLine, argLine := lineOf("go func(n int) {"), lineOf("}(a.balance)")
	count := map[string]int{}
	argRead, argFork := -1, -1 // the read of a go statement's argument, and its fork
	for i, ev := range trc.Events {
		k := ev.Kind.String()
		if s, ok := table.Lookup(ev.Site); ok {
			k += " " + s.Kind + " " + s.Expr
			if s.Line == argLine && ev.Kind == trace.EvRead {
				argRead = i
			} else if s.Line == forkLine && ev.Kind == trace.EvFork {
				argFork = i
			}
		}
		switch ev.Kind {
		case trace.EvChanRecv, trace.EvSelect:
			k += " ok=" + map[uint64]string{0: "false", 1: "true"}[ev.Value]
		case trace.EvWrite:
			if strings.HasSuffix(k, "a.owner") {
				k += map[uint64]string{0: " nil", 1: " non-nil"}[ev.Value]
			}
		case trace.EvTestStart:
			k += " " + ev.Name
		}
		count[k]++
	}
	want := []string{
		"Fork go go func literal",
		"Begin",
		"End",
		"Fork go produce",
		"Lock lock a.mu",
		"Unlock unlock a.mu",
		"WGAdd wg-add wg",
		"WGDone wg-done wg",
		"WGWait wg-wait wg",
		"ChanMake make-chan make(chan int, 4)",
		"ChanSend send ch",
		"ChanRecv recv ch ok=true",
		"ChanRecv recv <-ch ok=false",
		"ChanClose close ch",
		"Select select select ok=false",
		"PoolGet pool-get pool",
		"PoolPut pool-put pool",
		"Write write a.owner non-nil",
		"Write write a.owner nil",
		"Write write a.balance",
		"Write write span.lo",
		"Write write span.hi",
		"Read read a.balance",
		"MapWrite map-write seen[\"k\"]",
		"MapIter map-range seen",
		"MapRead map-read seen[k]",
		"AtomicStore atomic-store hits",
		"AtomicStore atomic-store atomic.AddInt64(&total, 2)",
		"AtomicLoad atomic-load atomic.LoadInt64(&total)",
		"TestStart TestProgram",
		"TestStart TestProgram/sub",
		"TestEnd",
	}
	for _, w := range want {
		if count[w] == 0 {
			t.Errorf("no event %q", w)
		}
	}
	if argRead < 0 || argFork < 0 || argRead > argFork {
		t.Errorf("the read of the go statement's argument at line %d is event %d, its fork event %d: want the read first", argLine, argRead, argFork)
	}
	if t.Failed() {
		for k, n := range count {
			t.Logf("%4d %s", n, k)
		}
	}

	// The same panic in both builds names the same lines of prog_test.go:
	// where it happened and where its goroutine was created.
	// It also counts the frames of the panicking goroutine's stack, up to
	// its "created by" line: a rewritten go statement adds one, the
	// closure that begins the child (a go statement of a function value
	// was started through precog_rt.Run, three frames with the wrapper of
	// Run's arguments: every copy of a growing stack paid for them).
	frames := map[string]int{}
	lines := func(dir, mode string) string {
		cmd := exec.Command(filepath.Join(dir, "prog.test"), "-test.run", "^TestPanic$")
		cmd.Env = append(os.Environ(), "PRECOG_E2E_PANIC="+mode, "PRECOG_TRACE="+filepath.Join(tmp, "panic.trace"), "GOTRACEBACK=system")
		b, _ := cmd.CombinedOutput()
		at := regexp.MustCompile(`prog_test\.go:(\d+)`).FindStringSubmatch(string(b))
		created := regexp.MustCompile(`created by prog\.TestPanic[^\n]*\n\s*\S*prog_test\.go:(\d+)`).FindStringSubmatch(string(b))
		if at == nil || created == nil {
			t.Errorf("no panic stack in %s:\n%s", dir, b)
			return ""
		}
		stack := string(b)[strings.Index(string(b), "[running]:"):]
		stack = stack[:strings.Index(stack, "created by")]
		frames[dir+" "+mode] = strings.Count(stack, "\n\t")
		return "panic at line " + at[1] + ", goroutine created at line " + created[1]
	}
	for _, mode := range []string{"literal", "literal-arg", "call"} {
		if p, i := lines(plainDir, mode), lines(instDir, mode); p != i {
			t.Errorf("%s: plain: %s; instrumented: %s", mode, p, i)
		}
		if p, i := frames[plainDir+" "+mode], frames[instDir+" "+mode]; p == 0 || i > p+1 {
			t.Errorf("%s: the panicking goroutine's stack holds %d frames instrumented, %d plain: want at most one more", mode, i, p)
		}
	}
}
