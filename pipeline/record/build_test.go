package record

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBuildTestsCollidingNames builds the test binaries of two packages
// whose import paths end alike, which one go test -c -o dir/ refuses, and
// runs each to check it is its own package's.
func TestBuildTestsCollidingNames(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two test binaries")
	}
	mod := t.TempDir()
	files := map[string]string{
		"go.mod":          "module example.com/m\n\ngo 1.22\n",
		"a/x/x_test.go":   "package x\n\nimport \"testing\"\n\nfunc TestFromA(t *testing.T) {}\n",
		"b/x/x_test.go":   "package x\n\nimport \"testing\"\n\nfunc TestFromB(t *testing.T) {}\n",
		"c/y/y_test.go":   "package y\n\nimport \"testing\"\n\nfunc TestFromC(t *testing.T) {}\n",
		"c/y/y_unused.go": "package y\n",
	}
	for name, content := range files {
		p := filepath.Join(mod, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	pkgs, err := listTestPackages(t.Context(), mod, nil, []string{"./..."})
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if err := buildTests(t.Context(), mod, out, nil, pkgs); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"example.com/m/a/x": "TestFromA", "example.com/m/b/x": "TestFromB", "example.com/m/c/y": "TestFromC"}
	if len(pkgs) != len(want) {
		t.Fatalf("listed %d packages, want %d", len(pkgs), len(want))
	}
	for _, p := range pkgs {
		list, err := exec.Command(testBinary(out, p), "-test.list=.").Output()
		if err != nil {
			t.Fatalf("%s: %v", p.ImportPath, err)
		}
		if got := strings.TrimSpace(string(list)); got != want[p.ImportPath] {
			t.Errorf("test binary of %s lists %q, want %q", p.ImportPath, got, want[p.ImportPath])
		}
	}
}
