package rewrite

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strings"
	"testing"
)

// TestLocalCallees checks which functions take their caller's Local: only
// those every reference to which is a direct call on the caller's
// goroutine.
func TestLocalCallees(t *testing.T) {
	src := `package p

type T struct{ n int }

type I interface{ viaIface() int }

func (t *T) small() int { return t.n }           // called directly, deferred
func (t *T) viaIface() int { return t.n }        // an interface's method name
func (t *T) valued() int { return t.n }          // used as a method value
func (t *T) exprd() int { return t.n }           // used as a method expression
func (t *T) Exported() int { return t.n }        // exported
func helper(t *T) int { return t.small() }       // called directly
func spawned(t *T) { t.n = 1 }                   // called by a go statement
func funcValue(t *T) { t.n = 2 }                 // stored in a variable
func multi(a, b int) int { return a + b }        // called as multi(pair())
func pair() (int, int) { return 1, 2 }           // called directly
func unnamed(int) {}                             // a parameter without a name
func never(t *T) int { return t.n }              // never called
func fromNosplit(t *T) int { return t.n }        // called from a //go:nosplit function
func generic[E any](x E) E { return x }          // called with and without type arguments

//go:nosplit
func ns(t *T) int { return fromNosplit(t) }

func use(t *T, i I) {
	defer t.small()
	_ = helper(t)
	_ = t.valued
	_ = (*T).exprd(t)
	_ = t.Exported()
	_ = i.viaIface()
	go spawned(t)
	f := funcValue
	f(t)
	_ = multi(pair())
	unnamed(1)
	_ = ns(t)
	_ = generic(1) + generic[int](2)
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	pkg, info := checkFiles(t, fset, "p", []*ast.File{f})
	got := LocalCallees(pkg, info, []*ast.File{f}, func(*ast.File) bool { return true })
	var names []string
	for fn := range got {
		names = append(names, fn.Name())
	}
	slices.Sort(names)
	if want := []string{"generic", "helper", "pair", "small"}; !slices.Equal(names, want) {
		t.Errorf("LocalCallees = %v, want %v", names, want)
	}
	if got := LocalCallees(pkg, info, []*ast.File{f}, func(*ast.File) bool { return false }); got != nil {
		t.Errorf("with no file rewritten, LocalCallees = %v, want none", got)
	}
}

// TestRewritePassLocal checks the rewritten text: the callee takes the
// Local and uses it, its direct callers pass theirs, a deferred call
// passes the caller's, and what may run on another goroutine (a go
// statement's function, a function literal, the body of a range over a
// function) never gets the caller's.
func TestRewritePassLocal(t *testing.T) {
	src := []byte(`package p

type T struct{ n int; m map[int]int }

func (t *T) get() int { return t.n + t.m[1] }

func (t *T) set(v int) { t.n = v }

func each(yield func(int) bool) { yield(1) }

var initial = new(T).get()

func run(t *T) int {
	defer t.set(0)
	t.set(t.get())
	go func() { t.set(2) }()
	go t.spawn()
	for range each {
		t.set(3)
	}
	return t.n
}

func (t *T) spawn() { t.n = 4 }
`)
	out, _, _ := rewriteSource(t, "p.go", src, Options{FirstSite: 1})
	typeCheckOutput(t, "p.go", out)
	text := string(out)
	for _, want := range []string{
		"func (t *T) get(precog_g *precog_shim.Local) int { return (*precog_shim.RL(precog_g, ",
		"precog_shim.MRL(precog_g, ",
		"func (t *T) set(precog_g *precog_shim.Local, v int) { precog_shim.WN(precog_g, ",
		"var initial = precog_shim.New(5, new(T)).get(new(precog_shim.Local))",
		"func run(t *T) int { var precog_g precog_shim.Local; _ = &precog_g;",
		".set(&precog_g, 0)", // deferred
		".get(&precog_g))",
		"precog_shim.End(); (*precog_shim.RL(&precog_g, 10, &t)).set(&precog_g, 2)", // the literal's own Local
		"precog_f := (*precog_shim.RL(&precog_g, 11, &t)).spawn; precog_id := precog_shim.Go(12); return func() { precog_shim.Begin(precog_id); defer precog_shim.End(); precog_f() } }()()",
		".set(new(precog_shim.Local), 3)", // in the range over a function
		"func (t *T) spawn() { var precog_g precog_shim.Local;",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("rewritten file lacks %q:\n%s", want, numbered(out))
		}
	}
	lines := strings.Split(text, "\n")
	if lit := lines[15]; !strings.Contains(lit, "func() { var precog_g precog_shim.Local; _ = &precog_g;") {
		t.Errorf("the go statement's literal does not declare its own Local: %s", lit)
	}
}
