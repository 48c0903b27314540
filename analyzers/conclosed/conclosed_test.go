package conclosed_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/precog-dev/precog/analyzers/conclosed"
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
	fixturetest.Run(t, analysistest.TestData(), fixturetest.Case{Name: "Default", Analyzer: conclosed.Analyzer, Patterns: []string{
		// A Done in a function literal that the goroutine defers runs after
		// everything the goroutine did before, and before what the literal
		// does after it (deferdone, earlyreturn); a Done that a spawner's
		// own goroutine function defers runs after the function value it
		// runs (spawnerjoin).
		"deferdone", "earlyreturn", "spawnerjoin",
		// A buffered channel as a counting semaphore, filled to its
		// capacity after the goroutines it bounds: the drain's last
		// send completes after every goroutine's one release
		// (semdrain); a drain short of the capacity, a release before
		// the testing call, a goroutine started without a token and
		// two releases in one goroutine are reported.
		"semdrain",
		// A helper that starts one goroutine per element of a slice,
		// each sending once on a channel it made, and receives as
		// many results (counted, with an early stop and a drain of
		// the rest, or in one loop over the slice) before its caller
		// closes what the goroutines send on (drainjoin, kad-dht's
		// lookup); a drain one short, a count bumped before its
		// receive, an extra sender, two goroutines per element, a
		// drain that may stop and a count over another slice are
		// reported.
		"drainjoin",
		// An exported function that fills a registry and another that
		// iterates it, called by sequential and parallel tests, or
		// by no test: the package's callers and its tests do not run
		// at once (apientry); a goroutine the package starts to fill it
		// is reported.
		"apientry",
		// Workers joined through a goroutine that waits for them and
		// then closes the channel the test ranges over, or a done
		// channel it selects on (relayjoin); a closer that does not
		// wait, or waits on another WaitGroup, is reported.
		"relayjoin",
		// One goroutine's code in several tests, none waiting for it:
		// one report, at the first, counting the others (sameshape);
		// another message or another helper is reported apart.
		"sameshape",
		// A loop that restarts a watcher goroutine once the last one
		// returned, each closing one channel: the goroutines run one at
		// a time, and the second close panics all the same: reported.
		"restartclose",
		// A helper that runs the test's function on a goroutine closing
		// a done channel after it, and returns a wait function that
		// receives from done on every path: a test that calls it before
		// it can end is silent; a Fatal or a helper handed t before the
		// wait, a return before it, a close before the function and a
		// wait that may give up are reported.
		"waitfunc",
		// A Cleanup's close runs after the test returned, so after its
		// receive of the goroutine's one send (and the goroutine's
		// t.Error before it); a goroutine the test never waits for, a
		// receive a timeout may skip and a Cleanup a goroutine
		// registers are reported; a goroutine's t.Error before a
		// wg.Wait in a Cleanup registered on every path is silent,
		// before a Cleanup that waits for nothing, or registered on
		// one path, reported.
		"cleanupclose",
		// A goroutine's testing call that runs only when Serve returned
		// another error than ErrServerClosed, the test closing the
		// server in a Cleanup or a defer: low confidence, left out by
		// default; another server's check, no close, another guard
		// or none are reported.
		"serveclosed",
		// A close on the path that returns before the go statement and
		// the goroutine's close meet only in two calls: low confidence,
		// left out by default (apartpaths).
		"apartpaths",
		// Workers counted on a WaitGroup field of the object their `go`
		// statement passes, waited on before the call that started them
		// returns, are done before the caller closes what they send on;
		// without the Wait, or with a worker started after it, the close
		// may come first (fieldjoin). Workers joined within every call of
		// the function that starts them have ended when the call returns,
		// though it may return early before it starts them; an early
		// return after the start leaves them running (earlyjoin).
		"fieldjoin", "earlyjoin",
		// The functions one `go` statement may start through a function
		// value do not run at the same time unless the statement runs
		// again while they do.
		"switchgo",
		// A map taken out of its field under the mutex, with a fresh one
		// put there in the same section, is the taker's alone to range
		// over, against an adder whose constructor runs between its read
		// of the field and its write too, unless the constructor releases
		// the mutex.
		"taken",
		// A command removed from a list under the mutex (the element
		// deleted and returned, or the list taken whole) is its
		// remover's: two removers never close one command's channels;
		// a command found and left in the list is not removed, nor is
		// one removed without the mutex, one put in the list twice, or
		// a channel that commands share.
		"removed",
		// A channel held in a field of the value a map holds for an entry,
		// closed only after its closer found the entry and deleted it with
		// one mutex held throughout, has one closer when each value stored is
		// built for its entry with a channel made for it (struct or pointer);
		// two sections, a close where the delete may not have run, a field
		// another method rewrites, a pointer in two entries and a struct
		// copied whole over another are reported.
		"claimfield",
		// The same with pointers to states their makers keep, to match
		// the entry by identity later: a close before the delete, in
		// the section and on a path that always reaches it, and one of a
		// map taken whole with nil put in its field, are each one
		// closer's too; a close where the delete may not follow, a
		// delete in a later section, a map read but left in its field,
		// and one state stored under several names in a loop are
		// reported.
		"claimpending",
		// The same with the channel itself the map's value: channels
		// found in one map are paired (a Cancel that does not delete
		// closes twice), and a claim makes them one closer's when every
		// channel stored was made for its entry; a lookup and delete in
		// two sections, a channel under two keys and one handed in by a
		// caller are reported.
		"claimchan",
		// Generic types' methods, called through instantiation
		// wrappers: a close on every call is reported, a close in a
		// Once is not.
		"generic",
		// Method values handed to time.AfterFunc, or called by a go
		// statement: the receiver bound where the value is made is the
		// one the method closes through.
		"methodvalue",
		// A spawner called twice on one object in one function runs its
		// goroutine twice; two objects, or either branch, do not.
		"twice",
		// A call's own channel, closed after the call's own WaitGroup
		// joined the goroutines that send on it, is not the channel of
		// a nested call made from one of them; a channel handed to the
		// nested call or held in a field is, and so is one closed before
		// the Wait or before another round of sends.
		"recursivechan",
		// Two calls of a constructor assigned to one captured variable:
		// a goroutine that reads it before the second assignment happens
		// (joined before it) touches the first call's channels only; one
		// that may read it later, past its Done or with no join, may
		// touch the second's.
		"twocalls",
		// A map iterated after a send on an unbuffered channel that
		// its writer returns on: the send completes only once the
		// writer received it (silent); with a buffered channel, or a
		// map that every writer goroutine writes, reported.
		"unbufstop",
		// Goroutines started with a loop's counter, each closing the
		// element at its own index of a slice the spawner made, touch
		// two elements; one element for all, an outer loop's counter in
		// an inner loop, or a computed index, do not.
		"ownslots",
		// A callee's access is ordered by what orders its calls: a range
		// in a callee called after wg.Wait, or where the goroutines never
		// started, is silent; one called before the Wait is reported.
		"joincallee",
		// A goroutine that a helper taking t starts may outlive the
		// tests that call the helper, which the message names.
		"helpertest",
		// A goroutine that such a helper starts is joined when the
		// helper returns a function that waits for it and each caller
		// calls that function on every path to its return; a caller
		// that may return first, a result left uncalled, and a function
		// that waits on another WaitGroup or not always are reported.
		"helperjoin",
		// A goroutine whose t.Error path skips its one send on a channel
		// the test receives from on every path to its return (or to a
		// call that may end it) runs that t.Error before the test
		// returns, or the test never returns; a test that may return
		// without receiving, a send before the t.Error, a helper that
		// may end the test after the go statement and a goroutine
		// started in a loop are reported.
		"successsend",
		// A channel made for the object its call made, and closed only by
		// that call (in its body or a deferred closure), is not closed by
		// two goroutines at once; a channel shared by every object, and a
		// close of an object another call made, are.
		"owncycle",
		// A send made with a mutex held since a read of a stop flag found
		// it clear is not after a close made once the flag was set under
		// that mutex; a flag that is cleared again, a send after the
		// mutex's release, a close before the flag's set are reported.
		"stopflag",
		// A close on the branch where a helper returned its CompareAndSwap
		// of a one-shot flag is elected as one under the CompareAndSwap
		// itself; a helper that returns a plain read elects nobody.
		"closehelper",
		// A buffer's count (Buffered) read while another goroutine
		// Resets the buffer is a number, not a use of what the Reset
		// released; a Peek into the buffer is reported.
		"resetcount",
		// A goroutine started in a test's callback is taken to start many
		// times only through another test's loop, which the call graph
		// lets reach every test's callbacks: low confidence, silent here;
		// the test's own loop is reported.
		"othertests",
		// A test's callback runs on that test's goroutines only, not
		// on another test's call of an exported function that calls the
		// same field of funcs, nor on an outside caller's: silent; a test
		// that runs its own callback on its own goroutine while the
		// checker's goroutines may still run it is reported.
		"othertestlit",
		// A Stop that a test defers runs after the test's wait for the
		// goroutine that sends inside a callee, when every way out of the
		// test (a return, a t.Fatal, a helper handed t) comes after that
		// wait or after a receive from the same channel; a t.Fatal or a
		// helper before the wait is reported.
		"deferstop",
		// A goroutine that outlives its test is one diagnostic, at its
		// first testing call, however many it makes; two goroutines are
		// two.
		"manycalls",
		// A goroutine that calls a closure made before its go statement
		// shares what the closure captured: a map written after the
		// statement is reported, written only before it silent.
		"closurego",
		// A function literal runs only after it is made: writes before
		// the callback that alone starts the timers come before every
		// timer's run (silent); a write after the making, or the maker
		// run again in a loop on the same object, is reported.
		"literalmade",
		// A log on a testing/synctest bubble's T from a goroutine of the
		// bubble goes to the test waiting in synctest.Test: silent; an
		// Errorf there, a log on a t.Run subtest's T, or on a T whose
		// function is also a subtest's, is reported.
		"bubblelog",
		// A helper called under different locks by callers that each
		// hand it their own listeners or map is viewed from each call
		// site, with the lock held there and the objects passed there:
		// each caller pairs with the closer of its own objects.
		"helperlocks",
		// Goroutines started one per object at a time, each past a check
		// under the mutex that the object's flag is clear and after
		// setting it, which each clears under the mutex as its last word,
		// take turns on the object; the one that closes without clearing
		// is the last. A clear followed by more work, or a check without
		// the mutex, is reported.
		"turns",
		// A goroutine that sends once, on a channel its test receives
		// from once and then closes, sent before the close; a second
		// send, a second sender or a close before the receive is
		// reported.
		"onesend",
		// A method that runs at most once per object past a flag tested
		// and set under the object's mutex, never cleared, closes the
		// object's channel on its early return or starts the goroutine
		// that uses it, never both; a channel each call makes is closed
		// by that call's cleanup or its goroutine. No flag, a flag
		// cleared again or set without the mutex, a whole-value reset, a
		// close after the start and a deferred cleanup are reported.
		"onceguard",
		// An object that a wrapper of a constructor returns, named by the
		// wrapper's call site, aliases the same object named by the
		// constructor's call site inside the wrapper (or by no clone) on
		// a path the refinement follows less far; two objects made through
		// one wrapper do not.
		"reclonechain",
		// Objects that helpers returning (*T, error) pass on from a
		// constructor are told apart by the outermost helper's call site:
		// two associations' read loops close two channels; one object
		// whose read loop starts twice, or that a package variable names
		// too, is reported.
		"tupleclone",
		// A helper's goroutine closes the channel the helper's call
		// made, and each call starts one such goroutine: rooted at
		// every call of the helper, they close two channels. A helper
		// starting its goroutine in a loop, or closing the channel on
		// its own goroutine too, is reported.
		"spawnerdone",
		// A send after a wait for the goroutines that closed the
		// field's channel and then stored nil to the field reads the
		// nil or a channel made later: silent. A nil stored on one
		// path only, a field given a channel that another object holds
		// too (a copied struct, a channel made once and stored twice),
		// and a send not ordered after the nil store are reported.
		"nilclose",
		// n goroutines that each send once, and a loop with a constant
		// bound that receives on every turn: the close after the loop
		// follows every send, and a t.Error before one (silent); a bound
		// the test is handed (the loop may run no turn) and a break
		// before the receive are reported.
		"countjoin",
		// A constructor that starts one of two pumps with its new object,
		// on either branch: each goroutine's channel is its own
		// invocation's (silent); both pumps started, or one that an
		// exported method also runs, are reported.
		"eitherpump",
		// A loop that starts one goroutine per turn and receives its one
		// send, or finds the channel closed and returns, before the next
		// start (silent); a receive a timeout may skip, one that does
		// not stop at a close, and a goroutine that may send twice are
		// reported.
		"turnrecv",
		// A send and then a close past the win of a CompareAndSwap from
		// a value that no write puts back, on a local declared with the
		// channel's (a closure's) or on the channel's object (a field),
		// run once, on one goroutine (silent); a flag stored back to
		// that value, a caller that may hand the closure it, a send
		// before the CompareAndSwap, two flags, a channel handed in and
		// a Load instead of the CompareAndSwap are reported.
		"casonce",
		// Closes elected by the value an atomic Add returns, converted
		// before the comparison (silent); a plain counter's is reported.
		"countelect",
		// A closure made in each turn of a loop, capturing the turn's
		// channel and starting one goroutine that closes it, called
		// once (directly, deferred by a callee or as Run's `return
		// initialize()`): one close per channel (silent); a callee that
		// calls it twice, in a loop or hands it on, a channel made
		// outside the loop and a closure starting goroutines in a loop
		// are reported.
		"loopchan",
		// A function value that a spawner only calls from a task literal
		// it hands to WaitGroup.Go runs on that task's goroutine, not on
		// one of its own besides: its sends come before the literal's
		// deferred close, and its close runs once per call (silent); the
		// same value called by two task literals at once closes on two
		// goroutines (reported).
		"taskparam",
		// A pair of closes found under two locations (helpers closing
		// their channel parameter, called with two fields) is reported
		// once, though under one location a close met its partner first
		// and under the other the partner met it first.
		"closepair",
		// Parallel subtests that each make their own object and run one
		// action that the parent test made with a constructor other code
		// calls too (directly, or through a generic one that wraps it):
		// they were handed what that call's closure captured, not what
		// another call's did (silent); an object that the parent test's
		// closure captured, made into the action by Func or by Expose, is
		// handed to both (reported). So is one that the closure a call
		// returns may hold other than what the call passed: a Func that
		// replaces its parameter with a hook, or that returns the closure
		// its first call made (reported).
		"sharedaction", "sharedactionbug", "sharedexposebug",
		"sharedhookbug", "sharedcachebug",
	}},
		// Closes of a channel with one token (one send, into a channel
		// made for its object), each after a receive from it (plain, in
		// a select's case, or before the go statement that starts the
		// closer, a function literal or a method of the same object):
		// the pair rests on the token taken twice, at low confidence. A
		// closer that does not take the token, a token given back by a
		// second send, closers started in a loop after one take, a
		// struct copied whole and two closers without a token are
		// reported at default confidence.
		// A test that builds a new object in each turn of a loop, its
		// initializers filling the object's map, and starts goroutines
		// that read it: the object under construction is the test
		// goroutine's alone (buildloop); a reload of a published object,
		// and a constructor that registers its object before filling
		// it, are reported. Its goroutines are its tests'.
		fixturetest.Case{Name: "WithTests", Analyzer: conclosed.Analyzer, Patterns: []string{"buildloop"}, TestsOnly: true},
		fixturetest.Case{Name: "All", Analyzer: conclosed.Analyzer, Patterns: []string{"onetoken"},
			PassFlags: map[string]string{suppress.AllFlag: "true"}},
	)
}
