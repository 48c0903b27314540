// Package atomicfile writes a file so that a reader sees either its old
// content or its new content, never a part: the data goes to a temporary
// file in the same directory, which is then renamed over the file.
//
// precog's cache and output directories are shared by concurrent precog
// runs (two nightly jobs, go test's packages sharing one test cache), and
// a run that reads a file another run is writing must not see half of it.
package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
)

// Write writes data to the file path with permissions perm, creating its
// directory if needed. On error nothing is left behind but the
// directory.
func Write(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	err = errors.Join(werr, tmp.Close())
	if err == nil {
		err = os.Chmod(tmp.Name(), perm)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}
