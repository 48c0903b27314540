package conuninit_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/precog-dev/precog/analyzers/conuninit"
	"github.com/precog-dev/precog/analyzers/internal/fixes/fixtest"
	"github.com/precog-dev/precog/analyzers/internal/fixturetest"
	"github.com/precog-dev/precog/analyzers/internal/suppress"
)

// The check's kernels of the corpus, and the static negative controls, are
// analyzers/suite's TestKernels: it runs every check over the whole corpus.

// TestFixtures runs the check over its fixtures in testdata/src, in one
// fixturetest run: each run loads the standard library packages its
// fixtures import from source and analyzes them for facts (net/http
// brings in most of it), about 20 s of CPU under -race, which one run pays
// once for both cases. Where a report comes with a fix, the fixed file
// must equal the fixture's golden file, and fixtest.Recheck checks that
// the fixed package compiles and draws no report where a fix was applied.
func TestFixtures(t *testing.T) {
	dir := analysistest.TestData()
	fixes := []string{"addfix", "initfix"}
	fixturetest.Run(t, dir, fixturetest.Case{Name: "Default", Analyzer: conuninit.Analyzer, Patterns: []string{
		// Fixes of Done-before-Add reports.
		"addfix",
		// Fixes of reads before initialization.
		"initfix",
		// A goroutine that takes the mutex its starter holds from the go
		// statement through the write reads after the write.
		"lockedinit",
		// A write followed by a send in a loop, read after a receive:
		// silent; a send before the write, one past a skipped write, an
		// element per turn: reported.
		"loopsend",
		// A struct copied whole (a parameter passed by value) holds its
		// fields before the go statement: silent; a fresh object whose
		// field only the goroutine sets: reported.
		"copyinit",
		// A store of the zero value after the go statement (a reset to
		// nil, 0, "") is no initialization: silent; a store of a value
		// is.
		"zeroreset",
		// A poller that tests the fields of a copy of a status its
		// goroutine sets, the zero status meaning "not ready yet":
		// silent; one that uses a field of the zero status unchecked,
		// or returns it whole: reported.
		"pollstatus",
		// Goroutines that call Add themselves race with their starter's
		// Wait; Add before the go statement, a starter that counts too, a
		// Wait before the start or an Add of -1 is silent.
		"addinside",
		// A callback that finds an atomic flag of its starter set reads
		// after the starter's writes that every store setting it follows.
		"atomicgate",
		// Reads after testing/synctest.Wait of what a goroutine of the
		// bubble sets before it can block: silent; after a Sleep, or
		// without a Wait: reported.
		"bubblewait",
		// A result set by the function a helper runs on its goroutine,
		// read after a receive from the channel that helper's call
		// returned, which the helper's goroutine closes once the
		// function has returned: silent, although every call of the
		// helper starts such a goroutine. A read after another call's
		// channel, or a helper that closes before it calls, is
		// reported.
		"spawnerdone",
		// A read after a select whose other case, a timeout, calls
		// testify's require.Fail or FailNow (which never return on a
		// *testing.T): silent; a timeout that logs, or a require check
		// that returns, is reported.
		"failnow",
		// A result set through an object before a close of that
		// object's own channel, read through the same object after a
		// receive from it: silent, however many goroutines run the
		// closing functions; a closer that writes nothing first, a write
		// after the close or another object's channel: reported.
		"objdone",
		// A send on a field after a nil check of the same field of the
		// same object, in one critical section of the mutex every store
		// of the field holds, the object also a receiver that a literal
		// captures: silent; a store without the mutex, an Unlock between
		// the check and the send, a check of another object, or a
		// captured receiver stored again: reported.
		"nilrecheck",
		// A field set before a send on a channel in another field, read
		// after a receive from that channel through a getter (one that
		// locks, or a getter of it) in a select: silent, as a receive
		// from the field is; a getter of a channel sent on before the
		// write, or of another object's channel: reported.
		"getterrecv",
		// Two goroutines that each send one result, and a loop that
		// receives as many times as they send, a constant count, before
		// the read: silent (a counted for, a range over a constant); a
		// loop with fewer turns, one that may break, and one whose count
		// is handed in: reported.
		"resultcount",
		// A result set before the Close of an io.Pipe's writer, read
		// after a call handed the reader returns: silent, its report of
		// low confidence (TestAll's pipeeof); set after the Close:
		// reported.
		"pipeeofquiet",
		// Test handlers on a mux of the test's own, served only by an
		// httptest server: state set after the server starts, before
		// the first request the test can send, is silent; a set after a
		// request, a goroutine given the URL or a helper that sends
		// one is reported, and so is one after a registration on a mux
		// handed in, which may be served already.
		"serveafter",
		// A worker goroutine's write, however deep in calls, read after
		// the test received the worker's one send on a done channel that
		// a Cleanup closes, that a second worker started after the
		// receive sends on, or that an earlier goroutine sent on before
		// the worker started: silent. A read before the receive, a
		// second sender started before it, an earlier goroutine that
		// closes the channel and a close the test calls itself: reported.
		"laterstart",
	}, Check: func(t *testing.T, results []*analysistest.Result) {
		fixtest.Golden(t, dir, results, fixes...)
		fixtest.Recheck(t, conuninit.Analyzer, dir, results, fixes...)
	}},
		// The all flag, over the fixtures whose reports rest on an
		// assumption: a report of low confidence carries its
		// assumption, and those of the default confidence beside it
		// none.
		// A result set before the Close of an io.Pipe's writer, read
		// after a call handed the reader returns: reported at low
		// confidence, assuming the call returns before the reader's end.
		// A set after the Close or only before CloseWithError, a read
		// the call does not precede, a reader handed to no such call and
		// a writer handed on as an io.WriteCloser: the default.
		// A listener's address and a producer's result, each read by a
		// test after the go statement that starts package code setting
		// it: the test's own code races with the goroutine, so the
		// listener's report assumes nothing (not the test's timing) and
		// the producer's only that the pipe's call returns early. Both
		// shapes in the package's own code: the default.
		// A test handler's state set after the test server's address
		// was handed to a client constructor or stored in a global: low
		// confidence, assuming that no request is sent through it
		// before the set; after a request: the default; before any
		// request or handing: silent.
		fixturetest.Case{Name: "All", Analyzer: conuninit.Analyzer, Patterns: []string{"pipeeof", "testside", "servehanded"},
			PassFlags: map[string]string{suppress.AllFlag: "true"}},
	)
}
