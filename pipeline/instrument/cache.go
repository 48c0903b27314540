package instrument

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"go/version"

	"github.com/precog-dev/precog"

	"github.com/precog-dev/precog/internal/atomicfile"
)

// A cache is the content-addressed directory that holds everything precog
// builds with. Every file in it is named after its content (or, for module
// copies, after the module version, which fixes the content), so a file
// that exists is complete and right, and writers never overwrite one.
type cache struct {
	dir string
}

// CacheDir returns the absolute path of the cache directory dir names:
// precog in the user cache directory if dir is empty.
func CacheDir(dir string) (string, error) {
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("finding the cache directory: %w", err)
		}
		dir = filepath.Join(base, "precog")
	}
	return filepath.Abs(dir)
}

func openCache(dir string) (*cache, error) {
	dir, err := CacheDir(dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, fmt.Errorf("creating the cache: %w", err)
	}
	return &cache{dir: dir}, nil
}

// hashOf returns the hex SHA-256 of the parts, each prefixed by its length
// so that different splits cannot collide.
func hashOf(parts ...[]byte) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d\n", len(p))
		h.Write(p)
	}
	return hex.EncodeToString(h.Sum(nil))[:40]
}

// putFile stores the rewritten text of a file named name and returns its
// path: files/<hh>/<hash>/<name>. The name is kept so that the go command
// and the compiler see the file suffixes they expect.
func (c *cache) putFile(name string, data []byte) (string, error) {
	h := hashOf([]byte(name), data)
	p := filepath.Join(c.dir, "files", h[:2], h, name)
	return p, writeOnce(p, data)
}

// putNamed stores data as kind/<hash>/name.
func (c *cache) putNamed(kind, name string, data []byte) (string, error) {
	p := filepath.Join(c.dir, kind, hashOf(data), name)
	return p, writeOnce(p, data)
}

// putJSON stores data as kind/<hash>.json.
func (c *cache) putJSON(kind string, data []byte) (string, error) {
	p := filepath.Join(c.dir, kind, hashOf(data)+".json")
	return p, writeOnce(p, data)
}

// writeOnce writes data to path unless the file exists, through a temporary
// file renamed into place, so that a reader sees the whole file or none.
func writeOnce(path string, data []byte) error {
	if _, err := os.Stat(path); err == nil {
		touch(path)
		return nil
	}
	return writeAtomic(path, data)
}

// writeAtomic writes data to path through a temporary file renamed into
// place, replacing any file there.
func writeAtomic(path string, data []byte) error {
	if err := atomicfile.Write(path, data, 0o444); err != nil {
		return fmt.Errorf("writing the cache: %w", err)
	}
	return nil
}

// A tree is a set of files to write as one directory, by slash-separated
// relative path.
type tree map[string][]byte

// hash returns the content hash of the tree.
func (t tree) hash() string {
	names := make([]string, 0, len(t))
	for n := range t {
		names = append(names, n)
	}
	slices.Sort(names)
	var parts [][]byte
	for _, n := range names {
		parts = append(parts, []byte(n), t[n])
	}
	return hashOf(parts...)
}

// putTree writes t as the directory dir unless it exists: into a temporary
// directory next to it, renamed into place, so that a directory that exists
// is complete.
func putTree(dir string, t tree) error {
	if _, err := os.Stat(dir); err == nil {
		touch(dir)
		return nil
	}
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o777); err != nil {
		return fmt.Errorf("writing the cache: %w", err)
	}
	tmp, err := os.MkdirTemp(parent, ".tmp-*")
	if err != nil {
		return fmt.Errorf("writing the cache: %w", err)
	}
	for name, data := range t {
		p := filepath.Join(tmp, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
			os.RemoveAll(tmp)
			return fmt.Errorf("writing the cache: %w", err)
		}
		if err := os.WriteFile(p, data, 0o444); err != nil {
			os.RemoveAll(tmp)
			return fmt.Errorf("writing the cache: %w", err)
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		os.RemoveAll(tmp)
		if _, serr := os.Stat(dir); serr == nil {
			return nil // another precog wrote it first
		}
		return fmt.Errorf("writing the cache: %w", err)
	}
	return nil
}

// shimGo is the language version the shim is written for.
const shimGo = "1.22"

// shimTree returns the files of the shim module: precog.ShimSource without
// its tests. Its go.mod says
// go 1.22, or the main module's go version when that is older: the go
// command refuses a main module whose go line is older than a dependency's
// (and raising the main module's would change its semantics, such as the
// per-iteration loop variables of go1.22). Then every file of the shim gets
// a go1.22 build constraint, which raises the language version of that file
// alone.
func shimTree(mainGo string) (tree, error) {
	goLine := shimGo
	if older(mainGo, shimGo) {
		goLine = mainGo
	}
	t := tree{"go.mod": []byte("module " + shimModule + "\n\ngo " + goLine + "\n")}
	if err := addFS(t, "", shimFS()); err != nil {
		return nil, fmt.Errorf("reading the embedded shim: %w", err)
	}
	if goLine != shimGo {
		for name, data := range t {
			if strings.HasSuffix(name, ".go") {
				t[name] = withGoVersion(data, "go"+shimGo)
			}
		}
	}
	return t, nil
}

// withGoVersion adds the release tag v to the //go:build line of a Go file,
// or adds such a line.
func withGoVersion(src []byte, v string) []byte {
	lines := strings.SplitAfter(string(src), "\n")
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if expr, ok := strings.CutPrefix(t, "//go:build "); ok {
			lines[i] = "//go:build (" + expr + ") && " + v + "\n"
			return []byte(strings.Join(lines, ""))
		}
		if strings.HasPrefix(t, "package ") {
			break
		}
	}
	return append([]byte("//go:build "+v+"\n\n"), src...)
}

// older reports whether the go version a is older than b; versions are
// as go.mod writes them, such as "1.21", "1.21.3" or "1.21rc1".
func older(a, b string) bool {
	return version.Compare("go"+a, "go"+b) < 0
}

func addFS(t tree, prefix string, fsys fs.FS) error {
	return fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, "_test.go") {
			return err
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		t[path.Join(prefix, p)] = data
		return nil
	})
}

// putShim writes the shim module and returns its directory,
// shim/<hash>.
func (c *cache) putShim(mainGo string) (string, error) {
	t, err := shimTree(mainGo)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(c.dir, "shim", t.hash())
	return dir, putTree(dir, t)
}

// shimFS returns the shim module's files, rooted at the module's directory.
func shimFS() fs.FS {
	sub, err := fs.Sub(precog.ShimSource, "shim")
	if err != nil {
		panic(err) // "shim" is a valid path
	}
	return sub
}
