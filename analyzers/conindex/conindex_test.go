package conindex_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/precog-dev/precog/analyzers/conindex"
)

// The check's kernels of the corpus, and the static negative controls, are
// analyzers/suite's TestKernels: it runs every check over the whole corpus.

// TestFixtures runs the check's fixtures in one analysistest run:
//   - ring: an index reduced into range where it is used is not reported,
//     beside near misses that are;
//   - striped: shards guarded by the elements of an array of mutexes hold
//     that lock; a writer that takes none is reported;
//   - batchflag: a cache replaced and indexed only under a try-lock made
//     of an atomic flag, handed to the goroutine that runs the batch, is
//     not reported; the same with the flag cleared elsewhere is;
//   - lockedjoin: goroutines started and waited for under a lock, by two
//     sections of it, edit a link's stages apart: not reported; an unlock
//     before the Wait, the starter's own edit, or two goroutines of one
//     section are;
//   - handedturn: a goroutine's loop makes a block each turn through an
//     exported constructor that hands nil to the method that allocates,
//     sizes it through an exported method that retries on its receiver,
//     and hands it to a goroutine that closes it (lz4's reader): not
//     reported; one block read every turn, or a constructor that may
//     return a cached block, is;
//   - selfbound: two pollers, each keeping in a field a method value bound
//     to itself (netpoll's poll.Reset = poll.reset), each resized through
//     that field by its own goroutine: not reported; a field bound to
//     another poller, or a poller copied whole, is.
//   - checkedlen: an unsigned index read once and compared with the
//     slice's length before it is used (a grow loop, a branch) is not
//     reported; a signed index, the index read again, a check a path goes
//     around, another slice's length, the out-of-range side, or the slice
//     replaced unlocked after the check is.
//   - splitlen: a slice's length taken in one critical section and the
//     slice indexed with it in the next is reported against a truncation
//     between them; the two in one section, or a check against the length
//     anew in the second, are not.
//   - localcell: a captured local variable written and used by the
//     function that declares it, which also runs on a worker pool's
//     goroutines, is each invocation's own: not reported; a closure the
//     pool runs that writes it too is.
//   - nilcallback: a callback parameter called under a lock, given
//     closures by the loop goroutine and nil by an API any goroutine calls:
//     the closures run on the loop alone, not reported; a closure passed
//     by another goroutine is.
//   - callerfresh: a test helper fills a new agent's steps, then calls the
//     method that starts the agent's goroutine (directly, or one call
//     further down), which indexes them; two tests run the helper: each
//     run fills its own agent before its goroutine starts, not reported;
//     the steps filled after the call, a package-level agent filled by
//     every run, or one agent filled and started in each turn of a loop
//     are.
//   - freshcalls: a client's send fills and reads its files, then starts
//     the goroutines that replace them; several tests each make a client
//     (a composite literal, a constructor, one that may return nil with
//     an error) and send on it once, directly, from a goroutine of their
//     own or with a go statement, or fill a new agent themselves before
//     they start it: each call has its own object, not reported, also
//     when the goroutine's entry hands its receiver to a closure and the
//     replacement is five calls down. A package-level client two tests
//     send on, a constructor handing out a cached client, one client sent
//     on by two goroutines or in each turn of a loop, and the files
//     filled after the go statement are.
//   - modring: ring buffers whose position every put stores as `(pos +
//     1) % len(buf)` (or % a field the literal sets to the buffer's
//     length), the buffer set only when the ring is built, read after
//     the put's own store or starting from 0: not reported; a buffer
//     appended to, no remainder, a remainder by another size or of a
//     signed parameter, another buffer indexed, a read that may see the
//     start of -1, or a start of -2 are.
//   - seqmod: a sequence number written concurrently, reduced where it is
//     read by a field the constructor sets to the table's length (also
//     from an options field it reads twice, unchanged between): silent
//     when the number is unsigned or widened from a narrower unsigned
//     type; a signed number, a uint64 converted to int, a field that is
//     not the length and a length changed between the make and the
//     field are reported.
func TestFixtures(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), conindex.Analyzer, "ring", "striped", "batchflag", "lockedjoin", "handedturn", "selfbound", "checkedlen", "splitlen", "localcell", "nilcallback", "callerfresh", "freshcalls", "modring", "freshinit", "seqmod")
}
