package sarif

import (
	"os"
	"path/filepath"
	"testing"
)

func TestLocator(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "pkg", "a.go")
	if err := os.MkdirAll(filepath.Dir(file), 0o777); err != nil {
		t.Fatal(err)
	}
	// Line 2 has a 2-byte rune (1 UTF-16 unit) and a 4-byte one (2 units) before x.
	if err := os.WriteFile(file, []byte("package p\nvar é, 𝔸, x = 1, 2, 3\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	l := NewLocator(root)
	for _, tc := range []struct{ line, col, want int }{
		{2, 1, 1},
		{2, 5, 5},   // é: bytes 5-6
		{2, 9, 8},   // 𝔸: bytes 9-12, after é (one unit fewer than bytes)
		{2, 15, 12}, // x
		{2, 0, 0},   // no column
		{9, 4, 4},   // no such line: the byte column
	} {
		if got := l.Column(file, tc.line, tc.col); got != tc.want {
			t.Errorf("Column(line %d, col %d) = %d, want %d", tc.line, tc.col, got, tc.want)
		}
	}
	if got := l.Column(filepath.Join(root, "missing.go"), 1, 7); got != 7 {
		t.Errorf("Column of a missing file = %d, want the byte column 7", got)
	}
	if a := l.Artifact(file); a.URI != "pkg/a.go" || a.URIBaseID != SrcRoot {
		t.Errorf("Artifact under the root = %+v", a)
	}
	if a := l.Artifact("/usr/lib/go/src/sync/mutex.go"); a.URI != "file:///usr/lib/go/src/sync/mutex.go" || a.URIBaseID != "" {
		t.Errorf("Artifact outside the root = %+v", a)
	}
	if u := l.BaseIDs()[SrcRoot].URI; u != "file://"+filepath.ToSlash(root)+"/" {
		t.Errorf("BaseIDs = %q", u)
	}
}
