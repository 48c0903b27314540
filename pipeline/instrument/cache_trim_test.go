package instrument

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestTrim checks that trimming removes the entries unused for trimAge,
// keeps the others, and runs at most once per trimInterval.
func TestTrim(t *testing.T) {
	c, err := openCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	oldFile, err := c.putFile("a.go", []byte("package a\n"))
	if err != nil {
		t.Fatal(err)
	}
	newFile, err := c.putFile("b.go", []byte("package b\n"))
	if err != nil {
		t.Fatal(err)
	}
	oldJSON, err := c.putJSON("overlay", []byte("{}\n"))
	if err != nil {
		t.Fatal(err)
	}
	oldDep := filepath.Join(c.dir, "deps", "example.com", "m@v1.0.0")
	newDep := filepath.Join(c.dir, "deps", "example.com", "n@v1.0.0")
	for _, d := range []string{oldDep, newDep} {
		if err := putTree(d, tree{"go.mod": []byte("module m\n")}); err != nil {
			t.Fatal(err)
		}
	}
	// The fact cache's entries (static.Program.FactCache), files in
	// directories of their own.
	oldFacts := filepath.Join(c.dir, "facts", "ab", "ab01")
	newFacts := filepath.Join(c.dir, "facts", "cd", "cd01")
	for _, p := range []string{oldFacts, newFacts} {
		if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("entry"), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	// The link cache's entries (record.Options.LinkDir), a directory
	// per module and build: only the directory's time says it was used.
	oldLinks := filepath.Join(c.dir, "link", "0123")
	newLinks := filepath.Join(c.dir, "link", "4567")
	for _, d := range []string{oldLinks, newLinks} {
		if err := putTree(d, tree{"0/a.test": []byte("binary")}); err != nil {
			t.Fatal(err)
		}
	}
	now := time.Now()
	old := now.Add(-trimAge - time.Hour)
	for _, p := range []string{oldFile, oldJSON, oldDep, oldFacts, oldLinks} {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	// Reusing an old entry marks it used.
	if err := writeOnce(oldJSON, []byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	c.trim(now)
	for p, want := range map[string]bool{oldFile: false, filepath.Dir(oldFile): false, newFile: true, oldJSON: true, oldDep: false, newDep: true,
		oldFacts: false, filepath.Dir(oldFacts): false, newFacts: true, oldLinks: false, newLinks: true} {
		if got := exists(p); got != want {
			t.Errorf("after trim, %s exists = %v, want %v", p, got, want)
		}
	}
	// Within trimInterval of the last trim nothing is removed.
	if err := os.Chtimes(newFile, old, old); err != nil {
		t.Fatal(err)
	}
	c.trim(now.Add(time.Hour))
	if !exists(newFile) {
		t.Error("a second trim within the interval removed a file")
	}
	c.trim(now.Add(trimInterval + time.Hour))
	if exists(newFile) {
		t.Error("a trim after the interval kept an old file")
	}
}
