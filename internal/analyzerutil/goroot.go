package analyzerutil

import (
	"go/build"
	"path/filepath"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// InGOROOT reports whether the package's files are in the Go root: the
// standard library.
func InGOROOT(pass *analysis.Pass) bool {
	root := filepath.Clean(build.Default.GOROOT) + string(filepath.Separator)
	for _, f := range pass.Files {
		if !strings.HasPrefix(pass.Fset.PositionFor(f.Package, false).Filename, root) {
			return false
		}
	}
	return len(pass.Files) > 0
}

// StdInternal reports whether the package is a standard library package
// that no program outside the standard library can import: runtime's own
// packages below it, the internal packages and the vendored ones. (runtime
// itself can be imported, but its API takes no function it runs on a
// goroutine of its own.)
func StdInternal(pass *analysis.Pass) bool {
	path := pass.Pkg.Path()
	internal := path == "runtime" || strings.HasPrefix(path, "runtime/internal/") ||
		strings.HasPrefix(path, "internal/") || strings.Contains(path, "/internal/") ||
		strings.HasPrefix(path, "vendor/")
	return internal && InGOROOT(pass)
}
