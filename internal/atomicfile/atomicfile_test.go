package atomicfile

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestWrite: the file has the data and the permissions, its directory is
// made, and no temporary file is left.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "f")
	if err := Write(path, []byte("one"), 0o444); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, []byte("two"), 0o644); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil || string(data) != "two" {
		t.Fatalf("read %q, %v; want \"two\"", data, err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, %v; want -rw-r--r--", fi.Mode(), err)
	}
	if ents, _ := os.ReadDir(filepath.Dir(path)); len(ents) != 1 {
		t.Errorf("directory holds %d entries, want the file alone", len(ents))
	}
}

// TestWriteAtomic: readers of a file that is written again and again see
// one whole version or another, never a part (os.WriteFile truncates
// first and fails this).
func TestWriteAtomic(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	a, b := bytes.Repeat([]byte("a"), 1<<20), bytes.Repeat([]byte("b"), 1<<20)
	if err := Write(path, a, 0o644); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	done := make(chan struct{})
	wg.Go(func() {
		defer close(done)
		for i := range 20 {
			if err := Write(path, [][]byte{a, b}[i%2], 0o644); err != nil {
				t.Error(err)
				return
			}
		}
	})
	for range 2 {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				data, err := os.ReadFile(path)
				if err != nil {
					t.Error(err)
					return
				}
				if !bytes.Equal(data, a) && !bytes.Equal(data, b) {
					t.Errorf("read %d bytes that are neither version", len(data))
					return
				}
			}
		})
	}
	wg.Wait()
}
