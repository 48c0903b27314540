package instrument

import (
	"errors"
	"fmt"
	"go/build"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/tools/go/packages"
)

// A depsPattern selects the dependency packages to instrument
// (-instrument-deps): a comma-separated list of import paths, each possibly
// ending in "/..." to match the packages below it too.
type depsPattern []string

// A PatternError is an -instrument-deps pattern that precog cannot take:
// an error in the command line, which the commands report as a usage
// error (exit status 2), found when the pattern is parsed or, for an
// element that matches no package of the build, once the packages are
// loaded.
type PatternError struct{ msg string }

func (e *PatternError) Error() string { return e.msg }

func patternErrorf(format string, args ...any) *PatternError {
	return &PatternError{fmt.Sprintf(format, args...)}
}

func parseDepsPattern(s string) (depsPattern, error) {
	var d depsPattern
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if strings.Contains(strings.TrimSuffix(p, "/..."), "...") || strings.HasPrefix(p, ".") || filepath.IsAbs(p) {
			return nil, patternErrorf("-instrument-deps pattern %q: want import paths, each optionally ending in /...", p)
		}
		if inStd(strings.TrimSuffix(p, "/...")) {
			return nil, patternErrorf("-instrument-deps pattern %q: the standard library is never instrumented (its goroutines, channels and locks are modelled where precog knows them: net/http's handlers, os/exec's copies, context's cancels)", p)
		}
		d = append(d, p)
	}
	return d, nil
}

// unmatched returns an error naming the first element of d that matches
// no package of pkgs and their imports (the build of the packages under
// test), which would instrument nothing: a guess at the dependency that
// started a goroutine (github.com/elazarl/goproxy, where the build has
// the fork github.com/stripe/goproxy) must not pass silently. It suggests
// the build's dependency modules whose path's last element is one of the
// element's path elements after the first (the host): a fork, the same
// module under another host, or the module of a package path mistyped
// below its root.
func (d depsPattern) unmatched(pkgs []*packages.Package) error {
	matched := make([]bool, len(d))
	mods := make(map[string]bool)
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for i, e := range d {
			matched[i] = matched[i] || depsPattern{e}.match(p.PkgPath)
		}
		if p.Module != nil && !p.Module.Main {
			mods[p.Module.Path] = true
		}
	})
	for i, e := range d {
		if matched[i] {
			continue
		}
		msg := fmt.Sprintf("-instrument-deps pattern %q matches no package that the packages under test build with", e)
		elems := strings.Split(strings.TrimSuffix(e, "/..."), "/")[1:]
		var near []string
		for m := range mods {
			if slices.Contains(elems, path.Base(m)) {
				near = append(near, m+"/...")
			}
		}
		if len(near) > 0 {
			slices.Sort(near)
			msg += fmt.Sprintf(" (did you mean %s?)", strings.Join(near, " or "))
		}
		return &PatternError{msg}
	}
	return nil
}

// inStd reports whether path is a package (or a directory of packages)
// of the standard library.
func inStd(path string) bool {
	if path == "all" || path == "std" || path == "cmd" {
		return path == "std"
	}
	p, err := build.Default.Import(path, "", build.FindOnly)
	return err == nil && p.Goroot
}

// match reports whether the import path matches the pattern.
func (d depsPattern) match(path string) bool {
	for _, p := range d {
		if p == "all" {
			return true
		}
		if base, ok := strings.CutSuffix(p, "/..."); ok {
			if path == base || strings.HasPrefix(path, base+"/") {
				return true
			}
			continue
		}
		if path == p {
			return true
		}
	}
	return false
}

// A depCopy is a dependency module copied out of the module cache, where
// overlays may not name files, into deps/<module>@<version> in the cache.
// The overlaid go.mod replaces the module by the copy, and the overlay maps
// the copy's files to their rewritten versions. A module whose files are
// not in the module cache (replaced by a local directory) needs no copy:
// its dir is empty and its files are overlaid where they are.
type depCopy struct {
	src string // the module's directory
	dir string // the copy, or "" when none is needed
}

// path returns where the file orig of the module is in the copy.
func (d *depCopy) path(orig string) string {
	if d.dir == "" {
		return orig
	}
	rel, err := filepath.Rel(d.src, orig)
	if err != nil || strings.HasPrefix(rel, "..") {
		return orig
	}
	return filepath.Join(d.dir, rel)
}

// copyModule copies the module m, required as path, into the cache unless
// it is there already. A copy replaces its module by directory, and the go
// command then wants the copy's go.mod to declare the required path: so a
// module replaced by another module path gets a copy of its own whose
// go.mod says path.
//
// The copy's go.mod declares at least go version goFloor (see fixGoMod),
// which callers make no newer than the main module's: the go command
// refuses a main module older than a dependency.
func (c *cache) copyModule(path string, m *packages.Module, modCache, goFloor string) (*depCopy, error) {
	if m.Dir == "" {
		return nil, fmt.Errorf("module %s: no directory (is it downloaded?)", m.Path)
	}
	dc := &depCopy{src: m.Dir}
	if modCache == "" || !within(m.Dir, modCache) {
		return dc, nil
	}
	esc, err := module.EscapePath(m.Path)
	if err != nil {
		return nil, fmt.Errorf("module %s: %w", m.Path, err)
	}
	ver, err := module.EscapeVersion(m.Version)
	if err != nil {
		return nil, fmt.Errorf("module %s: %w", m.Path, err)
	}
	name := filepath.FromSlash(esc) + "@" + ver
	if path != m.Path {
		name += "-as-" + hashOf([]byte(path))[:12]
	}
	if goFloor != copyGo {
		name += "-go" + goFloor
	}
	dc.dir = filepath.Join(c.dir, "deps", name)
	if _, err := os.Stat(dc.dir); err == nil {
		touch(dc.dir)
		return dc, nil
	}
	if err := copyDir(m.Dir, dc.dir, path, goFloor); err != nil {
		return nil, fmt.Errorf("copying module %s@%s: %w", m.Path, m.Version, err)
	}
	return dc, nil
}

// copyDir copies the tree src to dst through a temporary directory renamed
// into place, and fixes its go.mod (see fixGoMod).
func copyDir(src, dst, modPath, goFloor string) error {
	parent := filepath.Dir(dst)
	if err := os.MkdirAll(parent, 0o777); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, ".tmp-*")
	if err != nil {
		return err
	}
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(tmp, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case d.Type().IsRegular():
			return copyFile(p, target)
		}
		return nil // symlinks and the like are not in module zips
	})
	if err == nil {
		err = fixGoMod(filepath.Join(tmp, "go.mod"), modPath, goFloor)
	}
	if err == nil {
		err = os.Rename(tmp, dst)
		if err != nil {
			if _, serr := os.Stat(dst); serr == nil {
				err = nil // another precog copied it first
			}
		}
	}
	if err != nil {
		os.RemoveAll(tmp)
	}
	return err
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o444)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// within reports whether path is dir or below it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// copyGo is the go version a dependency copy declares at least, when the
// main module's allows: rewritten files call the shim's generic functions,
// which need go1.18, and with interface-keyed maps go1.20 (comparable
// satisfied by interfaces). No language change between a module's older
// version and go1.21 alters what its code means (the loop variable change
// came with go1.22).
const copyGo = "1.21"

// copyFloor returns the go version copies declare at least for a main
// module at go version mainGo.
func copyFloor(mainGo string) string {
	if older(mainGo, copyGo) {
		return mainGo
	}
	return copyGo
}

// fixGoMod makes the go.mod file at path declare the module modPath
// (creating the file if there is none) and a go version of at least
// goFloor.
func fixGoMod(path, modPath, goFloor string) error {
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	f, err := modfile.ParseLax(path, data, nil)
	if err != nil {
		return err
	}
	changed := false
	if f.Module == nil || f.Module.Mod.Path != modPath {
		if err := f.AddModuleStmt(modPath); err != nil {
			return err
		}
		changed = true
	}
	if f.Go == nil || older(f.Go.Version, goFloor) {
		if err := f.AddGoStmt(goFloor); err != nil {
			return err
		}
		changed = true
	}
	if !changed {
		return nil
	}
	out, err := f.Format()
	if err != nil {
		return err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return os.WriteFile(path, out, 0o444)
}
