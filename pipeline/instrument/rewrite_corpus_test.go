package instrument

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"sort"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// TestRewriteCorpus rewrites every file of real packages (a part of the
// standard library and of golang.org/x/tools by default, or the packages
// named by PRECOG_REWRITE_CORPUS, a comma-separated list of patterns
// loadable from this module) and type-checks the rewritten packages. It is
// slow, so it runs only when PRECOG_REWRITE_CORPUS is set ("1" for the
// default list).
func TestRewriteCorpus(t *testing.T) {
	env := os.Getenv("PRECOG_REWRITE_CORPUS")
	if env == "" {
		t.Skip("set PRECOG_REWRITE_CORPUS=1 (or a list of patterns)")
	}
	patterns := []string{"encoding/json", "context", "os/exec", "io", "database/sql",
		"net/rpc", "log/slog", "expvar", "go/types", "testing", "text/template", "compress/flate", "runtime/pprof",
		"golang.org/x/sync/errgroup", "golang.org/x/tools/go/packages", "golang.org/x/tools/go/ssa",
		"golang.org/x/tools/go/analysis/checker", "golang.org/x/tools/internal/gocommand"}
	if env != "1" {
		patterns = strings.Split(env, ",")
	}
	cfg := &packages.Config{
		Mode:  packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo | packages.NeedImports | packages.NeedDeps,
		Tests: false,
	}
	all := append([]string{shimPath, "github.com/precog-dev/precog/pipeline/instrument/rt"}, patterns...)
	pkgs, err := packages.Load(cfg, all...)
	if err != nil {
		t.Fatal(err)
	}
	byPath := map[string]*types.Package{}
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		if p.Types != nil {
			byPath[p.PkgPath] = p.Types
		}
	})
	byPath[rtPath] = byPath["github.com/precog-dev/precog/pipeline/instrument/rt"]
	imp := importerFunc(func(path string) (*types.Package, error) {
		if p := byPath[path]; p != nil {
			return p, nil
		}
		return nil, os.ErrNotExist
	})
	var nfiles, nsites, nbad int
	skipped := map[string]int{}
	for _, p := range pkgs {
		if p.PkgPath == shimPath || strings.HasSuffix(p.PkgPath, "/rt") || len(p.Syntax) == 0 {
			continue
		}
		if len(p.Errors) > 0 {
			t.Logf("%s: %v", p.PkgPath, p.Errors)
			continue
		}
		fset := token.NewFileSet()
		var files []*ast.File
		for _, f := range p.Syntax {
			name := p.Fset.File(f.Pos()).Name()
			src, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			r, out, err := rewrite(p.Fset, f, src, p.Types, p.TypesInfo, FileOptions{FirstSite: 1, Funcs: true})
			if err != nil {
				t.Errorf("%s: %v", name, err)
				nbad++
				continue
			}
			if r == nil {
				out = src
			} else {
				nsites += len(r.sites)
				for k, n := range r.skipped {
					skipped[k] += n
				}
			}
			if strings.Count(string(out), "\n") != strings.Count(string(src), "\n") {
				t.Errorf("%s: line count changed", name)
			}
			of, err := parser.ParseFile(fset, name, out, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, of)
			nfiles++
		}
		conf := types.Config{Importer: imp, GoVersion: "go1.26", Error: func(err error) {
			if nbad < 40 {
				t.Errorf("%s: %v", p.PkgPath, err)
			}
			nbad++
		}}
		conf.Check(p.PkgPath, fset, files, nil)
	}
	var ks []string
	for k, n := range skipped {
		ks = append(ks, k+": "+itoa(n))
	}
	sort.Strings(ks)
	t.Logf("%d packages, %d files, %d sites, %d errors; skipped: %s", len(pkgs)-2, nfiles, nsites, nbad, strings.Join(ks, "; "))
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}
