package instrument

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// The cache grows with every edit of the code under test, so entries that
// no run has used for trimAge are removed, at most once per trimInterval,
// as the go command trims its build cache. Runs mark what they use by
// setting its modification time (touch); a run never uses an entry older
// than trimAge without touching it first, so trimming cannot take a file
// from under a run that has already looked for it, except one that was
// idle for days.
const (
	trimInterval = 24 * time.Hour
	trimAge      = 5 * 24 * time.Hour
)

// touch marks the paths as used now.
func touch(paths ...string) {
	now := time.Now()
	for _, p := range paths {
		os.Chtimes(p, now, now) // best effort: a failure only makes trimming earlier
	}
}

// TrimCache trims precog's cache directory dir as a run of Instrument
// does on its way out: for commands that write into the cache without
// instrumenting (precog vet's fact cache). Failures are ignored.
func TrimCache(dir string) {
	if c, err := openCache(dir); err == nil {
		c.trim(time.Now())
	}
}

// trim removes the entries unused for trimAge, unless a trim ran within
// trimInterval. Failures are ignored: trimming only saves space.
func (c *cache) trim(now time.Time) {
	stamp := filepath.Join(c.dir, "trim.txt")
	if fi, err := os.Stat(stamp); err == nil && now.Sub(fi.ModTime()) < trimInterval {
		return
	}
	if writeAtomic(stamp, []byte(now.UTC().Format(time.RFC3339)+"\n")) != nil {
		return
	}
	cutoff := now.Add(-trimAge)
	// Entries that are files (files/ and mod/ hold one file per
	// directory, removed with it when empty).
	for _, kind := range []string{"files", "mod", "overlay", "sites", "plans", "results", "facts"} {
		root := filepath.Join(c.dir, kind)
		var dirs []string
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() {
				if p != root {
					dirs = append(dirs, p)
				}
				return nil
			}
			if fi, err := d.Info(); err == nil && fi.ModTime().Before(cutoff) {
				os.Remove(p)
			}
			return nil
		})
		slices.Reverse(dirs) // children first
		for _, d := range dirs {
			os.Remove(d) // only if empty
		}
	}
	// Entries that are directories: shim/<hash>, deps/<module>@<version>
	// and link/<key> (record's link cache of test binaries), and temporary
	// directories a crashed run left.
	for _, kind := range []string{"shim", "deps", "link"} {
		filepath.WalkDir(filepath.Join(c.dir, kind), func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() || p == filepath.Join(c.dir, kind) {
				return nil
			}
			name := d.Name()
			entry := kind != "deps" || strings.Contains(name, "@") || strings.HasPrefix(name, ".tmp-")
			if !entry {
				return nil // a directory of a module path, such as deps/golang.org
			}
			if fi, err := d.Info(); err == nil && fi.ModTime().Before(cutoff) {
				os.RemoveAll(p)
			}
			return filepath.SkipDir
		})
	}
}
