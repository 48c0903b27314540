package analyzerutil

import (
	"fmt"
	"go/token"
	"runtime/debug"

	"golang.org/x/tools/go/analysis"

	"github.com/precog-dev/precog/detect/finding"
)

// Guard wraps an analyzer's Run function so that a panic inside it becomes
// one "internal error" diagnostic carrying the stack, instead of a crashed
// go vet or a lost report from every other analyzer. The pass then returns
// empty, which must be a valid, empty result of the analyzer's ResultType
// (nil for checks), so that analyzers depending on it run and find nothing.
func Guard(run func(*analysis.Pass) (any, error), empty func() any) func(*analysis.Pass) (any, error) {
	return func(pass *analysis.Pass) (res any, err error) {
		defer func() {
			r := recover()
			if r == nil {
				return
			}
			pos := token.NoPos
			if len(pass.Files) > 0 {
				pos = pass.Files[0].Package
			}
			pass.Report(analysis.Diagnostic{
				Pos:      pos,
				Category: finding.InternalError,
				Message: fmt.Sprintf("internal error: analyzer %s panicked on package %s: %v\n%s",
					pass.Analyzer.Name, pass.Pkg.Path(), r, debug.Stack()),
			})
			res, err = nil, nil
			if empty != nil {
				res = empty()
			}
		}()
		return run(pass)
	}
}
