package instrument

import (
	"context"
	"github.com/precog-dev/precog/internal/testmod"
	"maps"
	"reflect"
	"slices"
	"testing"

	"github.com/precog-dev/precog/shim/trace"
)

// TestMarkTests: only the tests from which a marked call may be reached
// (markTests' reference graph) run under GODEBUG=tracebackancestors. lib
// marks httptest.NewServer in Serve. p's tests reach it by a static call
// through another package, a function value, a method through an
// interface, an example with an output comment and a benchmark; TestQuiet
// and an example without output (never run) do not. q's initialization
// and r's TestMain reach it: every test of theirs. s imports lib and
// reaches nothing marked: not in Marks.
func TestMarkTests(t *testing.T) {
	if testing.Short() {
		t.Skip("loads packages from source")
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.22\n",
		"lib/lib.go": `package lib

import (
	"net/http"
	"net/http/httptest"
)

func Serve() { start(http.NotFoundHandler()) }

func start(h http.Handler) {
	srv := httptest.NewServer(h)
	srv.Close()
}

type Server struct{}

func (Server) Start() { Serve() }

type Starter interface{ Start() }

func New() Starter { return Server{} }

func Quiet() int { return 1 }
`,
		"p/p.go": "package p\n\nimport \"example.com/m/lib\"\n\nfunc Direct() { lib.Serve() }\n",
		"p/p_test.go": `package p

import (
	"fmt"
	"testing"

	"example.com/m/lib"
)

func run(f func()) { f() }

func TestDirect(t *testing.T) { Direct() }

func TestValue(t *testing.T) { run(lib.Serve) }

func TestIface(t *testing.T) { lib.New().Start() }

func TestQuiet(t *testing.T) { lib.Quiet() }

func BenchmarkServe(b *testing.B) { lib.Serve() }

func ExampleServe() { lib.Serve() }

func ExampleDirect() {
	Direct()
	fmt.Println("ok")
	// Output: ok
}
`,
		"q/q.go":      "package q\n\nimport \"example.com/m/lib\"\n\nvar Started = func() bool { lib.Serve(); return true }()\n",
		"q/q_test.go": "package q\n\nimport \"testing\"\n\nfunc TestQ(t *testing.T) {}\n",
		"r/r_test.go": "package r\n\nimport (\n\t\"os\"\n\t\"testing\"\n\n\t\"example.com/m/lib\"\n)\n\nfunc TestMain(m *testing.M) { lib.Serve(); os.Exit(m.Run()) }\n\nfunc TestR(t *testing.T) {}\n",
		"s/s_test.go": "package s\n\nimport (\n\t\"testing\"\n\n\t\"example.com/m/lib\"\n)\n\nfunc TestS(t *testing.T) { lib.Quiet() }\n",
	}
	testmod.Write(t, dir, files)
	res, err := Instrument(context.Background(), Config{Dir: dir, Patterns: []string{"./..."}, CacheDir: sharedCache})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"example.com/m/p", "example.com/m/q", "example.com/m/r"}; !slices.Equal(res.Marks, want) {
		t.Errorf("Marks %v, want %v", res.Marks, want)
		if tab, err := trace.LoadSites(res.Sites); err == nil {
			for _, s := range tab.Sites {
				if s.Kind == "mark" {
					t.Logf("mark %s:%d %s (declaration line %d)", s.File, s.Line, s.Expr, s.DeclLine)
				}
			}
		}
	}
	want := map[string][]string{"example.com/m/p": {"BenchmarkServe", "ExampleDirect", "TestDirect", "TestIface", "TestValue"}}
	if !reflect.DeepEqual(res.MarkTests, want) {
		t.Errorf("MarkTests %v, want %v", res.MarkTests, want)
	}
	for _, c := range []struct {
		pkg, test string
		want      bool
	}{
		{"example.com/m/p", "TestDirect", true},
		{"example.com/m/p", "TestQuiet", false},
		{"example.com/m/p", "ExampleServe", false},
		{"example.com/m/q", "TestQ", true},
		{"example.com/m/r", "TestR", true},
		{"example.com/m/s", "TestS", false},
		{"example.com/m/lib", "TestNone", false},
	} {
		if got := res.Marked(c.pkg, c.test); got != c.want {
			t.Errorf("Marked(%s, %s) = %v, want %v (Marks %v, MarkTests %v)", c.pkg, c.test, got, c.want, res.Marks, slices.Sorted(maps.Keys(res.MarkTests)))
		}
	}
}
