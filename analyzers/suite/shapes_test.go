package suite_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"

	"github.com/precog-dev/precog/analyzers/budget"
	"github.com/precog-dev/precog/analyzers/limits"
	"github.com/precog-dev/precog/analyzers/suite"
	"github.com/precog-dev/precog/detect/finding"
)

// The shapes below are the ones that made the checks run for minutes or
// overflow the stack on the standard library and x/tools (issue 17):
// long chains of calls through parameters and results with recursion
// among them (go/ssa's builder), recursive types walked recursively
// (go/types), and functions with thousands of switch cases (encoding/gob's
// generated helpers, go/types' expression checker). Each is generated at
// two sizes; the analysis must finish within the default budget, report
// no internal error, and its work must grow at most quadratically with the
// size (an exponential refinement grows by far more than 4x when the size
// doubles, and never finishes at these sizes).

// shapes maps a package name to a generator of its source at size n.
var shapes = map[string]func(n int) string{
	"chain":  chainShape,
	"tree":   treeShape,
	"switch": switchShape,
}

// chainShape: n functions handing a pointer down through a parameter and
// back up as a result, each calling the next and, every few steps, one
// far back (mutual recursion through results), used by goroutines.
func chainShape(n int) string {
	var b strings.Builder
	b.WriteString("package chain\n\ntype T struct {\n\tf    *int\n\tnext *T\n}\n\n")
	for i := range n {
		fmt.Fprintf(&b, "func c%d(p *T, k int) *T {\n", i)
		if i == n-1 {
			b.WriteString("\treturn p\n}\n\n")
			continue
		}
		fmt.Fprintf(&b, "\tif k%%3 == 0 {\n\t\treturn c%d(p.next, k-1)\n\t}\n", (i*7)%(i+1))
		fmt.Fprintf(&b, "\tif k%%5 == 0 {\n\t\treturn c%d(c%d(p, k-2), k-3)\n\t}\n", i+1, i/2)
		fmt.Fprintf(&b, "\treturn c%d(p, k-1)\n}\n\n", i+1)
	}
	b.WriteString(`func Use(t *T) int {
	done := make(chan bool)
	go func() {
		c0(t, 9).f = nil
		done <- true
	}()
	x := *c0(t, 10).f
	<-done
	return x
}
`)
	return b.String()
}

// treeShape: a recursive type walked by n mutually recursive functions
// through fields, slices and maps, on several goroutines.
func treeShape(n int) string {
	var b strings.Builder
	b.WriteString("package tree\n\nimport \"sync\"\n\ntype Node struct {\n\tleft, right *Node\n\tkids        []*Node\n\tm           map[string]*Node\n\tval         *int\n}\n\n")
	for i := range n {
		fmt.Fprintf(&b, "func w%d(x *Node) *Node {\n\tif x == nil {\n\t\treturn nil\n\t}\n", i)
		fmt.Fprintf(&b, "\tx.left = w%d(x.right)\n", (i+1)%n)
		fmt.Fprintf(&b, "\tfor _, k := range x.kids {\n\t\tx.m[\"k\"] = w%d(k)\n\t}\n", (i*3+2)%n)
		fmt.Fprintf(&b, "\tif x.val != nil {\n\t\treturn w%d(x.m[\"k\"])\n\t}\n\treturn x.left\n}\n\n", (i*5+1)%n)
	}
	b.WriteString(`func Walk(roots []*Node) {
	var wg sync.WaitGroup
	for _, r := range roots {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w0(r).val = nil
		}()
	}
	_ = *w0(roots[0]).val
	wg.Wait()
}
`)
	return b.String()
}

// switchShape: one function with n cases, each touching shared state
// through a helper that takes and returns it, called from goroutines.
func switchShape(n int) string {
	var b strings.Builder
	b.WriteString("package switchy\n\ntype S struct {\n\ta, b *S\n\tbuf  []int\n\tm    map[int]int\n}\n\n")
	b.WriteString("func h(s *S, i int) *S {\n\tif i%2 == 0 {\n\t\treturn s.a\n\t}\n\treturn s\n}\n\n")
	b.WriteString("func Big(op int, s *S) *S {\n\tswitch op {\n")
	for i := range n {
		fmt.Fprintf(&b, "\tcase %d:\n", i)
		switch i % 4 {
		case 0:
			fmt.Fprintf(&b, "\t\ts.a = h(s.b, %d)\n", i)
		case 1:
			fmt.Fprintf(&b, "\t\ts.buf = append(s.buf, %d)\n", i)
		case 2:
			fmt.Fprintf(&b, "\t\ts.m[%d] = len(s.buf)\n", i)
		case 3:
			fmt.Fprintf(&b, "\t\treturn Big(op-%d, h(s, %d))\n", i/2+1, i)
		}
	}
	b.WriteString("\t}\n\treturn s\n}\n\n")
	b.WriteString(`func Run(s *S) {
	for i := range 4 {
		go Big(i, s)
	}
	Big(7, s)
}
`)
	return b.String()
}

// maxGrowth is how much the work may grow when a shape doubles in size.
const maxGrowth = 4.5

func TestShapesStayWithinBudget(t *testing.T) {
	// Only the work counter, which does not depend on the machine.
	setFlag(t, "time", "0")
	setFlag(t, "mem", "0")
	const small, large = 150, 300
	work := analyzeShapes(t, small, large)
	for name := range shapes {
		w := [2]int64{work[shapePath(name, small)], work[shapePath(name, large)]}
		t.Logf("%s: work %d at size %d, %d at size %d", name, w[0], small, w[1], large)
		if w[0] <= 0 {
			t.Errorf("%s: no work recorded at size %d", name, small)
			continue
		}
		if g := float64(w[1]) / float64(w[0]); g > maxGrowth {
			t.Errorf("%s: work grew %.1fx when the size doubled, more than %.1fx", name, g, maxGrowth)
		}
	}
}

// shapePath is the import path of shape name at size n.
func shapePath(name string, n int) string { return fmt.Sprintf("n%d/%s", n, name) }

// workProbe runs after every check and returns the work spent on the
// package; the checker keeps the results of root analyzers only.
var workProbe = &analysis.Analyzer{
	Name:       "workprobe",
	Doc:        "return the work spent on the package",
	Requires:   append([]*analysis.Analyzer{budget.Analyzer}, suite.Checks()...),
	ResultType: reflect.TypeFor[int64](),
	Run: func(pass *analysis.Pass) (any, error) {
		return pass.ResultOf[budget.Analyzer].(*budget.Budget).Work(), nil
	},
}

// analyzeShapes writes every shape at each size into a GOPATH (shape
// name at size n is package shapePath(name, n)), runs the suite on them
// with the default budget, and returns the work each package spent. The
// sizes are loaded and analyzed together: the budget is each package's
// own, and the standard library packages a shape imports are loaded from
// source once.
func analyzeShapes(t *testing.T, sizes ...int) map[string]int64 {
	t.Helper()
	dir := t.TempDir()
	for _, n := range sizes {
		for name, gen := range shapes {
			pkgDir := filepath.Join(dir, "src", filepath.FromSlash(shapePath(name, n)))
			if err := os.MkdirAll(pkgDir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(pkgDir, name+".go"), []byte(gen(n)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	cfg := &packages.Config{
		Mode: packages.LoadAllSyntax,
		Dir:  filepath.Join(dir, "src"),
		Env:  append(os.Environ(), "GOPATH="+dir, "GO111MODULE=off", "GOWORK=off"),
	}
	pkgs, err := packages.Load(cfg, "./...")
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) != len(shapes)*len(sizes) {
		t.Fatalf("loaded %d packages, want %d", len(pkgs), len(shapes)*len(sizes))
	}
	for _, p := range pkgs {
		for _, e := range p.Errors {
			t.Fatalf("%s: %v", p.PkgPath, e)
		}
	}
	graph, err := checker.Analyze(append(suite.Checks(), workProbe), pkgs, nil)
	if err != nil {
		t.Fatal(err)
	}
	work := map[string]int64{}
	for act := range graph.All() {
		if act.Err != nil {
			t.Errorf("%s on %s: %v", act.Analyzer.Name, act.Package.PkgPath, act.Err)
		}
		for _, d := range act.Diagnostics {
			if d.Category == finding.InternalError || d.Category == limits.ID {
				t.Errorf("%s: %s: %s", act.Package.PkgPath, d.Category, d.Message)
			}
		}
		if w, ok := act.Result.(int64); ok && act.Analyzer == workProbe {
			work[act.Package.PkgPath] = w
		}
	}
	return work
}

// TestExhaustedBudgetLeavesOneNote runs the suite on a package with a
// concurrent map write, within the budget and then with too little work
// for the points-to analysis: the race is reported only in the first run,
// and the second gives the limits check's note and nothing else.
func TestExhaustedBudgetLeavesOneNote(t *testing.T) {
	setFlag(t, "time", "0")
	setFlag(t, "mem", "0")
	src := `package race

var m = map[int]int{}

func Run() {
	go func() { m[1] = 1 }()
	m[2] = 2
}
`
	for _, tc := range []struct {
		work string
		want []string
	}{
		{"0", []string{"con-map", "con-map"}},
		{"1", []string{limits.ID}},
	} {
		setFlag(t, "work", tc.work)
		var got []string
		for _, d := range analyzeSource(t, "race", src) {
			got = append(got, d.Category)
		}
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("with -limits.work=%s: got diagnostics %q, want %q", tc.work, got, tc.want)
		}
	}
}

// TestRecursiveHelperViewsShareWork runs the suite on a map write in a
// helper that passes its map on to itself from three places (chromedp's
// walk), reached from 24 goroutines that each make their own frame: the
// write has 17 views of 3 kinds, and comparing it with itself in every
// pair of views and contexts spent about 102,000 units of work, where
// comparing the objects once per pair of kinds spends about 3,400. Within
// 20,000 units the frames of their own are silent with no note of a
// spent budget (the negative control), and a frame that an unlocked
// goroutine shares with a locked one is reported.
func TestRecursiveHelperViewsShareWork(t *testing.T) {
	setFlag(t, "time", "0")
	setFlag(t, "mem", "0")
	setFlag(t, "work", "20000")
	src := func(racy string) string {
		return `package walk

import "sync"

type Node struct {
	ID                  int
	Kids, Shadow, Extra []*Node
}

type Frame struct {
	mu    sync.Mutex
	Nodes map[int]*Node
}

func NewFrame() *Frame { return &Frame{Nodes: make(map[int]*Node)} }

func walk(m map[int]*Node, n *Node) {
	m[n.ID] = n
	for _, c := range n.Kids {
		walk(m, c)
	}
	for _, c := range n.Shadow {
		walk(m, c)
	}
	for _, c := range n.Extra {
		walk(m, c)
	}
}

func (f *Frame) Update(n *Node) {
	f.mu.Lock()
	defer f.mu.Unlock()
	walk(f.Nodes, n)
}

func (f *Frame) Racy(n *Node) { walk(f.Nodes, n) }

func Run(n *Node) {
	` + racy + `
` + strings.Repeat("\tgo func() { NewFrame().Update(n) }()\n", 24) + `}
`
	}
	for _, tc := range []struct {
		name, racy string
		want       []string
	}{
		{"own frames", "", nil},
		{"shared frame", "f := NewFrame(); go f.Racy(n); go f.Update(n)", []string{"con-map"}},
	} {
		var got []string
		for _, d := range analyzeSource(t, "walk", src(tc.racy)) {
			got = append(got, d.Category)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: got diagnostics %q, want %q", tc.name, got, tc.want)
		}
	}
}

// analyzeSource runs the suite on one package of one file in a GOPATH and
// returns the checks' diagnostics.
func analyzeSource(t *testing.T, name, src string) []analysis.Diagnostic {
	t.Helper()
	dir := t.TempDir()
	pkgDir := filepath.Join(dir, "src", name)
	if err := os.MkdirAll(pkgDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pkgDir, name+".go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := &packages.Config{
		Mode: packages.LoadAllSyntax,
		Dir:  pkgDir,
		Env:  append(os.Environ(), "GOPATH="+dir, "GO111MODULE=off", "GOWORK=off"),
	}
	pkgs, err := packages.Load(cfg, ".")
	if err != nil || len(pkgs) != 1 || len(pkgs[0].Errors) > 0 {
		t.Fatalf("loading %s: %v %v", name, err, pkgs)
	}
	graph, err := checker.Analyze(suite.Checks(), pkgs, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []analysis.Diagnostic
	for _, act := range graph.Roots {
		out = append(out, act.Diagnostics...)
	}
	return out
}

// setFlag sets a budget flag of the limits check until the end of the
// test.
func setFlag(t *testing.T, name, value string) {
	t.Helper()
	f := limits.Analyzer.Flags.Lookup(name)
	old := f.Value.String()
	if err := f.Value.Set(value); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Value.Set(old) })
}
