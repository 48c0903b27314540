package rewrite

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/precog-dev/precog/shim/rt"
	"github.com/precog-dev/precog/shim/trace"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/golden")

// testImporter imports the standard library from its export data, and the
// shim's packages from this repository's source, so that rewritten files
// type-check.
type testImporter struct {
	fset *token.FileSet
	std  types.ImporterFrom
	mu   sync.Mutex
	pkgs map[string]*types.Package
}

var (
	importerOnce sync.Once
	sharedImp    *testImporter
)

func newTestImporter() *testImporter {
	importerOnce.Do(func() {
		fset := token.NewFileSet()
		sharedImp = &testImporter{fset: fset, std: importer.ForCompiler(fset, "gc", nil).(types.ImporterFrom), pkgs: map[string]*types.Package{}}
	})
	return sharedImp
}

func repoDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

func (im *testImporter) Import(path string) (*types.Package, error) {
	return im.ImportFrom(path, "", 0)
}

func (im *testImporter) ImportFrom(path, dir string, mode types.ImportMode) (*types.Package, error) {
	im.mu.Lock()
	defer im.mu.Unlock()
	return im.importLocked(path)
}

func (im *testImporter) importLocked(path string) (*types.Package, error) {
	if p := im.pkgs[path]; p != nil {
		return p, nil
	}
	var dir string
	switch {
	case path == shimPath, strings.HasPrefix(path, shimPath+"/"):
		// The shim's packages, from this repository's source.
		dir = filepath.Join(repoDir(), "shim", filepath.FromSlash(strings.TrimPrefix(strings.TrimPrefix(path, shimPath), "/")))
	case path == "github.com/stretchr/testify/assert", path == "github.com/stretchr/testify/require":
		// testify's signatures, not in precog's module.
		dir = filepath.Join(repoDir(), "pipeline", "rewrite", "testdata", "testify", filepath.Base(path))
	case !strings.Contains(strings.Split(path, "/")[0], "."):
		// The standard library from its export data, which the go
		// command builds once into its cache: the source importer
		// type-checks it again on every run, and leaves the objects
		// of its cgo runs in the temporary directory.
		p, err := im.std.ImportFrom(path, "", 0)
		if err == nil {
			im.pkgs[path] = p
		}
		return p, err
	default:
		// A dependency of precog's module (golang.org/x/sync), from
		// source: the export data importer finds no module's package.
		bp, err := build.Import(path, repoDir(), build.FindOnly)
		if err != nil {
			return nil, err
		}
		dir = bp.Dir
	}
	names, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	var files []*ast.File
	for _, n := range names {
		if ok, _ := build.Default.MatchFile(dir, filepath.Base(n)); !ok || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(im.fset, n, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	conf := types.Config{Importer: lockedImporter{im}}
	p, err := conf.Check(path, im.fset, files, nil)
	if err != nil {
		return nil, err
	}
	im.pkgs[path] = p
	return p, nil
}

// lockedImporter imports while the testImporter's lock is held.
type lockedImporter struct{ im *testImporter }

func (l lockedImporter) Import(path string) (*types.Package, error) { return l.im.importLocked(path) }

func newInfo() *types.Info {
	return &types.Info{
		Types:        map[ast.Expr]types.TypeAndValue{},
		Defs:         map[*ast.Ident]types.Object{},
		Uses:         map[*ast.Ident]types.Object{},
		Selections:   map[*ast.SelectorExpr]*types.Selection{},
		Instances:    map[*ast.Ident]types.Instance{},
		Implicits:    map[ast.Node]types.Object{},
		Scopes:       map[ast.Node]*types.Scope{},
		FileVersions: map[*ast.File]string{},
	}
}

// checkFiles type-checks files as one package.
func checkFiles(t *testing.T, fset *token.FileSet, path string, files []*ast.File) (*types.Package, *types.Info) {
	t.Helper()
	info := newInfo()
	// A known version: the rewriter leaves range over slices alone when
	// it cannot tell that the file may range over functions.
	conf := types.Config{Importer: newTestImporter(), GoVersion: "go1.23"}
	pkg, err := conf.Check(path, fset, files, info)
	if err != nil {
		t.Fatalf("type-checking %s: %v", path, err)
	}
	return pkg, info
}

// rewriteSource parses, type-checks and rewrites one file.
func rewriteSource(t *testing.T, name string, src []byte, opts Options) ([]byte, []trace.Site, map[string]int) {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	pkg, info := checkFiles(t, fset, "p", []*ast.File{f})
	if opts.PassLocal == nil { // as the instrumenter does; a non-nil empty map passes none
		opts.PassLocal = LocalCallees(pkg, info, []*ast.File{f}, func(*ast.File) bool { return true })
	}
	if opts.LockHelpers == nil {
		opts.LockHelpers = LockHelpers(pkg, info, []*ast.File{f}, func(*ast.File) bool { return true })
	}
	r, out, err := rewriteFile(fset, f, src, pkg, info, opts)
	if err != nil {
		t.Fatal(err)
	}
	if r == nil {
		return nil, nil, nil
	}
	return out, r.sites, r.skipped
}

// typeCheckOutput checks that a rewritten file compiles.
func typeCheckOutput(t *testing.T, name string, out []byte) {
	t.Helper()
	im := newTestImporter()
	im.mu.Lock()
	fset := im.fset
	f, err := parser.ParseFile(fset, name, out, parser.SkipObjectResolution)
	im.mu.Unlock()
	if err != nil {
		t.Fatalf("rewritten %s does not parse: %v\n%s", name, err, out)
	}
	conf := types.Config{Importer: im}
	if _, err := conf.Check("p", fset, []*ast.File{f}, nil); err != nil {
		t.Errorf("rewritten %s does not type-check: %v\n%s", name, err, numbered(out))
	}
}

func numbered(b []byte) string {
	var sb strings.Builder
	for i, l := range strings.Split(string(b), "\n") {
		fmt.Fprintf(&sb, "%3d %s\n", i+1, l)
	}
	return sb.String()
}

// sameLines checks that every line of the original still starts the same
// line of the output, token for token: the output's line i contains the
// original's line i's tokens in order.
func sameLines(t *testing.T, name string, src, out []byte) {
	t.Helper()
	a, b := strings.Split(string(src), "\n"), strings.Split(string(out), "\n")
	if len(a) != len(b) {
		t.Errorf("%s: %d lines rewritten into %d", name, len(a), len(b))
	}
}

// TestRTLimits: the rewriter's copies of rt's limits agree with rt.
func TestRTLimits(t *testing.T) {
	if maxCases != rt.MaxCases || maxWrites != rt.MaxWrites {
		t.Errorf("maxCases, maxWrites = %d, %d; rt has %d, %d", maxCases, maxWrites, rt.MaxCases, rt.MaxWrites)
	}
}

// TestRewriteGolden rewrites each testdata/golden/*.go and compares the
// result and its sites with the .go.txt golden file (go test -update
// rewrites them). Each output must type-check and keep the line count.
func TestRewriteGolden(t *testing.T) {
	names, _ := filepath.Glob("testdata/golden/*.go")
	if len(names) == 0 {
		t.Fatal("no inputs")
	}
	for _, name := range names {
		t.Run(filepath.Base(name), func(t *testing.T) {
			src, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			opts := Options{FirstSite: 1}
			if bytes.Contains(src, []byte("// opts: funcs")) {
				opts.Funcs = true
			}
			if bytes.Contains(src, []byte("// opts: starts")) {
				opts.Starts = func(token.Pos) bool { return true }
			}
			abs, _ := filepath.Abs(name)
			out, sites, skipped := rewriteSource(t, abs, src, opts)
			if out == nil {
				t.Fatal("nothing rewritten")
			}
			typeCheckOutput(t, abs, out)
			sameLines(t, name, src, out)
			var got bytes.Buffer
			got.Write(out)
			got.WriteString("\n-- sites --\n")
			for i, s := range sites {
				if s.ID != uint32(i+1) {
					t.Errorf("site %d has id %d", i, s.ID)
				}
				fmt.Fprintf(&got, "%d %d:%d %s %s %q", s.ID, s.Line, s.Col, s.Kind, s.Function, s.Expr)
				if s.ExitLine > 0 {
					fmt.Fprintf(&got, " exit=%d:%d", s.ExitLine, s.ExitCol)
				}
				got.WriteString("\n")
			}
			if len(skipped) > 0 {
				got.WriteString("-- skipped --\n")
				var ks []string
				for k, n := range skipped {
					ks = append(ks, fmt.Sprintf("%s: %d", k, n))
				}
				sort.Strings(ks)
				got.WriteString(strings.Join(ks, "\n") + "\n")
			}
			golden := name + ".txt"
			if *update {
				if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("%s differs from %s:\n%s", name, golden, got.Bytes())
			}
		})
	}
}

// TestRewriteSharedPositions checks which positions Options.Shared is
// asked about (the ones go/ssa gives the same accesses), and that a false
// answer leaves the access alone.
func TestRewriteSharedPositions(t *testing.T) {
	src := []byte(`package p

type T struct{ f int; p *T }

var g int

func f(x *T, s []int, m map[int]int, y T) int {
	x.p.f = g
	s[1] = *&y.f
	delete(m, 1)
	for k := range m {
		_ = k
	}
	z := &x.f
	return m[2] + *z
}
`)
	var asked []string
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "a.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	pkg, info := checkFiles(t, fset, "p", []*ast.File{file})
	opts := Options{FirstSite: 1, Shared: func(pos token.Pos) bool {
		p := fset.Position(pos)
		asked = append(asked, fmt.Sprintf("%d:%d", p.Line, p.Column))
		return p.Line == 8 // only x.p.f = g
	}}
	r, out, err := rewriteFile(fset, file, src, pkg, info, opts)
	if err != nil || r == nil {
		t.Fatalf("rewrite: %v", err)
	}
	// Line 8: x.p (Sel p), g, x.p.f (Sel f); line 9: s[1] (Lbrack), *z-like
	// *&y.f (Star); line 10: delete's Lparen; line 11: the range's For;
	// line 15: m[2] (Lbrack), *z (Star). &x.f on line 14 is not a read.
	want := "8:4 8:10 8:6 9:9 9:3 10:8 11:2 15:10 15:16"
	if got := strings.Join(asked, " "); got != want {
		t.Errorf("asked %s, want %s", got, want)
	}
	if !bytes.Contains(out, []byte("precog_shim.WN(&precog_g, 3, &(*precog_shim.RL(&precog_g, 1, &x.p)).f, (*precog_shim.RL(&precog_g, 2, &g)))")) {
		t.Errorf("line 8 not rewritten as expected:\n%s", out)
	}
	if bytes.Contains(out, []byte("MW(")) || bytes.Count(out, []byte("precog_shim.")) != 4 { // the Local, a write and two reads
		t.Errorf("accesses not shared were rewritten:\n%s", out)
	}
}

// TestRewriteIndexReads: a read inside a loop of its function whose value
// Options.Uses says flows into an index or a bound is rewritten with RIL,
// which the shim's repeat filter keeps in every iteration of the loop;
// other reads, index reads outside a loop and those outside a function
// body keep RL or R, and the sites' Uses are the same.
func TestRewriteIndexReads(t *testing.T) {
	src := []byte(`package p

type C struct {
	n   int
	buf []byte
}

var top int

func f(c *C, i int) []byte {
	for i < c.n {
		_ = c.buf[i:c.n]
		i++
	}
	return c.buf[:c.n]
}

var _ = []int{1, 2}[:top]
`)
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "a.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	pkg, info := checkFiles(t, fset, "p", []*ast.File{file})
	opts := Options{FirstSite: 1, Uses: func(pos token.Pos) string {
		if fset.Position(pos).Line >= 12 {
			return trace.UseIndex
		}
		return trace.UseLoopExit
	}}
	r, out, err := rewriteFile(fset, file, src, pkg, info, opts)
	if err != nil || r == nil {
		t.Fatalf("rewrite: %v", err)
	}
	for _, want := range []string{
		"for i < (*precog_shim.RL(&precog_g, 1, &c.n)) {",
		"_ = (*precog_shim.RIL(&precog_g, 2, &c.buf))[i:(*precog_shim.RIL(&precog_g, 3, &c.n))]",
		"return (*precog_shim.RL(&precog_g, 4, &c.buf))[:(*precog_shim.RL(&precog_g, 5, &c.n))]",
		"var _ = []int{1, 2}[:(*precog_shim.R(6, &top))]",
	} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("no %s in\n%s", want, out)
		}
	}
	for _, s := range r.sites {
		if s.Kind == "read" && s.Uses == "" {
			t.Errorf("site %d (%s) lost its uses", s.ID, s.Expr)
		}
	}
	typeCheckOutput(t, "a.go", out)
}

// TestRewriteAPINames checks that every shim and rt function the rewriter
// can emit exists, so that a rewrite no golden file covers still builds.
func TestRewriteAPINames(t *testing.T) {
	funcs := func(dir string) map[string]bool {
		names := map[string]bool{}
		paths, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, p := range paths {
			if strings.HasSuffix(p, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range f.Decls {
				if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil {
					names[fd.Name.Name] = true
				}
			}
		}
		return names
	}
	shimFuncs := funcs(filepath.Join(repoDir(), "shim"))
	rtFuncs := funcs(filepath.Join(repoDir(), "shim", "rt"))
	rthttpFuncs := funcs(filepath.Join(repoDir(), "shim", "rthttp"))
	for _, name := range []string{"Respond", "Served", "Serving", "ServeClose", "ServeCloser"} {
		if !shimFuncs[name] {
			t.Errorf("HTTP: no shim function %s", name)
		}
	}
	for key, fn := range httpClients {
		if fn != "" && !rthttpFuncs[fn] {
			t.Errorf("%s: no rthttp function %s", key, fn)
		}
	}
	for _, name := range []string{"Done", "Trace"} {
		if !rthttpFuncs[name] {
			t.Errorf("HTTP: no rthttp function %s", name)
		}
	}
	want := func(have map[string]bool, name, why string) {
		if !have[name] {
			t.Errorf("%s: no function %s", why, name)
		}
	}
	for key, op := range syncMethods {
		if op.rt {
			want(rtFuncs, op.fn, key)
		} else {
			want(shimFuncs, op.fn, key)
		}
		if op.value != "" && op.valueRT {
			want(rtFuncs, op.value, key)
		} else if op.value != "" {
			want(shimFuncs, op.value, key)
		}
	}
	for name := range atomicFuncs {
		want(shimFuncs, "Atomic"+name, "sync/atomic."+name)
	}
	for _, name := range []string{"R", "RI", "W", "MR", "MW", "MI", "Send", "Recv", "Recv2", "Close", "MakeChan",
		"Go", "Begin", "End", "Enter", "Exit", "TestStart", "Append", "AppendTo", "Task", "TaskErr", "Waited", "WaitedErr", "Cancelling", "MarkF", "MarkV",
		"CondBool", "CondWith", "CondBoolLate", "CondWithLate", "CondFork", "CondWaited", "CondReturned", "Hand", "Handed",
		"Bubble", "BubbleFunc", "BubbleRun", "Sleep", "SyncWait", "AfterFunc", "ContextAfterFunc", "ReflectSelect"} {
		want(shimFuncs, name, "rewriter")
	}
	for _, name := range []string{"Plan", "TryRecv", "TrySend", "TryDefault", "Recv", "Send", "At", "SendTo",
		"Wrote", "Later", "RangeOf", "Sub", "And", "Or", "MapRead", "MapWrite", "MapIter",
		"MapReadL", "MapWriteL", "MapIterL"} {
		want(rtFuncs, name, "rewriter")
	}
}

// TestRewriteOldGoMaps rewrites maps with interface keys in a go1.19 file,
// where shim.MR's comparable constraint does not accept them.
func TestRewriteOldGoMaps(t *testing.T) {
	src := []byte(`package p

import "reflect"

var byType = map[reflect.Type]int{}
var anyKey = map[any]string{}

func f(t reflect.Type) int {
	anyKey[1] = "x"
	for k := range anyKey {
		delete(anyKey, k)
	}
	return byType[t]
}
`)
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "old.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	info := newInfo()
	conf := types.Config{Importer: newTestImporter(), GoVersion: "go1.19"}
	pkg, err := conf.Check("p", fset, []*ast.File{file}, info)
	if err != nil {
		t.Fatal(err)
	}
	r, out, err := rewriteFile(fset, file, src, pkg, info, Options{FirstSite: 1})
	if err != nil || r == nil {
		t.Fatalf("rewrite: %v", err)
	}
	// In a function body with a Local, the L forms take it.
	for _, want := range []string{"precog_rt.MapWriteL(&precog_g, ", "precog_rt.MapIterL(&precog_g, ", "precog_rt.MapReadL(&precog_g, "} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("no %s in the rewritten go1.19 file:\n%s", want, out)
		}
	}
	if bytes.Contains(out, []byte("precog_shim.MW")) {
		t.Errorf("maps not rewritten through rt:\n%s", out)
	}
	im := newTestImporter()
	im.mu.Lock()
	of, err := parser.ParseFile(im.fset, "old.go", out, parser.SkipObjectResolution)
	im.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	conf = types.Config{Importer: im, GoVersion: "go1.19"}
	if _, err := conf.Check("p", im.fset, []*ast.File{of}, nil); err != nil {
		t.Errorf("rewritten go1.19 file does not type-check: %v\n%s", err, out)
	}
}

// TestRewriteInstrumentedGroups checks that errgroup's Go and Wait are
// modeled as a task fork and join only while errgroup itself is not
// instrumented: where it is, its own go statements are recorded.
func TestRewriteInstrumentedGroups(t *testing.T) {
	src := []byte(`package p

import "golang.org/x/sync/errgroup"

func f() error {
	var g errgroup.Group
	g.Go(func() error { return nil })
	return g.Wait()
}
`)
	for _, tc := range []struct {
		instrumented bool
		want         bool // modeled as a task
	}{{false, true}, {true, false}} {
		out, _, _ := rewriteSource(t, "groups.go", src, Options{FirstSite: 1, Instrumented: func(path string) bool {
			return tc.instrumented && path == "golang.org/x/sync/errgroup"
		}})
		if got := bytes.Contains(out, []byte("precog_shim.TaskErr(")); got != tc.want {
			t.Errorf("errgroup instrumented %v: modeled as a task %v, want %v:\n%s", tc.instrumented, got, tc.want, out)
		}
	}
}

// TestRewriteCancel checks that a call of a context's cancel function is
// recorded, directly and deferred, and that other calls are not.
func TestRewriteCancel(t *testing.T) {
	src := []byte(`package p

import "context"

func f(parent context.Context, g func()) {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	cctx, cause := context.WithCancelCause(ctx)
	g()
	cause(nil)
	<-cctx.Done()
}

type stopper struct{ cancel context.CancelFunc }

func (x *stopper) stop() { x.cancel() }
`)
	out, sites, _ := rewriteSource(t, "cancel.go", src, Options{FirstSite: 1})
	for _, want := range []string{"defer precog_shim.Cancelling(", ", cancel)()", "precog_shim.Cancelling(", ", cause)(nil)"} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("rewritten file lacks %q:\n%s", want, out)
		}
	}
	if bytes.Contains(out, []byte(", g)()")) {
		t.Errorf("g() recorded as a cancel:\n%s", out)
	}
	n := 0
	for _, s := range sites {
		if s.Kind == "cancel" {
			n++
		}
	}
	if n != 3 {
		t.Errorf("%d cancel sites, want 3: %+v", n, sites)
	}
	// The field read nests inside: the call's function stays a value.
	if !bytes.Contains(out, []byte("precog_shim.Cancelling(")) || bytes.Contains(out, []byte("&precog_shim.Cancelling(")) {
		t.Errorf("x.cancel() rewritten into an address of a call:\n%s", out)
	}
	typeCheckOutput(t, "cancel.go", out)
}

// TestRewriteReflectSelect checks that reflect.Select becomes
// shim.ReflectSelect with three select sites of one case each (a receive,
// a send, a default), its result used as the call's was, and that a
// method named Select of another package is left alone.
func TestRewriteReflectSelect(t *testing.T) {
	src := []byte(`package p

import "reflect"

type picker struct{}

func (picker) Select(cases []reflect.SelectCase) (int, reflect.Value, bool) { return 0, reflect.Value{}, false }

func f(cases []reflect.SelectCase) int {
	i, v, ok := reflect.Select(cases)
	if ok {
		_ = v
	}
	j, _, _ := picker{}.Select(cases)
	return i + j
}
`)
	out, sites, _ := rewriteSource(t, "rsel.go", src, Options{FirstSite: 1})
	if !bytes.Contains(out, []byte("precog_shim.ReflectSelect(1, 2, 3, cases)")) || bytes.Count(out, []byte("ReflectSelect")) != 1 {
		t.Errorf("rewritten file lacks one precog_shim.ReflectSelect(1, 2, 3, cases):\n%s", out)
	}
	var cases []string
	for _, s := range sites {
		if s.Kind == "select" {
			cases = append(cases, s.Cases)
		}
	}
	if !slices.Equal(cases, []string{"r", "s", ""}) {
		t.Errorf("select sites' cases %q, want r, s and none", cases)
	}
	typeCheckOutput(t, "rsel.go", out)
}

// TestRewriteConn checks that a TCP connection is wrapped by
// precog_rtnet.Conn where the program reads or writes its bytes: the
// receiver of its Read, Write and Close (deferred too), an argument passed
// as one of package io's readers or writers (also variadic), and a struct
// field of such a type in a composite literal, a *tls.Conn's too; and
// nowhere else (a net.Conn parameter, SetDeadline, a bytes.Buffer's Write).
func TestRewriteConn(t *testing.T) {
	src := []byte(`package p

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"time"
)

type reader struct{ R io.Reader }

func handle(c net.Conn) {}

func f(c net.Conn, tc *net.TCPConn, b []byte) {
	c.Write(b)
	tc.Read(b)
	r := bufio.NewReader(c)
	_ = r
	io.ReadFull(tc, b)
	w := io.MultiWriter(c, tc)
	_ = w
	_ = reader{R: c}
	_ = reader{c}
	handle(c)
	c.SetDeadline(time.Time{})
	defer c.Close()
	var buf bytes.Buffer
	buf.Write(b)
}

func g(t *tls.Conn, b []byte) {
	t.Write(b)
	fmt.Fprintln(t, "hi")
	t.ConnectionState()
}
`)
	out, sites, _ := rewriteSource(t, "conn.go", src, Options{FirstSite: 1})
	checkConns(t, "conn.go", out, sites, 11, "handle's argument, SetDeadline's and ConnectionState's receivers and the buffer left alone",
		"precog_rtnet.Conn(1, c).Write(b)", "precog_rtnet.Conn(2, tc).Read(b)", "bufio.NewReader(precog_rtnet.Conn(",
		"io.ReadFull(precog_rtnet.Conn(", "io.MultiWriter(precog_rtnet.Conn(", "reader{R: precog_rtnet.Conn(", "reader{precog_rtnet.Conn(",
		"c.SetDeadline(", "defer precog_rtnet.Conn(", `precog_rtnet "github.com/precog-dev/precog/shim/rtnet"`,
		"precog_rtnet.Conn(11, t).Write(b)", "fmt.Fprintln(precog_rtnet.Conn(12, t), ", "t.ConnectionState()")
}

// checkConns checks that the rewritten file out has each of wants, and n
// conn sites and as many wrappers (why says which are left alone), and
// that it type-checks.
func checkConns(t *testing.T, name string, out []byte, sites []trace.Site, n int, why string, wants ...string) {
	t.Helper()
	checkStreams(t, name, out, sites, "conn", []string{"precog_rtnet.Conn("}, n, why, wants...)
}

// checkStreams checks that the rewritten file out has each of wants, and
// n sites of kind and as many calls of the wrappers (why says which are
// left alone), and that it type-checks.
func checkStreams(t *testing.T, name string, out []byte, sites []trace.Site, kind string, wrappers []string, n int, why string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("rewritten file lacks %q:\n%s", want, out)
		}
	}
	k := 0
	for _, s := range sites {
		if s.Kind == kind {
			k++
		}
	}
	w := 0
	for _, wrapper := range wrappers {
		w += bytes.Count(out, []byte(wrapper))
	}
	if k != n || w != n {
		t.Errorf("%d %s sites and %d wrappers, want %d (%s):\n%s", k, kind, w, n, why, out)
	}
	typeCheckOutput(t, name, out)
}

// TestRewritePipe checks that the halves of an io.Pipe are wrapped by
// precog_rtpipe.Reader and Writer where the program moves their bytes or
// closes the writer, as connections are: go-containerregistry's
// computeLayer (io.Copy into the writer, then its Close or
// CloseWithError; the reader read to its end through bufio), the
// reader's Read, the writer's Write (whose results keep their types), a
// composite literal's field, a half embedded in a struct of the
// program's (its promoted Write, and the struct handed to fmt.Fprintf);
// and nowhere else: the reader's own Close and CloseWithError (rtpipe
// orders nothing by them), the reader passed as an io.Closer, a
// *io.PipeReader parameter, an assignment, the embedding struct kept by
// bufio.NewWriter. The file imports rtpipe, not rtnet.
func TestRewritePipe(t *testing.T) {
	src := []byte(`package p

import (
	"bufio"
	"fmt"
	"io"
)

type half struct{ *io.PipeWriter }

type sink struct{ W io.Writer }

func keep(*io.PipeReader)       {}
func closeAll(cs ...io.Closer) {}

func count(r io.Reader, b []byte) (int64, error) {
	pr, pw := io.Pipe()
	var size int64
	go func() {
		n, err := io.Copy(pw, r)
		if err != nil {
			pw.CloseWithError(err)
			return
		}
		size = n
		pw.Close()
	}()
	defer pr.Close()
	if _, err := io.Copy(io.Discard, bufio.NewReader(pr)); err != nil {
		return 0, err
	}
	pr.Read(b)
	pr.CloseWithError(nil)
	_ = sink{W: pw}
	var c io.Closer = pw
	_ = c
	keep(pr)
	closeAll(pr)
	h := half{pw}
	h.Write(b)
	fmt.Fprintf(h, "x")
	_ = bufio.NewWriter(h)
	var n int
	var err error
	n, err = pw.Write(b)
	_, _ = n, err
	return size, nil
}
`)
	out, sites, _ := rewriteSource(t, "pipe.go", src, Options{FirstSite: 1})
	checkStreams(t, "pipe.go", out, sites, "pipe", []string{"precog_rtpipe.Reader(", "precog_rtpipe.Writer("}, 9,
		"the reader's closes, the io.Closer, the parameter, the assignment and the kept struct left alone",
		"io.Copy(precog_rtpipe.Writer(", "&pw))).CloseWithError(err)", "&pw))).Close()",
		"bufio.NewReader(precog_rtpipe.Reader(", ", pr).Read(b)", "defer pr.Close()", "\tpr.CloseWithError(nil)",
		"sink{W: precog_rtpipe.Writer(", "var c io.Closer = (*precog_shim.RL(", "keep(pr)", ", pr)\n", // closeAll's
		"&h))).PipeWriter).Write(b)", "fmt.Fprintf(precog_rtpipe.Writer(", "bufio.NewWriter((*precog_shim.RL(", "&pw))).Write(b)",
		`precog_rtpipe "github.com/precog-dev/precog/shim/rtpipe"`)
	if bytes.Contains(out, []byte("precog_rtnet")) {
		t.Errorf("a file with pipes and no connection imports rtnet:\n%s", out)
	}
}

// TestRewriteEmbeddedConn checks that a connection embedded in a struct
// of the program's (gopcua's uacp.Conn: struct{ *net.TCPConn; ... }) is
// wrapped where its promoted Read and Write move bytes, as the embedded
// field: the receiver of a promoted Write, through an embedded struct of
// the program's too, and an argument to io.ReadFull or fmt.Fprintf; and
// not where the struct declares the method itself (a Close with a
// sync.Once), where the reader is kept (bufio.NewReader, which would miss
// a later change of the field), or where the embedded field cannot be
// named (net/http's unexported fields are not the program's).
func TestRewriteEmbeddedConn(t *testing.T) {
	src := []byte(`package p

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"sync"
)

type Conn struct {
	*net.TCPConn
	once sync.Once
}

func (c *Conn) Close() error {
	var err error
	c.once.Do(func() { err = c.TCPConn.Close() })
	return err
}

type session struct {
	*Conn
	id int
}

type iconn struct{ net.Conn }

func f(c *Conn, s session, i iconn, b []byte) {
	c.Write(b)
	io.ReadFull(c, b)
	s.Write(b)
	fmt.Fprintf(i, "%d", 1)
	(&i).Read(b)
	c.Close()
	_ = bufio.NewReader(c)
	io.Copy(c, c)
	var rw io.ReadWriteCloser = c
	_ = rw
}
`)
	out, sites, _ := rewriteSource(t, "econn.go", src, Options{FirstSite: 1})
	checkConns(t, "econn.go", out, sites, 8, "Close's own method, the kept reader and the conversion left alone",
		"(c).TCPConn).Write(b)", "io.ReadFull(precog_rtnet.Conn(", ".Conn.TCPConn).Write(b)",
		"fmt.Fprintf(precog_rtnet.Conn(", "((&i)).Conn).Read(b)", ".TCPConn))).Close()",
		"\tc.Close()", "bufio.NewReader(c)", "io.Copy(precog_rtnet.Conn(", "(c).TCPConn), precog_rtnet.Conn(",
		"var rw io.ReadWriteCloser = c")
}

// TestRewriteLocals checks precog explain's full tracing: reads and writes
// of local variables that nothing shares are instrumented, new variables
// are recorded after their definition with Def (not in an init statement,
// where nothing can follow), and the result type-checks.
func TestRewriteLocals(t *testing.T) {
	src := []byte(`package p

func f(a int) int {
	x := a + 1
	var y = x
	y = x * 2
	if z := y; z > 0 {
		return z
	}
	for i := 0; i < 3; i++ {
		y += i
	}
	return y
}
`)
	out, sites, _ := rewriteSource(t, "p.go", src, Options{FirstSite: 1, Locals: true})
	typeCheckOutput(t, "p.go", out)
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`x := \(\*precog_shim\.RL?\(`),     // a read
		regexp.MustCompile(`; precog_shim\.Def\(`),            // x's definition, recorded after it
		regexp.MustCompile(`precog_shim\.W[LNP]?\([^;]*&y, `), // y = x * 2
		regexp.MustCompile(`var y = \(\*precog_shim\.RL?\(`),  // var y = x reads x
		regexp.MustCompile(`if z := \(\*precog_shim\.RL?\(`),  // the init statement still reads y
	} {
		if !want.Match(out) {
			t.Errorf("rewritten file lacks %s:\n%s", want, numbered(out))
		}
	}
	if strings.Count(string(out), "precog_shim.Def(") != 2 {
		t.Errorf("want Def after x := and var y, not in the if's init:\n%s", numbered(out))
	}
	var defs int
	for _, s := range sites {
		if s.Kind == "write" && (s.Expr == "x" || s.Expr == "y") {
			defs++
		}
	}
	if defs < 3 {
		t.Errorf("want write sites for x's and y's definitions and y's assignment, got sites %+v", sites)
	}
	plain, _, _ := rewriteSource(t, "p.go", src, Options{FirstSite: 1})
	if plain != nil {
		t.Errorf("without Locals nothing is instrumented, got:\n%s", plain)
	}
}

// TestBufferCallsExecOnly: with a shared-location filter, calls of
// bytes.Buffer and strings.Builder methods are recorded only on the
// buffers the file hands to os/exec as a command's output (whose writer
// the analysis cannot see), through a variable or a field.
func TestBufferCallsExecOnly(t *testing.T) {
	src := []byte(`package p

import (
	"bytes"
	"os/exec"
	"strings"
)

type job struct{ out, log bytes.Buffer }

func f(j *job, cmd *exec.Cmd) string {
	var mine, theirs strings.Builder
	cmd.Stdout = &j.out
	_ = exec.Cmd{Stderr: &theirs}
	mine.WriteString("x")
	j.log.WriteString("y")
	return j.out.String() + theirs.String() + mine.String() + j.log.String()
}
`)
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "a.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	pkg, info := checkFiles(t, fset, "p", []*ast.File{file})
	opts := Options{FirstSite: 1, Shared: func(token.Pos) bool { return false }}
	r, out, err := rewriteFile(fset, file, src, pkg, info, opts)
	if err != nil || r == nil {
		t.Fatalf("rewrite: %v", err)
	}
	var got []string
	for _, s := range r.sites {
		got = append(got, s.Kind+" "+s.Expr)
	}
	want := "read j.out.String(); read theirs.String()"
	if g := strings.Join(got, "; "); g != want {
		t.Errorf("sites %s, want %s\n%s", g, want, out)
	}
}

// TestRewriteTestifyConditions checks that the condition of testify's
// Eventually, EventuallyWithT and Never (functions of assert and require
// and methods of their Assertions) is wrapped as runs forked by the call
// and that the call is followed by their join: after a statement, and
// around a value. A deferred call, a nil condition and a call while
// testify is instrumented are left alone.
func TestRewriteTestifyConditions(t *testing.T) {
	src := []byte(`package p

import (
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func f(t require.TestingT, ready *bool) bool {
	require.Eventually(t, func() bool { return *ready }, time.Second, time.Millisecond)
	if !assert.Eventually(t, func() bool { return *ready }, time.Second, time.Millisecond, "msg") {
		return false
	}
	require.EventuallyWithT(t, func(c *assert.CollectT) { assert.True(c, *ready) }, time.Second, time.Millisecond)
	cond := func() bool { return !*ready }
	ok := assert.Never(t, cond, time.Second, time.Millisecond) && assert.Eventuallyf(t, cond, time.Second, time.Millisecond, "%d", 1)
	a := assert.New(t)
	a.Eventually(cond, time.Second, time.Millisecond)
	require.New(t).Never(cond, time.Second, time.Millisecond)
	defer assert.Eventually(t, cond, time.Second, time.Millisecond)
	assert.Eventually(t, nil, time.Second, time.Millisecond)
	return ok
}
`)
	out, sites, _ := rewriteSource(t, "cond.go", src, Options{FirstSite: 1})
	for _, want := range []string{
		"require.Eventually(t, precog_shim.CondBool(",
		"time.Second, time.Millisecond); precog_shim.CondReturned(",
		"if !precog_shim.CondWaited(",
		`time.Millisecond, "msg")) {`, // a constant message: the condition's own fork
		"require.EventuallyWithT(t, precog_shim.CondWith(",
		"ok := precog_shim.CondWaited(",
		"&& precog_shim.CondWaited(",
		"a.Eventually(precog_shim.CondBool(",
		"require.New(t).Never(precog_shim.CondBool(",
		"defer assert.Eventually(t, cond, time.Second, time.Millisecond)\n",
		"assert.Eventually(t, nil, time.Second, time.Millisecond)\n",
	} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("rewritten file lacks %q:\n%s", want, numbered(out))
		}
	}
	forks, joins := 0, 0
	for _, s := range sites {
		switch s.Kind {
		case "go":
			forks++
		case "wait":
			joins++
		}
	}
	if forks != 7 || joins != 7 {
		t.Errorf("%d fork and %d join sites, want 7 and 7", forks, joins)
	}
	sameLines(t, "cond.go", src, out)
	typeCheckOutput(t, "cond.go", out)

	out, _, _ = rewriteSource(t, "cond.go", src, Options{FirstSite: 1, Instrumented: func(path string) bool {
		return strings.HasPrefix(path, "github.com/stretchr/testify/")
	}})
	if bytes.Contains(out, []byte("precog_shim.Cond")) {
		t.Errorf("conditions wrapped while testify is instrumented:\n%s", numbered(out))
	}
}

// TestRewriteCopyOneLine: a copied operand is rendered on one line (the
// inserted text holds no newlines), so a line comment inside it, a
// statement of a function literal and a raw string spanning lines must
// keep their meaning there. ttrpc's server.go sends a composite literal
// with comments in it in a select, whose forcing prelude copies the
// value: the comment swallowed the rest of the prelude's line and the
// rewritten file did not parse ("expected operand, found 'case'").
func TestRewriteCopyOneLine(t *testing.T) {
	src := []byte(`package p

type response struct {
	id     uint32
	closed bool
	s      string
}

func f(responses chan response, done chan struct{}, id uint32) bool {
	select {
	case responses <- response{
		// even though the id is bad, we send it back on the same id
		// so the client knows which one was bad.
		id:     id,
		closed: true, // closes the stream
		s: ` + "`two\nlines`" + `,
	}:
		return true
	case responses <- func() response {
		r := response{id: id}
		r.closed = id > 1
		return r
	}():
		return true
	case <-done:
		return false
	}
}
`)
	out, _, _ := rewriteSource(t, "p.go", src, Options{FirstSite: 1})
	if !bytes.Contains(out, []byte("TrySend")) {
		t.Fatalf("no forcing prelude copied the sent values:\n%s", numbered(out))
	}
	typeCheckOutput(t, "p.go", out)
	sameLines(t, "p.go", src, out)
	if !bytes.Contains(out, []byte(`s: "two\nlines"`)) {
		t.Errorf("the copied raw string lost its value:\n%s", numbered(out))
	}
}

// TestOneLine: oneLine keeps a copy without line comments, statement
// ends or raw strings as before (each newline a space), and changes only
// those three otherwise.
func TestOneLine(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"x.f", "x.f"},
		{"T{\n\ta: 1,\n\tb: 2,\n}", "T{ \ta: 1, \tb: 2, }"},
		{"f(a,\n\tb)", "f(a, \tb)"},
		{"T{ // c\n\ta: 1,\n}", "T{      \ta: 1, }"},
		{"func() {\n\tg() // c\n}()", "func() { \tg()     ; }()"},
		{"func() int {\n\tr := 1\n\treturn r\n}()", "func() int { \tr := 1; \treturn r; }()"},
		{"T{s: `a\nb`}", `T{s: "a\nb"}`},
		{"T{s: `a b`,\n}", "T{s: `a b`, }"},
	} {
		if got := string(oneLine([]byte(c.in))); got != c.want {
			t.Errorf("oneLine(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
