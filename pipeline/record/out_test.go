package record

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestPrepareOut checks which directories precog writes its output into,
// and that it refuses every other non-empty one without touching it: a
// user's own index.json included.
func TestPrepareOut(t *testing.T) {
	index := `{"version": 1, "packages": [{"importPath": "p", "tests": [{"name": "TestA", "trace": "p/TestA.trace", "log": "p/TestA.log"}]}]}`
	marker := markerPrefix + "1\n"
	for _, tc := range []struct {
		name  string
		files map[string]string // the directory's files before; nil: no directory
		err   string            // "" if PrepareOut accepts it
		left  []string          // the files after, but for the marker
	}{
		{name: "new", files: nil},
		{name: "empty", files: map[string]string{}},
		{name: "earlier output", files: map[string]string{MarkerFile: marker, IndexFile: index, "p/TestA.trace": "t", "p/TestA.log": "l", SitesFile: "{}", "notes.txt": "mine"},
			left: []string{"notes.txt"}},
		{name: "killed before its index", files: map[string]string{MarkerFile: marker, "p/TestA.trace": "t"},
			left: []string{"p/TestA.trace"}},
		{name: "user's index.json", files: map[string]string{IndexFile: index, "p/TestA.trace": "t"},
			err: "is not empty and was not written by precog (it has no precog-output file)", left: []string{IndexFile, "p/TestA.trace"}},
		{name: "user's files", files: map[string]string{"main.go": "package main"},
			err: "was not written by precog", left: []string{"main.go"}},
		{name: "other layout", files: map[string]string{MarkerFile: markerPrefix + "2\n", IndexFile: index},
			err: "holds output of layout 2, this precog writes layout 1", left: []string{IndexFile}},
		{name: "foreign marker", files: map[string]string{MarkerFile: "hello\n"},
			err: "precog-output does not read as precog's marker", left: []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			if tc.files != nil {
				for name, data := range tc.files {
					path := filepath.Join(dir, filepath.FromSlash(name))
					if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(path, []byte(data), 0o666); err != nil {
						t.Fatal(err)
					}
				}
				os.MkdirAll(dir, 0o777)
			}
			checkErr := CheckOut(dir)
			err := PrepareOut(dir)
			if tc.err == "" && (err != nil || checkErr != nil) || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err) || checkErr == nil || checkErr.Error() != err.Error()) {
				t.Fatalf("PrepareOut: %v, CheckOut: %v; want %q", err, checkErr, tc.err)
			}
			left := files(t, dir)
			if tc.err == "" {
				if data, err := os.ReadFile(filepath.Join(dir, MarkerFile)); err != nil || string(data) != marker {
					t.Errorf("marker %q, %v", data, err)
				}
			}
			if tc.err != "" && tc.files[MarkerFile] == "" && slices.Contains(left, MarkerFile) {
				t.Errorf("a refused directory was marked")
			}
			left = slices.DeleteFunc(left, func(s string) bool { return s == MarkerFile })
			if want := slices.Sorted(slices.Values(tc.left)); !slices.Equal(left, want) {
				t.Errorf("files after: %q, want %q", left, want)
			}
			for _, name := range left {
				if data, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(data) != tc.files[name] {
					t.Errorf("%s changed: %q, %v", name, data, err)
				}
			}
		})
	}
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, nil, 0o666)
	if err := PrepareOut(file); err == nil || !strings.Contains(err.Error(), "is a file") {
		t.Errorf("a file: %v", err)
	}
}

// files lists the regular files under dir, slash-separated and sorted.
func files(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			rel, _ := filepath.Rel(dir, path)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	slices.Sort(out)
	return out
}

// TestFirstLine: the go command's message that ends in a colon keeps the
// indented line that says what to do; other lines stand alone.
func TestFirstLine(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"go: updates to go.mod needed; to update it:\n\tgo mod tidy\n", "go: updates to go.mod needed; to update it: go mod tidy"},
		{"# pkg\n./a.go:3:2: undefined: x\n\t./b.go:4:1: note\n", "./a.go:3:2: undefined: x"},
		{"a:\nb\n", "a:"},
		{"", "exit status 1"},
	} {
		if got := firstLine(c.in, errors.New("exit status 1")); got != c.want {
			t.Errorf("firstLine(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
