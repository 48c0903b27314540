package connull_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/precog-dev/precog/analyzers/connull"
	"github.com/precog-dev/precog/analyzers/internal/fixturetest"
	"github.com/precog-dev/precog/analyzers/internal/suppress"
)

// The check's kernels of the corpus, and the static negative controls, are
// analyzers/suite's TestKernels: it runs every check over the whole corpus.

// TestFixtures runs the check over its fixtures in testdata/src, with and
// without its all flag, in one fixturetest run: each analysistest run
// loaded the standard library packages its fixtures import from source
// and analyzed them for facts (sync brings in runtime), about 20 s of CPU
// under -race, which one run pays once.
func TestFixtures(t *testing.T) {
	fixturetest.Run(t, analysistest.TestData(), fixturetest.Case{Name: "Default", Analyzer: connull.Analyzer, Patterns: []string{
		// Accesses that only the winner of a one-shot CompareAndSwap runs
		// are on one goroutine; a nil store that wins nothing, or a flag
		// that is reset, is still reported.
		"election",
		// A hook that test code clears in a package variable, read by the
		// package's goroutines, rests on the test's timing (low
		// confidence); the package clearing it itself is reported.
		"testhook",
		// An object reachable from what a goroutine was handed only
		// through the receiver of a method value stored in a field is
		// shared with it.
		"methodvalue",
		// A flag that a goroutine's start requires clear, sets, and that is
		// cleared only after the goroutine's report is received, orders
		// each writer before the next one and before the code that starts
		// it; writers started without the flag are reported.
		"inflight",
		// A helper with more call sites than views follow one by one
		// holds the locks of all of the package's call sites (a test's
		// call site without them is not on the package's goroutines).
		// One call without the lock is reported.
		"manysites",
		// A method with a value receiver run through an interface that
		// holds a pointer (go/ssa's wrapper (*T).m) holds the locks held
		// where the interface method is called; called without them, it
		// is reported.
		"ptrwrapper",
		// A reuse buffer whose elements are cleared and which is stored
		// back empty shows its nils to no reader; kept whole, cut to one
		// element, or stored whole while a copy is cut, it is reported, once
		// per dereference although its location has two names (the
		// field's slice and append's), under the first, which has no
		// absolute path in it.
		"reusebuf",
		// An object each invocation makes afresh, touched before the
		// invocation hands it to the goroutine it starts, is the
		// goroutine's alone afterwards; touched after the start, not
		// fresh, or kept in a variable the next loop turn reuses, it is
		// reported.
		"handedfresh",
		// An iterator that a function makes and keeps to itself (stored
		// nowhere, handed to no goroutine) is the own iterator of the
		// goroutine running the function, whichever runs it; handed to a
		// goroutine, as a go statement's receiver or captured, it is
		// reported.
		"confined",
		// A queue's first element cleared and cut off by slicing past it
		// (q[0] = nil; q = q[1:], or append(q[1:], x)) shows its nil to
		// no reader; a clear the new slice still covers is reported.
		"popfront",
		// A channel of capacity 1 used as a mutex (a send takes it, a
		// receive in a select with a default gives it back) guards the
		// writer's buffer against Close, which takes it and stores nil;
		// a reader without it is reported.
		"chanmutex",
		// A nil store deferred after the join of the goroutines that
		// read the field: a return before the defer statement and the
		// unreachable panic of a blocking select are no ways out before
		// the join; a return or a real panic after the defer and before
		// the join, or a select's default, are, and are reported.
		"deferjoin",
		// A queue set to nil once its flusher's receives find it closed
		// crashes its closer only where closing it would: silent when
		// each sink's field holds one channel in its life; a queue made
		// again for the same sink, a nil store that no closed receive
		// leads to, or one after another channel's, is reported.
		"closednil",
		// A list split at i whose elements from i on are cleared in a
		// loop and cut off ([:i]) shows its nils to no reader; a loop
		// that starts below the cut, or a cut above the loop's start, is
		// reported.
		"splittail",
		// A go statement's closure that calls a function parameter of its
		// spawner runs on the new goroutine: its own dereference of a
		// field the caller clears is reported, whether the spawner is
		// called in the package or only from outside; a closure that does
		// not touch the field stays silent.
		"wrapclosure",
		// Goroutines that a function on the caller's goroutine starts and
		// waits for before it returns never meet the caller's other code
		// (a Commit after Add); with a return before the Wait, a
		// WaitGroup in a field, a commit between the start and the Wait,
		// or the function also run on a goroutine, it is reported.
		"joinedcaller",
		// A field set under the lock when the check found it nil, and
		// read before the Unlock, against its goroutine's clear under the
		// lock (a lazy initialization): silent; the branch storing what
		// may be nil, or calling after its store, or the clear without
		// the lock, reported.
		"lazyinit",
		// nil stored in an atomic.Pointer (by Store, Swap or
		// CompareAndSwap) against an unchecked dereference of a Load; a load checked into a local, a lock held
		// across both, or an atomic.Value (whose nil Store panics) is
		// silent.
		"atomicptr",
		// A nil stored by a Cleanup, which runs after the test
		// returned: silent against a goroutine the test waits for,
		// reported against one it never waits for, though registered
		// before its go statement.
		"cleanupnil",
		// A method of *os.File called on a field that another goroutine
		// clears returns os.ErrInvalid for a nil file; Name, which
		// dereferences it, is reported.
		"nilsafe",
		// A reader holding a reference it took from a getter that
		// increments a reference count under the lock guarding the field
		// never meets the stores on the branch where the count's
		// decrement returned 0, nor do two runs of that branch; a read
		// after the reference was dropped or handed to a goroutine, or
		// through a getter that takes none or reloads the field after its
		// unlock, is reported.
		"refcount",
		// A pooled span's clear, reached only from the release whose
		// decrement returned the count's last value (-1: the creator's
		// reference uncounted), is silent against the creator's and the
		// reporter's uses while they hold their references; a use after
		// the goroutine's own release, a span loaded from a field with
		// no reference taken, and a clear under `!= -1` are reported.
		"lastrelease",
		// A setter that stores its parameter stores nil where a call
		// passes nil: reported with a reader on another goroutine, or
		// where the nil call lacks the reader's lock; a setter only ever
		// passed a value, one that replaces nil by a default, a nil
		// call made before the reader's goroutine starts, and one made
		// under the reader's lock are silent; a nil passed only by a
		// test rests on the test's timing (low confidence).
		"setternil",
		// A field checked for nil, copied and cleared in one critical
		// section, its copy used after the Unlock, is silent; a call
		// between the check and the copy, or a copy made after the
		// Unlock, is reported.
		"closecopy",
		// A copy checked for nil after the Unlock, used in loops whose
		// header the check's non-nil edge joins, is silent; a path
		// around the check, or the copy read again without one, is
		// reported.
		"copycheck",
		// A function's accesses through a local that a loop re-points
		// at objects its own invocation makes (an iterator literal
		// building each part afresh, through an embedded struct's field)
		// are two invocations' two objects on two goroutines: silent; an
		// object from a parameter, a package variable or a shared field,
		// one touched after it was handed to a goroutine, and a merge of
		// a fresh object with a shared one are reported.
		"iterfresh",
		// An exported Init that the package's constructor calls on the
		// object it has just allocated, before letting it go, touches
		// that object alone: silent against the goroutine of another
		// object of the same allocation site (colly's NewCollector); Init
		// called on a published object by an exported Reset, after the
		// constructor started the goroutine, by an Init that starts it
		// before its store, or on a fresh slice's element, is reported.
		"freshinit",
		// Parallel subtests that each make their own object and run one
		// action that the parent test made with a constructor other code
		// calls too (directly, or through a generic one that wraps it):
		// they were handed what that call's closure captured, not what
		// another call's did, and each clears its own field (silent); an
		// object that the parent test's closure captured is handed to
		// both through the action (reported).
		"sharedaction", "sharedactionbug",
	}},
		// Goroutines that a reconnect starts again only after a Wait for
		// the one before (on some path; a flag guards the other) are taken
		// to run one at a time, at low confidence: under -all the report is
		// shown with the assumption it rests on. A restart without a Wait
		// is reported at the default confidence. Both sides in one Read
		// of one value (streamread: a reader that drops what it drained)
		// assume two goroutines read it at once: low confidence; another
		// method, or the other side elsewhere, stays confident.
		fixturetest.Case{Name: "All", Analyzer: connull.Analyzer, Patterns: []string{"restart", "streamread"},
			PassFlags: map[string]string{suppress.AllFlag: "true"}},
	)
}
