package record

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// MarkerFile marks a directory as precog's output: precog writes into, and
// empties, only directories that are new, empty or marked, so that a typo
// in -o cannot overwrite or delete a user's files (a user's own index.json
// included).
const MarkerFile = "precog-output"

// OutVersion is the version of the output directory's layout, which the
// marker names.
const OutVersion = 1

// markerPrefix starts the marker's one line, then the version.
const markerPrefix = "precog output directory, layout "

// CheckOut reports, without changing anything, whether precog may write
// its output into dir: a directory that does not exist yet, an empty one,
// or one marked by precog with a layout it knows. Commands call it before
// any work, so that a wrong -o fails at once.
func CheckOut(dir string) error {
	_, err := checkOut(dir)
	return err
}

// checkOut is CheckOut, also saying whether dir holds an earlier output.
func checkOut(dir string) (marked bool, err error) {
	fi, err := os.Stat(dir)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("output directory: %w", err)
	}
	if !fi.IsDir() {
		return false, fmt.Errorf("output directory %s is a file; choose a new or empty directory", dir)
	}
	f, err := os.Open(dir)
	if err != nil {
		return false, fmt.Errorf("output directory: %w", err)
	}
	names, err := f.Readdirnames(1)
	f.Close()
	if len(names) == 0 {
		return false, nil // empty (or unreadable: writing will say)
	}
	data, err := os.ReadFile(filepath.Join(dir, MarkerFile))
	if err != nil {
		return false, fmt.Errorf("output directory %s is not empty and was not written by precog (it has no %s file); choose a new or empty directory", dir, MarkerFile)
	}
	v, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(string(data), markerPrefix)))
	if !strings.HasPrefix(string(data), markerPrefix) || err != nil {
		return false, fmt.Errorf("output directory %s: %s does not read as precog's marker; choose a new or empty directory", dir, MarkerFile)
	}
	if v != OutVersion {
		return false, fmt.Errorf("output directory %s holds output of layout %d, this precog writes layout %d; choose a new or empty directory, or remove it", dir, v, OutVersion)
	}
	return true, nil
}

// PrepareOut makes the output directory, or empties one that an earlier
// run marked as its output (CheckOut), removing exactly the files its
// index lists, and marks it. It refuses any other directory.
func PrepareOut(out string) error {
	marked, err := checkOut(out)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o777); err != nil {
		return err
	}
	marker := filepath.Join(out, MarkerFile)
	if !marked {
		// The marker comes first: a run killed after it leaves a
		// directory that the next run may empty.
		return os.WriteFile(marker, []byte(markerPrefix+strconv.Itoa(OutVersion)+"\n"), 0o666)
	}
	old, err := readAnyIndex(out)
	if errors.Is(err, os.ErrNotExist) {
		return nil // killed before it wrote the index, or a parent of outputs
	}
	if err != nil {
		return fmt.Errorf("output directory %s: %w", out, err)
	}
	// Remove exactly what the earlier run listed.
	for _, p := range old.Packages {
		for _, t := range p.Tests {
			files := []string{t.Trace, t.Log}
			for _, r := range t.Runs {
				files = append(files, r.Trace, r.Log, r.Plan)
			}
			for _, f := range files {
				if f != "" && filepath.IsLocal(f) {
					os.Remove(filepath.Join(out, f))
				}
			}
		}
		removeEmptyDirs(out, filepath.Join(out, filepath.FromSlash(p.ImportPath)))
	}
	os.Remove(filepath.Join(out, PerturbDir))
	os.Remove(filepath.Join(out, SitesFile))
	return os.Remove(filepath.Join(out, IndexFile))
}

// removeEmptyDirs removes dir and its parents up to, not including, root,
// while they are empty.
func removeEmptyDirs(root, dir string) {
	for dir != root && strings.HasPrefix(dir, root+string(filepath.Separator)) {
		if os.Remove(dir) != nil {
			return
		}
		dir = filepath.Dir(dir)
	}
}
