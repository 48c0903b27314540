package rewrite

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/go/packages"
)

// TestRewriteCorpus rewrites every file of real packages, tests included,
// and type-checks the rewritten packages. It is slow, so it runs only when
// PRECOG_REWRITE_CORPUS is set: "1" for a part of the standard library and
// golang.org/x/tools, or a comma-separated list of patterns, loaded in the
// directory PRECOG_REWRITE_CORPUS_DIR (default: this package's), for
// example the bench/corpus module's dependencies.
func TestRewriteCorpus(t *testing.T) {
	env := os.Getenv("PRECOG_REWRITE_CORPUS")
	if env == "" {
		t.Skip("set PRECOG_REWRITE_CORPUS=1 (or a list of patterns)")
	}
	patterns := []string{"encoding/json", "context", "os/exec", "io", "database/sql",
		"net/rpc", "log/slog", "expvar", "go/types", "text/template", "compress/flate", "runtime/pprof",
		"golang.org/x/sync/errgroup", "golang.org/x/tools/go/packages", "golang.org/x/tools/go/ssa",
		"golang.org/x/tools/go/analysis/checker", "golang.org/x/tools/internal/gocommand"}
	if env != "1" {
		patterns = strings.Split(env, ",")
	}
	// The shim's and rt's imports, so that they type-check in the same
	// universe as the corpus.
	shimDirs := map[string]string{
		shimPath:            filepath.Join(repoDir(), "shim"),
		shimPath + "/trace": filepath.Join(repoDir(), "shim", "trace"),
		shimPath + "/plan":  filepath.Join(repoDir(), "shim", "plan"),
		rtPath:              filepath.Join(repoDir(), "shim", "rt"),
	}
	shimFiles := map[string][]*ast.File{}
	fset := token.NewFileSet()
	extra := map[string]bool{}
	for path, dir := range shimDirs {
		names, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, n := range names {
			if ok, _ := build.Default.MatchFile(dir, filepath.Base(n)); !ok || strings.HasSuffix(n, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, n, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			shimFiles[path] = append(shimFiles[path], f)
			for _, im := range f.Imports {
				p, _ := strconv.Unquote(im.Path.Value)
				if shimDirs[p] == "" {
					extra[p] = true
				}
			}
		}
	}
	for p := range extra {
		patterns = append(patterns, p)
	}
	cfg := &packages.Config{
		Dir:   os.Getenv("PRECOG_REWRITE_CORPUS_DIR"),
		Mode:  packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo | packages.NeedImports | packages.NeedDeps,
		Tests: true,
		Fset:  fset,
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		t.Fatal(err)
	}
	std := map[string]*types.Package{}
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		if p.Types != nil && !strings.Contains(p.ID, " ") && !strings.HasSuffix(p.ID, ".test") {
			std[p.PkgPath] = p.Types
		}
	})
	var checkShim func(path string) (*types.Package, error)
	checkShim = func(path string) (*types.Package, error) {
		if p := std[path]; p != nil {
			return p, nil
		}
		if shimFiles[path] == nil {
			return nil, fmt.Errorf("no package %s", path)
		}
		conf := types.Config{Importer: importerFunc(checkShim)}
		p, err := conf.Check(path, fset, shimFiles[path], nil)
		if err != nil {
			return nil, err
		}
		std[path] = p
		return p, nil
	}
	if _, err := checkShim(rtPath); err != nil {
		t.Fatal(err)
	}
	if _, err := checkShim(shimPath); err != nil {
		t.Fatal(err)
	}
	var npkgs, nfiles, nsites, nbad, nbytes int
	var spent time.Duration
	skipped := map[string]int{}
	for _, p := range pkgs {
		if extra[strings.TrimSuffix(p.PkgPath, "_test")] || len(p.Syntax) == 0 || strings.HasSuffix(p.ID, ".test") {
			continue
		}
		if len(p.Errors) > 0 {
			t.Logf("%s: %v", p.ID, p.Errors)
			continue
		}
		npkgs++
		// As the instrumenter rewrites them: calls within the package
		// pass the caller's Local (Options.PassLocal).
		passLocal := LocalCallees(p.Types, p.TypesInfo, p.Syntax, func(*ast.File) bool { return true })
		var files []*ast.File
		for _, f := range p.Syntax {
			name := p.Fset.File(f.Pos()).Name()
			src, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			r, out, err := rewriteFile(p.Fset, f, src, p.Types, p.TypesInfo, Options{FirstSite: 1, Funcs: true, PassLocal: passLocal})
			spent += time.Since(start)
			nbytes += len(src)
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
		imp := importerFunc(func(path string) (*types.Package, error) {
			if ip := p.Imports[path]; ip != nil && ip.Types != nil {
				return ip.Types, nil
			}
			return checkShim(path)
		})
		conf := types.Config{Importer: imp, GoVersion: p.Types.GoVersion(), Error: func(err error) {
			if nbad < 40 {
				t.Errorf("%s: %v", p.ID, err)
			}
			nbad++
		}}
		conf.Check(p.PkgPath, fset, files, nil)
	}
	var ks []string
	for k, n := range skipped {
		ks = append(ks, k+": "+strconv.Itoa(n))
	}
	sort.Strings(ks)
	t.Logf("%d packages, %d files (%d bytes), %d sites, %d errors, rewriting took %v; skipped: %s",
		npkgs, nfiles, nbytes, nsites, nbad, spent.Round(time.Millisecond), strings.Join(ks, "; "))
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }
