package conmap_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/precog-dev/precog/analyzers/conmap"
	"github.com/precog-dev/precog/analyzers/internal/fixturetest"
	"github.com/precog-dev/precog/analyzers/internal/suppress"
)

// The check's kernels of the corpus, and the static negative controls, are
// analyzers/suite's TestKernels: it runs every check over the whole corpus.

// TestFixtures runs the check over its fixtures in testdata/src, with and
// without its all flag. They are loaded and analysed in one fixturetest
// run because each analysistest run loaded the standard library packages
// its fixtures import from source and analyzed them for facts (sync brings
// in runtime): about 20 s of CPU under -race per run, which one run pays
// once.
func TestFixtures(t *testing.T) {
	fixturetest.Run(t, analysistest.TestData(), fixturetest.Case{Name: "Default", Analyzer: conmap.Analyzer, Patterns: []string{
		// Objects made fresh for each goroutine and reached through
		// interfaces are not shared among the goroutines of one context.
		"perrequest",
		// A goroutine joined (a done channel it closes or sends on
		// last, a WaitGroup) before its function starts the next, which
		// reads what the first wrote: silent; a reader started before
		// the join, a join on one path, a loop that starts the writer
		// again, a signal before the write and a function run on many
		// goroutines at once: reported.
		"joinedbefore",
		// Workers whose non-deferred Done runs last, after work five
		// calls down: joined before the test's write after Wait
		// (donelast); a call after the Done is reported.
		"donelast",
		// Two subtests, each starting a worker on a shared map and
		// waiting for it: one after the other (joinedapart); a
		// subtest that does not wait, and one that runs another's
		// worker inside its own window, are reported.
		"joinedapart",
		// A type switch whose cases each store into one map, against
		// one reader: one report, at the first write, listing the
		// others; a write in another function: its own.
		"samewriter",
		// A handler's map filled before the function that makes the
		// handler registers it: silent; filled after, or the handler
		// shared by the calls, reported.
		"setupserve",
		// Maps filled after the handlers' registration and before the
		// call that serves them (ListenAndServe, an http.Server's
		// Serve), in the serving function or a callee: silent; a fill
		// after the serve call, on a goroutine started before it, in a
		// handler or a function it calls, or before the serve of a
		// handler that a server started earlier may serve (a mux handed
		// in, a serve in a go statement): reported.
		"servestart",
		// What a map holds, read through an object an outside caller
		// passes to an exported function, is named by that map: not
		// the packages a task goroutine of another call stores in the
		// maps it was handed (silent), but the same ones when the
		// goroutine was handed that parameter's object (reported).
		"mapelemparam",
		// A task that a function starts on a group it makes and waits
		// for before it returns runs within that call: the exported
		// readers of the execution it fills, the caller's code, run
		// before or after (silent, also through an interface and
		// another object's map); reported when a path returns before
		// the Wait and when the function reads during the task.
		"taskjoined",
		// A write made only while, under the mutex, a state field says
		// the object is not running, against accesses after the mark
		// that it runs made under the mutex (a supervisor's Add and
		// Serve): silent; a state set back, and an access before the
		// mark, are reported. Runs of a Serve whose entry, under the
		// mutex, lets none in while the state holds a running value,
		// and whose deferred exit alone sets it back, never overlap
		// (silent); an exit deferred before the entry, an entry that
		// checks one running value of two, and a Stop that sets the
		// state back are reported.
		"phase",
		// A value that carries its reply channel: the receiver touches
		// the map only while the sender waits for the reply.
		"replyhandoff",
		// A state per goroutine found through its id in a table: a
		// number a goroutine stores to a variable it captures hands
		// nobody the state, nor does a state it stores to a variable
		// that only it reads; one handed through a variable to a sibling
		// or to the starter is reported.
		"goroutinestate",
		// A constructor's object that a state machine of its method
		// values touches before the constructor returns it is one
		// invocation's: two goroutines' constructors touch two objects.
		// Published first (a package variable, a goroutine of the
		// constructor, a method value kept in it), or taken from a
		// function that may return an old object, it is reported.
		"ctorstate", "ctorpublished",
		// Functions handed to a dependency's task loop, and its onClose,
		// run one at a time on the loop's goroutine; a write outside the
		// tasks, and tasks of a loop that spawns them or has two
		// goroutines, are reported.
		"taskloop",
		// An exported method run through an interface, that the
		// package's goroutines call only under their session's lock,
		// holds it on those goroutines; an unlocked goroutine, one that
		// starts in it and an importer's unlocked call are reported.
		"callerlocks",
		// A helper that lets its caller's lock go around a callback and
		// takes it again, in a loop or under a condition, gives it back:
		// its caller holds it after the call.
		"transientunlock",
		// A lock taken under a test of a field and a write under a
		// later test of it (held-out 29's R1, river's riverdbtest):
		// nothing writes the field between, so the write holds the
		// lock; with the field set between, it is reported.
		"condfield",
		// A callback handed to a dependency's function that calls it
		// before it returns (its SyncCallsFact) holds the locks held at
		// that call; one the dependency keeps or runs on a goroutine
		// holds nothing.
		"depcallback",
		// Locks held by the callers of a generic method's instantiation
		// are held in its body.
		"generic",
		// A goroutine started in a Once's Do runs once per Once: the
		// Once of the object it gets keeps its goroutines to one per
		// object; a Once made per call, or another object's, does not.
		"oncestart",
		// The goroutines one call starts in a loop share the spawner's
		// parameter; one start per call, or one per element, do not.
		"loopparam",
		// The same for a receiver read in the loop through fields of one
		// (`go s.srv.h.Handle(b)`) that the spawner never writes; a
		// handler stored in the field before each start, one per element
		// of a slice, or one read from each element, are each their
		// goroutine's own.
		"fieldrecv",
		// A test that calls a helper without the lock every caller in the
		// package holds does not take the lock away from the package's own
		// goroutines.
		"testcaller",
		// Code reached only through a sync.Once in the package, and
		// otherwise only from functions that never run or from a test
		// export, is ordered before what follows the Do; the test export's
		// path rests on what the test does, at low confidence.
		"onceexport",
		// Each result of a call holds what the callee returns in that
		// position only.
		"tupleresult",
		// A type assertion to a concrete type keeps only the objects of
		// that type.
		"typeswitch",
		// A method value stored in a field or handed to a helper runs with
		// the locks held where it is called.
		"boundcallback",
		// A test's call of a helper without the lock the package holds
		// does not unlock it on other tests' goroutines, and on its own
		// test's goroutine it rests on the test's timing (low confidence).
		"testlocks",
		// A read of a captured variable in the function that declares it
		// holds what the assignments that reach it stored, not every value
		// the variable held.
		"reassigned",
		// A goroutine that one path of the package's API starts after a
		// sync.Once's Do, and another path starts without it, is ordered
		// after the Do at default confidence: the report rests on the
		// order in which an importer calls the package. Goroutines that no
		// path starts after the Do, or that a goroutine of the package
		// starts without it, stay reported (oncecallersall: under -all the
		// report is shown with its assumption).
		"oncecallers",
		// A helper closure's parameter is fresh when every call of the
		// closure is known and each hands it an object made anew that has
		// gone nowhere yet, also through a variable that closures only
		// read.
		"headercopier",
		// A handler called through a table of method expressions
		// (handlers[t](s, f)) takes its receiver's lock like a direct
		// call's.
		"methodexpr",
		// A goroutine that unlocks a mutex its starter locked runs with it
		// held until then, unless something else releases it.
		"lockhandoff",
		// A callback that a helper calls under its lock, and without it on
		// a path that skips the lock because its caller holds it already
		// (a re-entrant dispatch), is reported only under -all
		// (reentrantall), naming that assumption, also against a helper
		// that the other goroutine enters only under the lock (a
		// constructor calling it unlocked); a call after the Unlock,
		// of another function or after a failed TryLock stays reported.
		"reentrant",
		// A helper that locks only when its bool parameter says so,
		// started by go statements that pass true, and called with
		// false under the lock, holds it at every write; a goroutine
		// started with false holds nothing.
		"goconstlock",
		// A helper locking the mutex it is handed, which several
		// mutexes reach, holds at a call the mutex that call passes;
		// two mutexes around one map do not protect it.
		"lockparam",
		// A constructor that runs again while an earlier run's
		// goroutine works writes a map it reaches through a shared
		// server: the constructor's rule orders only its fresh object's
		// own fields.
		"ctorrerun",
		// A helper that locks a mailbox for writing or for reading as its
		// boolean parameter says, then runs the callback it was handed:
		// a callback handed over with a constant holds the lock in that
		// call's mode (inbucket's withMailbox); a write under the read
		// lock, or under a mode that is not constant, is reported.
		"constmode",
		// A table only parallel subtests use at once: their pair is of
		// low confidence (paralleltestsall, under -all); a goroutine of
		// the package's own beside them is reported.
		"paralleltests",
	}},
		// The check with its all flag over the fixtures that show the
		// reports it hides by default with the assumption they rest on.
		fixturetest.Case{Name: "All", Analyzer: conmap.Analyzer, Patterns: []string{"oncecallersall", "reentrantall"},
			PassFlags: map[string]string{suppress.AllFlag: "true"}},
		// A table only parallel subtests use at once, under -all: the
		// pair is shown with the assumption it rests on, in the package
		// built with its tests (alone, it has no concurrency).
		// A test helper that fills a new message (its constructor
		// applying options, its setters writing the message's own
		// maps) before a loop's goroutine sends it: the message is the
		// test goroutine's alone until the helper returns it
		// (buildhelper); a header set while the goroutine sends is
		// reported. Maps filled before an HTTP server's handlers
		// exist, by its API entry that no test calls, and by a test,
		// which never runs with that server (serveafter); a map an
		// exported Reload fills while serving is reported. Their
		// goroutines are their tests'. Handlers that an API entry
		// serves after filling what they read, and that tests serve
		// on test servers of their own or call directly, one test
		// after another (serveapart, mailpit's server): silent; a fill
		// while a test's own server serves, a handler the initializer
		// registers, two parallel tests: reported.
		fixturetest.Case{Name: "WithTests", Analyzer: conmap.Analyzer, Patterns: []string{"buildhelper", "serveafter", "serveapart"}, TestsOnly: true},
		fixturetest.Case{Name: "AllParallelTests", Analyzer: conmap.Analyzer, Patterns: []string{"paralleltestsall"},
			PassFlags: map[string]string{suppress.AllFlag: "true"}, TestsOnly: true},
	)
}
