// Package conclosed defines an analyzer that reports uses of channels,
// buffers, pooled objects, maps and tests after another goroutine may
// have closed, released or ended them: ConMem's Con-Dangling, for Go.
//
// # Analyzer conclosed
//
// conclosed: report uses after another goroutine closes or releases
//
// Go has no free, but it has operations after which a value must not be
// used, and using it from another goroutine without ordering the two is
// the Go shape of a dangling pointer (ConMem, Zhang et al., TOSEM 2013,
// §4.4). The check reports, when the two sides run in goroutine contexts
// that can overlap, with no common mutex and no static order:
//
//   - a send on a channel that another goroutine closes ("send on closed
//     channel", reported at the send unless the send is ordered before
//     the close), and two closes of one channel ("close of closed
//     channel", unless both run under one sync.Once or one mutex;
//     reported once per pair of closes, at the one the analysis meets
//     first, with the other as related information);
//   - a use of a bytes.Buffer, strings.Builder or bufio Reader/Writer
//     that another goroutine Resets (reading its counts, Len or Buffered,
//     is no use: a wrong number, not a crash), of an object that another goroutine
//     returns to a sync.Pool, or of the elements of a slice that another
//     goroutine truncates to reuse its array (s.buf = s.buf[:0]);
//   - a range over a map that another goroutine writes ("concurrent map
//     iteration and map write"), reported at the range;
//   - a *testing.T or *testing.B method that panics once the test has
//     returned (Log, Error, Fatal, Skip and friends) called from a
//     goroutine that the test does not wait for. The T of a
//     testing/synctest bubble's function sends its Log and Logf to the
//     test that called synctest.Test, which waits there for every
//     goroutine of the bubble: those two are not reported for it (its
//     Error and Fatal still panic once the function has returned). Nor
//     is a call on a path of the goroutine that no send on its success
//     channel precedes, when that send is the only one on a channel
//     its starter made and that the test receives from on every path
//     to its return (go-kit's testServer: `t.Error(err); return` or
//     `response <- resp`): the call runs before the send, or the test
//     never returns. Nor is a call of a goroutine that a helper taking t
//     starts and joins through the function it returns, when every
//     caller calls that function before it returns (gowarc's
//     drainErrChan returns `func() { wg.Wait() }`). Nor is a call, in the
//     function that starts the goroutine, on that function's own T when
//     every run of the function on the goroutine belongs to a subtest
//     that a t.Run on the goroutine started, handed that subtest's own T
//     (neo4j's fake server goroutine calls inner.Run with a body that
//     calls the starting helper again): the call runs on the subtest's
//     goroutine, which t.Run waits for (see onSubtestsT). The success
//     channel may also be closed by a function that the test hands to
//     t.Cleanup on its own T (gue's TestShutdown): that close runs only
//     once the test has returned, after its receive (see cleanupCloses).
//     A close in a Cleanup is ordered after the test's code by the
//     ordering analyzer's cleanup rule, and is reported against a send of
//     a goroutine that the test does not wait for. Nor is a call reported
//     that happens before the end of a function the test registers on its
//     own T with t.Cleanup on every path to the return (a wg.Wait() there,
//     as sipgo's integration tests do): testing marks the test done, after
//     which the call panics, only once its Cleanups have run (see
//     beforeCleanupEnd). A call that runs only when a server's Serve
//     returned another error than ErrServerClosed, the test closing that
//     server in a Cleanup or a deferred call (wish's testsession.Listen),
//     is of low confidence: after the close Serve returns
//     ErrServerClosed, so the call follows an error Serve returned while
//     the test ran, and comes after the test's end only if the goroutine
//     is that slow to reach it (see serveClosedAssumption).
//
// Closing a file or connection that another goroutine still uses is not
// reported: later calls return an error (os.ErrClosed, net.ErrClosed)
// rather than crash, and closing to unblock a reader is a common idiom.
// A user type's Close method is covered by what it does: closing its
// channels, setting its fields to nil (con-null), resetting its buffers.
//
//	// WRONG: the producer closes the output while consumers still send
//	go func() { for b := range q.in { q.out <- compress(b) } }()
//	produce(q.in)
//	close(q.out)
//
//	// RIGHT: close after every sender has finished
//	consumers.Wait()
//	close(q.out)
//
// Sends and closes in a function that recovers from panics (a deferred
// recover) are not reported: the program survives them by design. Nor is
// a send behind a stop flag: made with a mutex held since a read of a
// boolean field of the channel's object found it false, when the close
// comes after a store of true to that field under the same mutex in
// write mode, and the package never stores false to it (if the closer's
// section came first the send does not run; otherwise it came before).
// Nor a send and a close on two goroutines that take turns on an object:
// started one per object at a time, past a check under a mutex that the
// object's flag is clear and after setting it, each clearing it under the
// mutex as its last word, when the closer clears it on no path after the
// close (it is the object's last; rabbitmq/amqp091-go's one deliverer per
// listener, see concurrent.Env.TurnBefore). Nor a send and a close that
// one invocation of a function makes, send first, both past its win of a
// CompareAndSwap on a one-shot flag: a flag of the channel's object, or a
// local variable declared with the one holding the channel, whose every
// CompareAndSwap starts from one value that no write puts back
// (engine.io's resolve: `if !state.CompareAndSwap(pending, result)
// { return false }`, then `permission <- true` and `close(permission)`;
// see concurrent.Env.ElectedBefore). Nor a close and a use of a
// channel that one call of a function made, or holds in the object it
// runs on at most once (a flag tested and set under the object's mutex,
// never cleared: paho.golang's Connect), when the call makes the one on
// a path that never starts the goroutine making the other (a cleanup on
// an early return), or makes both (see concurrent.Env.Overlap). Nor two
// closes of a channel held in an unexported field of the struct values
// (or pointers to structs) of a map in an unexported field, when each
// closes a channel it took from an entry it found with a comma-ok lookup
// and deleted, only where the lookup found it, with one mutex held from
// the lookup to the delete (the close after the delete, or before it in
// the section on a path that always reaches it), or from a map it took
// whole out of its field, putting nil or a fresh map there under the
// mutex; and each value the package stores in the map is built in place
// for its one entry with a channel made for it, or is a pointer to a
// struct made for it that no other update stores and that its maker may
// keep (centrifuge's subscribingCh): the deleter of an entry is its
// closer.
//
// Known false-positive shapes: senders that stop because of a signal the
// analysis does not model (an atomic flag read without the closer's
// mutex, a condition variable) before the close; releases of different
// objects held in the same field of different instances; and a T method
// on a path that cannot run, such as a goroutine's t.Errorf on the error
// of its Write to an io.Pipe whose other end the test reads until it
// returns: a pipe's Write fails only once an end is closed, which nothing
// does first, but no ordering would be sound there (a Read returns once
// it copied the Write's bytes, before the Write returns), and the error
// value is not followed (held-out rehearsal 47's go-psrpcore).
//
// Confidence: a close or send in a handler of a test, which the check
// finds may run twice at once only because a server runs a handler per
// request, assumes that the test sends two requests at once; a pair whose
// one side is code written in a _test.go file and the other is not
// assumes that the test code runs while the package's goroutines do; so
// does a pair that holds a common lock wherever the package's own code
// calls its sides, unlocked only through a test's call; a pair ordered
// by a sync.Once once the callers in _test.go files are left
// out assumes that a test export runs outside the Once meanwhile; a pair
// ordered by a sync.Once once every goroutine start reached from code
// calling into the package counts as after the Do (one path to the start
// runs it first) assumes that an importer starts the goroutine by another
// path before anything ran the Do; a pair of two goroutines of one go
// statement, each started after a Wait for the one before on some path,
// assumes that two of them run at once; so does a pair of two goroutines
// of one go statement that runs several times only through recursion or,
// in a test's closure, through another test's code. Two closes of a
// channel that carries one token, each run only after a receive from
// the same object's channel completed, assume that the token is taken
// twice, the second receive completing only because the first closer
// had closed the channel: a caller running the taking path twice on one
// object, which an API may forbid (chromedp's allocated channel, one
// allocation per context). The channel carries one token when every
// channel its field or captured variable holds is made for an object (or
// variable) in the function that allocates it, once per call, and gets
// one send there after that, and every read of it uses it as a channel
// only (no copy to another location, nor of the whole struct). The
// receive counts when it dominates the close, or the go statement that
// starts the function doing the close, in the same function; one in a
// select counts on its case's paths only; none of them on a cycle (see
// tokenChan). These are shown only under -all (precog vet -all;
// -conclosed.all under go vet -vettool=precog, whose own -all is taken;
// the golangci-lint setting all: true), with the assumption in its
// message (see connull's doc).
//
// To suppress a report, put
//
//	//precog:ignore con-closed <reason>
//
// on the reported line or the line above, or //nolint:precog.
package conclosed
