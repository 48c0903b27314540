// Package walkcb: a callback given to a library function that calls it
// before returning (fs.WalkDir, as filepath.Walk and WalkDir) runs with
// the locks held at the call.
package walkcb

import (
	"io/fs"
	"sync"
)

func mark() {}

type W struct {
	mu sync.Mutex
}

func (w *W) Add(fsys fs.FS) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	add := func(p string) {
		mark() // want `held: W.mu\(w\)`
	}
	return fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		mark() // want `held: W.mu\(w\)`
		add(p)
		return nil
	})
}
