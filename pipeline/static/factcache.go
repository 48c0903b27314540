package static

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"flag"
	"fmt"
	"go/types"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/gcexportdata"
	"golang.org/x/tools/go/types/objectpath"

	"github.com/precog-dev/precog/internal/atomicfile"
	"github.com/precog-dev/precog/internal/exehash"
)

// A factCache keeps, for a package of the import graph that is analysed
// only for its facts (not a root, not kept), what its importers need of it:
// its types, as export data, and the facts its fact analyzers left for
// them (factSet). A later analysis of a program with the same package then
// reads that instead of parsing, type-checking and analysing it: the
// standard library behind a test package is about 125 packages, 3 s of
// processor time for every precog vet and every instrumentation of a small
// module, and a large module's dependencies are most of its analysis.
//
// An entry is named by a hash of everything its content follows from
// (key): the precog executable (the analyzers' code), the analyzers run on
// the package and their flags, the package's identity, Go version and
// sizes, the content of each of its compiled files, and the keys of its
// imports. A package whose files, or any dependency's files, changed gets
// a new key; nothing is invalidated in place. Only a package that type-
// checked without errors and whose analyses all succeeded is stored, so a
// hit stands for a clean analysis.
//
// What a hit does not give: the dependency's syntax, types.Info and
// analysis results (its importers never see them: a fact is the only way
// from one package's analysis to another's, as under go vet), and exact
// columns in the positions of its objects (export data keeps lines).
type factCache struct {
	dir  string // the facts directory in precog's cache
	self string // hash of the running executable
}

// factCacheVersion changes when the entries' format does.
const factCacheVersion = "precog facts 1"

// newFactCache returns the fact cache in precog's cache directory dir, or
// nil if the executable cannot be hashed (the cache is then off: it only
// saves time).
func newFactCache(dir string, analyzers []*analysis.Analyzer) *factCache {
	self, err := exehash.Sum()
	if err != nil {
		return nil
	}
	for _, a := range analyzers {
		for _, f := range a.FactTypes {
			gob.Register(f)
		}
	}
	return &factCache{dir: filepath.Join(dir, "facts"), self: self}
}

// cacheable reports whether u may be read from or written to the cache:
// a package analysed only for its importers' sake, which go list found no
// error in.
func (o *ordered) cacheable(u *unit) bool {
	return !u.root && !o.kept(u) && len(u.pkg.Errors) == 0 && u.pkg.PkgPath != "unsafe"
}

// key computes u's key, from its imports' keys: "" if u cannot have one
// (an import has none, a file cannot be read).
func (c *factCache) key(o *ordered, u *unit) string {
	h := sha256.New()
	p := u.pkg
	fmt.Fprintf(h, "%s\n%s\n%s\n%s\n%s\n", factCacheVersion, c.self, p.ID, p.PkgPath, p.Name)
	if p.Module != nil {
		fmt.Fprintf(h, "go %s\n", p.Module.GoVersion)
	}
	fmt.Fprintf(h, "sizes %#v\n", p.TypesSizes)
	for _, a := range o.analyzers {
		if !u.run[a] {
			continue
		}
		fmt.Fprintf(h, "analyzer %s\n", a.Name)
		a.Flags.VisitAll(func(f *flag.Flag) { fmt.Fprintf(h, "\t-%s=%s\n", f.Name, f.Value) })
	}
	for _, name := range p.CompiledGoFiles {
		f, err := os.Open(name)
		if err != nil {
			return ""
		}
		fh := sha256.New()
		_, err = io.Copy(fh, f)
		f.Close()
		if err != nil {
			return ""
		}
		fmt.Fprintf(h, "file %s %x\n", name, fh.Sum(nil))
	}
	for _, imp := range u.imports {
		if imp.key == "" {
			return ""
		}
		fmt.Fprintf(h, "import %s %s\n", imp.pkg.ID, imp.key)
	}
	return hex.EncodeToString(h.Sum(nil))[:40]
}

func (c *factCache) path(key string) string {
	return filepath.Join(c.dir, key[:2], key)
}

// An entry is what the cache holds of one package.
type entry struct {
	Export []byte                 // gcexportdata.Write of the package's types
	Facts  map[string][]entryFact // by analyzer name: its factSet
}

// An entryFact is an objectFact or, with Package set, a packageFact.
type entryFact struct {
	Package bool
	Pkg     string
	Path    string
	Reach   uint8
	Fact    analysis.Fact
}

// load reads u's entry, if the cache has one: u's types, read against its
// imports' types, and its fact sets; and gives u the actions its
// importers' actions depend on, which succeeded and have no result.
func (c *factCache) load(o *ordered, u *unit) bool {
	if u.key == "" || slices.ContainsFunc(u.imports, func(imp *unit) bool { return imp.pkg.IllTyped }) {
		return false // check marks it ill-typed in turn
	}
	path := c.path(u.key)
	data, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	var e entry
	if gob.NewDecoder(bytes.NewReader(data)).Decode(&e) != nil {
		return false
	}
	imports := make(map[string]*types.Package)
	for _, imp := range u.imports {
		for path, pkg := range dependencies(imp.pkg.Types) {
			imports[path] = pkg
		}
	}
	pkg, err := gcexportdata.Read(bytes.NewReader(e.Export), o.fset, imports, u.pkg.PkgPath)
	if err != nil {
		return false
	}
	facts := make(map[*analysis.Analyzer]*factSet)
	for _, a := range o.analyzers {
		if !u.run[a] || len(a.FactTypes) == 0 {
			continue
		}
		stored, ok := e.Facts[a.Name]
		if !ok {
			return false
		}
		fs := new(factSet)
		for _, f := range stored {
			typ := reflect.TypeOf(f.Fact)
			if f.Package {
				fs.packages = append(fs.packages, &packageFact{pkg: f.Pkg, typ: typ, fact: f.Fact})
			} else {
				fs.objects = append(fs.objects, &objectFact{pkg: f.Pkg, path: objectpath.Path(f.Path), typ: typ, reach: reach(f.Reach), fact: f.Fact})
			}
		}
		facts[a] = fs
	}
	u.pkg.Types, u.pkg.Fset, u.pkg.Syntax = pkg, o.fset, nil
	u.facts = facts
	for _, a := range o.analyzers {
		if u.run[a] {
			u.actions[a] = &checker.Action{Analyzer: a, Package: u.pkg}
		}
	}
	now := time.Now()
	os.Chtimes(path, now, now) // marks it used, for trimming; best effort
	return true
}

// store writes u's entry, if its analysis was clean: every action ran
// without error.
func (c *factCache) store(o *ordered, u *unit) {
	if u.key == "" || u.pkg.IllTyped {
		return
	}
	e := entry{Facts: make(map[string][]entryFact)}
	for _, a := range o.analyzers {
		if !u.run[a] {
			continue
		}
		if act := u.actions[a]; act == nil || act.Err != nil {
			return
		}
		if len(a.FactTypes) == 0 {
			continue
		}
		fs := u.facts[a]
		if fs == nil {
			return
		}
		stored := make([]entryFact, 0, len(fs.objects)+len(fs.packages))
		for _, f := range fs.objects {
			stored = append(stored, entryFact{Pkg: f.pkg, Path: string(f.path), Reach: uint8(f.reach), Fact: f.fact})
		}
		for _, f := range fs.packages {
			stored = append(stored, entryFact{Package: true, Pkg: f.pkg, Fact: f.fact})
		}
		// The fact sets come from maps: sort, so that one analysis
		// always writes the same bytes.
		slices.SortFunc(stored, cmpEntryFact)
		e.Facts[a.Name] = stored
	}
	var exp bytes.Buffer
	if gcexportdata.Write(&exp, o.fset, u.pkg.Types) != nil {
		return
	}
	e.Export = exp.Bytes()
	var buf bytes.Buffer
	if gob.NewEncoder(&buf).Encode(&e) != nil {
		return
	}
	path := c.path(u.key)
	if os.MkdirAll(filepath.Dir(path), 0o777) != nil {
		return
	}
	atomicfile.Write(path, buf.Bytes(), 0o666) // best effort: a failure only costs the next run time
}

func cmpEntryFact(x, y entryFact) int {
	if x.Package != y.Package {
		if x.Package {
			return 1
		}
		return -1
	}
	return cmp.Or(strings.Compare(x.Pkg, y.Pkg), strings.Compare(x.Path, y.Path),
		strings.Compare(reflect.TypeOf(x.Fact).String(), reflect.TypeOf(y.Fact).String()))
}
