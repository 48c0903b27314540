// Package testmod writes small Go modules for tests: the end-to-end tests
// of the commands and pipeline stages build and run modules they write
// into temporary directories.
package testmod

import (
	"os"
	"path/filepath"
	"testing"
)

// Write writes files (slash-separated paths relative to dir, and their
// contents) into dir.
func Write(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o666); err != nil {
			t.Fatal(err)
		}
	}
}

// New writes files into a new temporary directory and returns it.
func New(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	Write(t, dir, files)
	return dir
}

// Unlisted returns a module example.com/m of two packages: ok, with one
// passing test, and env, whose TestMain exits with "ENV_SERVER is not
// set" before its tests can be listed (as a test that wants its
// environment does when go test runs it without). precog record, cover
// and test leave env out with one line and exit status 1.
func Unlisted() map[string]string {
	return map[string]string{
		"go.mod":        "module example.com/m\n\ngo 1.22\n",
		"ok/ok_test.go": "package ok\n\nimport \"testing\"\n\nfunc TestOK(t *testing.T) {}\n",
		"env/e_test.go": "package env\n\nimport (\n\t\"fmt\"\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestMain(m *testing.M) {\n\tif os.Getenv(\"ENV_SERVER\") == \"\" {\n\t\tfmt.Println(\"ENV_SERVER is not set\")\n\t\tos.Exit(1)\n\t}\n\tos.Exit(m.Run())\n}\n\nfunc TestE(t *testing.T) {}\n",
	}
}
