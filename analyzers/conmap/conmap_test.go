package conmap_test

import (
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/precog-dev/precog/analyzers/conmap"
	"github.com/precog-dev/precog/internal/corpus"
)

// TestKernels runs the check over its kernels of the corpus, where it must
// report what their want comments say, and over the static negative
// controls, where it must report nothing. (analyzers/suite runs every
// check over the whole corpus.)
func TestKernels(t *testing.T) {
	kernels := []string{"mapwrites"}
	negative, err := corpus.Negative(corpus.Dir())
	if err != nil {
		t.Fatal(err)
	}
	corpus.CheckVet(t, []*analysis.Analyzer{conmap.Analyzer}, append(kernels, negative...))
}

// TestPerRequest: objects made fresh for each goroutine and reached
// through interfaces are not shared among the goroutines of one context.
func TestPerRequest(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), conmap.Analyzer, "perrequest")
}

// TestGeneric: locks held by the callers of a generic method's
// instantiation are held in its body.
func TestGeneric(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), conmap.Analyzer, "generic")
}

// TestTestCaller: a test that calls a helper without the lock every
// caller in the package holds does not take the lock away from the
// package's own goroutines.
func TestTestCaller(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), conmap.Analyzer, "testcaller")
}

// TestOnceExport: code reached only through a sync.Once in the package,
// and otherwise only from functions that never run or from a test export,
// is ordered before what follows the Do; the test export's path rests on
// what the test does, at low confidence.
func TestOnceExport(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), conmap.Analyzer, "onceexport")
}

// TestTupleResult: each result of a call holds what the callee returns
// in that position only.
func TestTupleResult(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), conmap.Analyzer, "tupleresult")
}

// TestTypeSwitch: a type assertion to a concrete type keeps only the
// objects of that type.
func TestTypeSwitch(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), conmap.Analyzer, "typeswitch")
}

// TestBoundCallback: a method value stored in a field or handed to a
// helper runs with the locks held where it is called.
func TestBoundCallback(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), conmap.Analyzer, "boundcallback")
}

// TestTestLocks: a test's call of a helper without the lock the package
// holds does not unlock it on other tests' goroutines, and on its own
// test's goroutine it rests on the test's timing (low confidence).
func TestTestLocks(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), conmap.Analyzer, "testlocks")
}

// TestReassigned: a read of a captured variable in the function that
// declares it holds what the assignments that reach it stored, not every
// value the variable held.
func TestReassigned(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), conmap.Analyzer, "reassigned")
}

// TestOnceCallers: a goroutine that one path of the package's API starts
// after a sync.Once's Do, and another path starts without it, is ordered
// after the Do at default confidence: the report rests on the order in
// which an importer calls the package. Goroutines that no path starts
// after the Do, or that a goroutine of the package starts without it,
// stay reported. Under -all the report is shown with its assumption.
func TestOnceCallers(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), conmap.Analyzer, "oncecallers")
	if err := conmap.Analyzer.Flags.Set("all", "true"); err != nil {
		t.Fatal(err)
	}
	defer conmap.Analyzer.Flags.Set("all", "false")
	analysistest.Run(t, analysistest.TestData(), conmap.Analyzer, "oncecallersall")
}

// TestHeaderCopier: a helper closure's parameter is fresh when every call
// of the closure is known and each hands it an object made anew that has
// gone nowhere yet, also through a variable that closures only read.
func TestHeaderCopier(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), conmap.Analyzer, "headercopier")
}

// TestMethodExpr: a handler called through a table of method expressions
// (handlers[t](s, f)) takes its receiver's lock like a direct call's.
func TestMethodExpr(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), conmap.Analyzer, "methodexpr")
}

// TestLockHandoff: a goroutine that unlocks a mutex its starter locked
// runs with it held until then, unless something else releases it.
func TestLockHandoff(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), conmap.Analyzer, "lockhandoff")
}
