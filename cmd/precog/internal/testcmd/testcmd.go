// Package testcmd implements "precog test": instrument a module's packages,
// record each top-level test (several times under perturbation with -runs),
// predict the concurrency bugs another interleaving of the recorded runs
// would bring out, and report them as text, JSON lines or SARIF 2.1.0. The
// work is done by pipeline/predict; this package turns flags into its
// options and prints progress, findings and the summary.
package testcmd

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/precog-dev/precog/analyzers/suite"
	"github.com/precog-dev/precog/cmd/precog/internal/cli"
	"github.com/precog-dev/precog/cmd/precog/internal/report"
	"github.com/precog-dev/precog/cmd/precog/internal/results"
	"github.com/precog-dev/precog/detect/conmem"
	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/detect/oscs"
	"github.com/precog-dev/precog/internal/sarif"
	"github.com/precog-dev/precog/pipeline/predict"
	"github.com/precog-dev/precog/pipeline/record"
	"github.com/precog-dev/precog/shim/trace"
	"golang.org/x/tools/go/analysis"
)

const doc = `Test runs the tests of the packages instrumented, as "precog record" does,
and predicts the concurrency bugs that another interleaving of the recorded
runs would bring out, even though no run crashed: a nil stored by one
goroutine and dereferenced by another (con-null; also through an
atomic.Pointer's or atomic.Value's Load, or a sync.Map's Load after
another goroutine's Delete), a read that may come
before another goroutine's initialization (con-uninit; also an
atomic.Pointer's Load before its first Store), a use of a channel
or object another goroutine releases (con-closed), an index another
goroutine changes (con-index), a map written concurrently (con-map), a
critical-section pair that another goroutine's section can split (oscs),
the access patterns that come with failing runs (unicorn-p1 to
unicorn-p17, with -runs), and data races (race: accesses of different
goroutines to one location, one a write, that happens-before does not
order, as go test -race reports them, whether or not the accesses ran
close together; -races=false turns them off).

OSCS leaves out a pair of two whole operations of a structure locked once
per call (each section reads and leaves the state consistent), and takes
a function that locks twice for two whole operations against another
goroutine's section that changes nothing the first section hands to the
second: the second only adds to counters it reads and writes, or reads
again what the first only checked (a pool that checks it is open, builds
a resource unlocked and checks again before adding it), or the other
section neither writes what the first read or wrote nor reads what it
wrote. A callee that lets its caller's lock go around a callback and
takes it again splits the caller's call into two sections judged the
same way. A write and a read stay out too when the writer, past its
Unlock, wakes the reader (a send on the channel an event loop waits on)
and the reader's woken pass reads the location again at the same Lock
site. A caller's second call, which may act on what
the first returned, stays reported when a function outside _test.go
files calls the two operations on one object in that order (the
instrumenter finds those functions); a test's loop calling Set then Get
is whole operations, unless library code makes the same two calls
(a loop of the second call, as At(i) below the Len read first, is
judged by the call before the loop). OSCS also leaves out two writes
of an item's position by the Swap, Push or Pop of a type that
implements container/heap.Interface (each heap operation leaves it in
step with the heap's order), a read that
follows its own section's write of the location, and a pair whose one
section began before the other's access by synchronization (a goroutine
or time.AfterFunc callback started inside its creator's section of the
same lock): that section always runs first ("go doc
github.com/precog-dev/precog/detect/oscs" has the rules and what they
hide).

A test that fails in a recorded run fails precog test as it fails go
test: the failure is a finding of its own, confirmed since it happened,
at the site read from the test's output. Recording slows a test down
several times, which alone can fail a test that depends on timing: so
a failure that only the unperturbed recorded run (or CFP's cheap run)
showed is confirmed when the test, run again as go test builds it
(without precog's instrumentation, which alone changes what a test that
counts allocations or reads runtime.Caller's lines sees), fails too, and is not-confirmed after two such
runs pass (with -validate=false it stays confirmed). One that fails
alone again, but passes when its package's tests run together in one
process, as go test runs them, needs what another test sets up: it is
not-confirmed, which says so. A panic, a fatal runtime error
(concurrent map writes) or a -timeout is kind crash, at the innermost
frame of the user's code in the stack of the goroutine that panicked (or,
for a timeout, that ran the test, with where the other goroutines were
stuck); a t.Error or t.Fatal, or an exit with no message, is kind
test-failed, at the line that reported it (a Ginkgo suite's: its first
failed spec, named, at the failed assertion). A finding predicted from the
failing run's trace at the crash's site, with the effect its kind names
(con-map at a concurrent map write), whose order the trace shows before
the crash (the interleaving validation would force: each step before the
next, as the sync events around them place them), is the same bug: it is
reported once, confirmed by the run. Where the trace does not show that
order, the crash came by another path, and the finding is validated as
any other. The reproducer of a failure of the unperturbed run
is the go test command that runs the test again.

Each top-level test runs in a process of its own. With -runs N it runs N
times: once as is, then N-1 times perturbed, so that the runs take
different interleavings and some may fail; Unicorn ranks the access
patterns of the failing runs against the passing ones. -perturb chooses
how. random delays or yields goroutines at instrumented points with a
different seed each run (the shim's perturb mode). Random delays rarely
reverse two goroutines that are milliseconds apart, so the default,
targeted, first reads the first run: the pairs of conflicting accesses of
two goroutines to one location that it shows in an order no order
synchronization forces (ordered by a mutex or by timing alone, not by a
channel, WaitGroup, Once or go statement), one per pair of sites, the
pairs whose order the trace knows first and the farthest apart first (the
trace only guesses the order of plain accesses of two goroutines with no
sync event between them: such a pair comes after, once for each guess).
Each of the next runs forces one pair the other way round (the shim holds
the first access's goroutine, before its critical section if it is in one,
until the other goroutine's access has run; each wait is bounded by 500ms,
the run by three times the first run's time plus a few seconds, all
targeted runs together by -perturb-budget); the runs left over are
random's. A targeted run that failed while its order was not followed (a
wait gave up) is not analysed: the wait may have made it fail. off runs
the test again unperturbed.

The traces go to a temporary directory removed at the end (or, after a
SIGKILL, by the next precog an hour later), or to -o DIR, which must be
new, empty, or a directory an earlier record or test wrote (marked by its
precog-output file); any other directory is refused before any work.

In a package with more than one test, detection is guided by concurrent
function pairs (CFP; see "precog help cover"): every test of the package
first runs once cheaply, recording function entries and exits and
synchronization only; then only the tests that together cover the pairs
of the package run with detection, each recording the memory accesses of
the functions it was selected for (and of the test code). A test that
failed in its cheap run runs with detection in full, selected or not, and
its failure is a confirmed finding even if only the cheap run failed, or
if -record-budget ran out before it was recorded again. The same bug found by many tests is then reported by fewer of them, in less
time; the summary says how many tests and functions were selected.
-cfp=false runs detection on every test.

The go test flags below are passed on to the builds and to every test
binary; -run and -skip choose which top-level tests run.

Validation

Each finding is first predicted: no run showed it, some interleaving of a
recorded run would. Then, unless -validate=false, precog test confirms it
the way ConMem-v does: it takes a recorded run that exposed the finding,
runs that test again with the shim holding its goroutines at the finding's
sites until they come in the predicted order (the nil store just before the
dereference, the read before the initialization, the close before the
send, the write between a bound's check and the index, two map accesses
released at the same instant, the critical sections the other way round,
a Unicorn pattern's accesses in its failing run's order), and watches for
the effect. The finding is

	confirmed      the test failed with the effect the kind names (a nil
	               dereference, a send on a closed channel, an index out of
	               range, a negative WaitGroup counter, ...) at a predicted
	               site or in a call made there, after the steps the order
	               puts first had happened; or, for con-uninit, oscs
	               and unicorn, whose effect is a wrong value, the test
	               failed or hung under the forced order where its recorded
	               run passed, failed again, passed with the other order of
	               the same steps forced (Unicorn: passed twice without a
	               plan), and no goroutine was held back over 25ms (a test
	               with a TTL or a sleep fails from such a wait alone); or
	               the test failed with the kind's runtime error in its
	               failure message (a panic it recovered and reported),
	               under the same checks; for a data race, its two
	               accesses were held at once (each stopped until the
	               other came, then let go together) and ran adjacent in
	               both orders in forced runs (failing or not), each time
	               on one address in one GC epoch, as the shim saw them
	not-confirmed  the forced order held and nothing failed as predicted;
	               for a data race, also: an order held only with its two
	               accesses on different memory, while another of its
	               orders held on one address, or a run held without
	               saying what memory they touched, or a run crashed at a
	               site (the crash is no proof of this race, but it is a
	               failure to see)
	diverged       the run could not follow the order: the reason names the
	               step that never came (synchronization the analysis missed),
	               or the crash that came before it (the forced run took
	               another path: a worker held out of the order found no work)
	timed-out      a forced run, or -validate-budget, ran out of time
	apart          a data race whose every forced run that held an order
	               ran its two accesses on different memory (two addresses,
	               or one address in two GC epochs): the recording paired
	               two objects at one address, one freed and a new one
	               allocated there (a fresh per-call struct), almost always
	               a false prediction; the reason gives both addresses. The text
	               output leaves it out (see Output); it never fails the
	               job. Any other verdict, from another witness or another
	               shard, wins over it
	predicted      not validated: no recorded run names its events

A con-map finding is forced up to 20 times: Go reports concurrent map
accesses only when they really overlap, which the forced release makes
possible, not certain (its reproducer also retries up to 20 times).

An order that diverges is forced again twice, perturbed with the seeds 1
and 2 (yields and sleeps of up to 200µs at the run's other sync
operations), so that the retries take other interleavings; the seeds
tried are in the finding's validation ("seeds").

Forced runs are bounded: each wait (1s), the waits of a run (5s), each run
(three times its recorded time and some slack; once its recorded time if
-record-budget stopped it), and the whole validation (-validate-budget).
Up to -p test processes run at once, in recording too: -p packages are
recorded side by side, each one test process at a time, as go test -p
runs packages (two tests of one package may share a port or a file). A
confirmed finding gets a reproducer: a schedule file in the repro
directory of -o DIR (of precog's cache without -o) and a command,
"precog repro [-o DIR] ID", that makes the test fail the same way again. A test that failed by itself
in its recorded run gets a hint line in the text output: the "precog
explain -run TestX PACKAGE" command that looks for its root cause, after
what its output shows of the environment if it shows a refused
connection, a missing Unix socket, a DNS failure, an unreachable network,
a missing program, an unset environment variable or no Docker
(the finding's validation says it too, "environment"): the test needs a
server, the network, a program or a setting this machine lacks. It stays a
confirmed finding, since the test fails as under go test. One that
fails alone but passes with its package's other tests (not-confirmed,
"alone" in its validation) gets a line saying so instead, and so does one
that failed only when recorded (not-confirmed: it passed without
recording). More than two tests of a package with the same hint share
its line. One more line
reminds that each test ran alone, where a test that needs another's setup
fails. Findings with a goroutine that code precog did not instrument
started get a hint line naming what started it, from the goroutine's
"created by" line and its creators' stacks: a dependency's package,
with the -instrument-deps pattern that records its go statements; or a
standard library package, whose go statements no flag records, with the
dependency whose call reached it, if one did, and the pattern that
records that call.

Dependencies' goroutines

Only the module's own packages are instrumented (and those
-instrument-deps names). A goroutine that a dependency's go statement
started is in the trace without its start and the joins of it, so what
the dependency orders through it (a span processor that runs the
exporter's Shutdown in a goroutine and waits for it to end,
singleflight's DoChan) reads as unordered, and races and con-* findings
come out between accesses it orders. So, after detection, the tests of
the findings with such a goroutine (started by a dependency, or by the
standard library when a dependency called into it, which the
dependency's instrumented calls order) are recorded again, as many runs
each, with those dependencies instrumented too (the pattern the hint
would print, added to -instrument-deps): only their packages are built
again and only those tests run, with every shared access recorded (no
CFP selection). The findings of the new traces for those tests replace
the first recording's: one that the dependency orders goes, one that
remains or is new is validated as the others (from the second
recording's build; its reproducer instruments the dependency too). A
test's failure and a finding a recorded run confirmed stay the first
recording's. The packages that need the same dependencies are recorded
again together, apart from those that need others, the cheapest first
(fewer dependencies, then fewer tests), so that a dependency whose
build is long costs only the tests that need it. One line on stderr per
such group says what the pass did:

	re-recorded 9 tests of 1 package with go.opentelemetry.io/otel/sdk/trace instrumented: 17 findings -> 0 (gone: 5018654e2f9b, 04e5de4f6356, 9acd0866d785 and 14 more)

naming by ID the first three findings that went away, and the hints name
only what remains. When a dependency cannot be
instrumented or its build fails, or a group does not finish in its time
(the pass's time is what is left of -deadline less what validation is
reckoned to need, or without -deadline what the first recording left
of -record-budget, at least 2m; each group gets what is left of it
divided by the groups not yet run), the first recording's findings of that group's
tests stand, and its line says why. With -o DIR the second recording is
in DIR/.deps-rerun (DIR/.deps-rerun/N for the Nth of several groups).
-deps-rerun=false turns the pass off.

testing/synctest bubbles

Inside a synctest.Test (or synctest.Run) bubble time is virtual: the
bubble's clock advances only when all its goroutines are durably
blocked, so what a bubble goroutine did before it blocked at virtual
time s happens before everything a goroutine of the bubble does once the
clock has reached a later time, in every run. precog test records the
bubble (from the function, literal or value, passed to synctest.Test or
Run, and the goroutines its go statements start) and the virtual time
where it can move: at each time.Sleep's call and return, and, in bubble
goroutines only, just before a channel operation, select,
WaitGroup.Wait, Cond.Wait or the goroutine's end, and just after one
returned later than it blocked. Timers, tickers, time.After and context
deadlines fire by waking a receive, so they order the same way: a nil
store one virtual second after a read is not reported, while two
goroutines woken at the same virtual time stay unordered. synctest.Wait
returns after every other goroutine of the bubble is durably blocked:
what they did before it happens before its return. A time.AfterFunc
callback's goroutine is a goroutine of the bubble, woken when its timer
fired (a second run of the callback, after Reset, is not known to be the
bubble's and stays unordered: more reports, never fewer). Outside
bubbles none of this orders anything: real time orders nothing; a
time.AfterFunc callback's first run is still ordered after what its
creator did before the AfterFunc call (its goroutine's fork). Forcing
and perturbing never let the bubble's clock advance: a goroutine held at
a gate, or delayed, in a bubble yields, then sleeps in a system call,
instead of blocking, so it is not durably blocked (the goroutine a
time.AfterFunc timer starts is held like any other); an order that needs
virtual time to pass while it is held gives up and is diverged (the
reason names the bubble), and a forced select in a bubble is refused
(diverged). precog vet does not know bubbles: it still reports a store
ordered by virtual time as con-null (a known false-positive shape, in
the connull analyzer's documentation).

Static candidates

With -vet, precog test also runs precog vet's checks on the packages (in
the instrumenter's own analysis: the packages are loaded and analysed
once), records every access on the lines of their diagnostics' sites
whatever the shared-location analysis and CFP's selection would drop (and,
in a package that holds a diagnostic, runs every test, those CFP did not
select recording only those sites), and takes each diagnostic to the
runs: a run reaches it when it ran the diagnostic's two sites (the nil
store and the dereference, the close and the send, ...) on one object from
two goroutines. Such a diagnostic is validated like a predicted finding,
from that run, and reported confirmed (with its reproducer),
not-confirmed, diverged or timed-out; one no run reached is

	not-reached    no recorded run ran its sites on one object from two
	               goroutines; the reason names the site no run ran

and one whose check names only where it reports (a use after Reset, a
range over a map, a t.Log after the test) stays static. A diagnostic with
the ID of a runtime finding is that finding (a note says precog vet
reports it too). The summary adds a line counting the diagnostics by
status.

Output

Each finding is one line on stdout, confirmed findings first (among
them, and among the rest, the recorded runs' failures first and data
races last), except those set apart, which are left out, with a line on
stderr after the summary saying how many (-show-apart prints them, after
the others): data races of status apart (above: false predictions), and
OSCS pairs that validation ran in the other orders without the test
failing (not confirmed: an OSCS pair is a bug only through what the
order changes, and the test saw nothing change) or could not force
(diverged, timed out); -json, -sarif and -ci list both; then one indented line
per piece of evidence, hop by hop: the go statement that started each side's goroutine,
each site with the locks held there, notes, the tests that exposed it,
its ID and status with what validation saw, and the command that
reproduces a confirmed finding:

	file:line:col: kind: message
		file:line:col: what happened there

File names are relative to the current directory when they are under it.
The same bug found by many tests (or runs) is one finding. The findings of
one kind reported at one line (TestMain's write of a global against the
reads of several functions; the stores of one statement, each at a column
of its own) are one block of the text: the one with the strongest status,
then a line "also at this site" for each of the others (naming its own
position when it is at another column), each still a finding of its own
(its ID, status and evidence; -json and -sarif list each). A summary
goes to stderr: findings (and at how many sites, when fewer), reports
(one per test per finding) and the duplication rate (reports over
findings), tests, runs and failed runs (and how many
runs were targeted and reversed their pair), after one line
per test whose runs failed, saying how many and how (fail, panic, fatal,
timeout, exit); then the findings confirmed, not confirmed, diverged, timed
out, apart and not validated (those the text left out are counted), and the
time validation took.

With -json, each finding is instead one JSON object on a line of its own,
with id (stable: a hash of the kind and the sites' positions and roles,
the ID precog vet gives the static finding of the same bug), kind, status
(confirmed, not-confirmed, diverged, timed-out, apart or predicted; with -vet,
not-reached or static for a diagnostic), validation
(effect, reason, test, runs, and order: the interleaving the deciding
forced run was held to, in words and as edges between the witness's
events), repro (the reproducer's command, for a
confirmed finding), message, sites (file: absolute path, line, col, role, expr,
function), spawns, stacks, evidence (locks, clocks, suspiciousness), tests
("importpath.TestName"), reports and, for a finding the text shows under
another's, sameAs (that one's id). Only findings (and, as text, the
hints about them) go to stdout; the summary, with its "not tested:" lines
and notes, always goes to stderr, whether or not there are findings.

With -sarif FILE, test also writes a SARIF 2.1.0 log to FILE, or to stdout
in place of the findings if FILE is "-": every finding, each a result of
level error but those set apart, which are of level note (kept, under
their IDs, so that code scanning matches an alert raised while one was
predicted).

With -html FILE, test also writes an HTML report to FILE: one
self-contained page (inline style and pictures, no script, nothing
fetched) with the summary, then each finding, confirmed ones first (those of status apart
last, in a section closed until opened, and not in the list at the top), with
its status and what validation saw, its reproducer, a timeline of its
goroutines with the order validation forced between its events (or, not
validated, the order it would force), the goroutines' stacks side by side
(with -funcs) and each site in its source, read when the report is
written: a file that is gone, or changed since the run started, is said
to be.

A trace larger than -max-trace, in bytes or in events (one counts as 8
bytes: a trace of -max-trace MiB of denser events, 3 to 5 bytes each on
disk, would take twice the memory or more), gets the streamed checkers:
the data race checker with the test lifetime check on its walk (with
-races=false, the test lifetime check alone), then ConMem's con-null,
con-uninit, con-closed, con-index and con-map, each walk reading the
events in order, in memory bounded by the goroutines, sync objects and
locations of the run (at most 2^20 locations keep the race checker's
accesses, 2^18 ConMem's; past that the oldest are dropped and counted),
not by its length. OSCS holds its trace in memory: it runs on the trace's
first events, as many as fit in -max-trace in bytes and in events (a
prefix of the run, as a recording stopped by -max-record is; its findings
after them are missed). For a test of
several runs Unicorn collects the run's patterns on the same first events;
its ranking counts such a run as lacking a pattern it did not show there if
it failed and as having it if it passed, so a score is the lowest the cut
runs allow, and reports a top group only if no other pattern could score
above it. A note on stderr (and in -json's notes, with "streamed"
counting such runs) says what ran and how far. Happens-before looks 65,536 events ahead for a
send's receive, a receive's send and an atomic load's store; a goroutine
whose match comes later is marked unsettled and the findings at its events
are withheld, and counted in the note. Such a run is not skipped for
-max-goroutines: its streams stop at the goroutine past the limit, and the
findings made before it are reported, with a note.
The tests with such a run are analysed after all the others, so that a
budget or a share of -deadline is spent on the tests within the limit
first. CFP's cheap run measures no coverage on a trace over -max-trace, so its
recording stops there (the test runs on), with a note; nor on one of more than
5,000,000 events (about 0.77 GiB of precog's memory to measure), also with a
note, and the test is then recorded in full.

A recorded run's trace file stops growing at -max-record (1024 MiB): the
shim stops writing it there and the test runs on to its end unrecorded.
Detection analyses the events recorded before the stop, a consistent
prefix of the run (every goroutine's events up to one point of the
order), with a note; the rest of the run is not analysed.

The analysis of one run's trace, reading included, is bounded by
-max-trace-time (2m; the lesser of the wall time and precog's CPU time,
so that a loaded machine does not stop it early): a streamed check
stops at the event where the time is spent (and the streamed checks after
it do not run), the in-memory checkers
between two of them (one begun runs to its end). The findings made before
stand; a note says how far the stream got (events of the trace, in
percent) or which checkers did not run, and the summary counts such runs.
The whole detection is bounded by -detect-budget (10m, measured the same
way): once it is spent, the runs not yet analysed are not (the summary
counts them as not analysed, and one note says how many), while the
failures of their tests, read from their output, are still reported.
The recording is bounded by -record-budget (10m of wall time from the
first test's start, CFP's cheap run included: it may spend half, and the
guided runs keep the other half even when the cheap run, whose coverage
analysis the budget does not stop, ends later; they record in full the
tests it did not reach and those it stopped, after their package's other
tests). In the cheap run each test may take its part of what is left of
its half (that time over the tests not yet started, times -p), but at
least a sixteenth of the half and at least 5s: a test still running
then is stopped (no coverage), so that one long or blocked test does not
take the others' turn. Once the budget is spent, no test
process starts. A test still running
30s after it is stopped as -timeout stops a test (its -test.timeout is
cut to that time, so the testing package panics and prints every
goroutine's stack into its log; a process still running 30s later is
killed, with its process group); it counts as recorded up to there, its
trace is analysed as a timed-out test's, and a note says where its
goroutine was. It is no failure, unless the stacks show a deadlock: the
test's goroutine blocked in a channel or sync operation and every other
goroutine of its code in one too or in a select, none running or
asleep. Then it is a hang (kind crash), as go test would report it at
its own -timeout, and validation runs the test again as go test builds
it, for as long as it was recorded plus 10s: a run that times out again
confirms it, two that pass make it not-confirmed. The tests not run are not analysed; the
summary counts them as not recorded and the stopped ones as stopped, and
one note says how many. So a nightly job with the defaults spends, after
building, at most about 11 minutes recording, 10 detecting and 10
validating.

-deadline d bounds the whole run in wall time, for a job whose CI step
is killed at a time limit: the budgets above count the lesser of wall
and processor time, so on a loaded machine they end later in wall time
than they say, and the build is in none of them. With it the test
binaries are built first, in at most half of the time left (a build
still running then is stopped, and the packages linked by then are
recorded; if a tenth of d is left when their validation ends, a second
round builds, records, analyses and validates the others with the time
left, its build in half of it, and so on, a round that links none going
straight on to the next; a package still not linked gets a "not tested:"
line and makes the exit status 1, as a package that does not build), and
then each stage, as it begins, gets a
share of the time left then, within its own budget: recording two
fifths, less the time a test it stops may run on (30s, or a quarter of
the two fifths if that is less); detection half of what
is left then, in wall time; validation the rest (without validation:
recording half, detection the rest). When recording's share is spent
with tests not yet started, recording goes on (in steps, reckoned again
with the events recorded meanwhile) while the time left still covers
what detection and validation are reckoned to need: an eighth of d, at
least 30s (a tenth, at least 15s, without validation), and 80µs an event
recorded; the note on the tests not run says how much more it took. The last twentieth of d (at most
30s) is kept for writing the results. At the end of detection's share
the runs not analysed are counted, with a note, their failures still
reported, and a test whose analysis has not stopped 3s later is
abandoned. At d, whatever still runs (a stage that overran) stops as at
SIGTERM: the results so far are written, with the summary's "partial
results:" line, and the exit status is 3 for confirmed findings, else 1.
For a CI step killed at 30 minutes, -deadline 28m.

A trace whose test process died (a crash, a kill, a timeout) holds every
event up to the death and is analysed whole. A trace cut short (its file
lost its end) or otherwise damaged is analysed up to the cut or damage,
with one line on stderr per test saying what was lost.

Interrupted (SIGINT, Ctrl-C, or SIGTERM, as timeout and CI cancellation
send, or SIGQUIT, after which it first writes its goroutines' stacks as
Go does), precog test stops the test processes it runs (their process
groups: SIGINT, then SIGKILL two seconds later), removes its temporary
directories, keeps in -o DIR what was recorded so far with an index.json
that marks the interrupted tests, prints one line saying so (and,
without -deadline, what -deadline would have left) and exits 130
(SIGINT), 131 (SIGQUIT) or 143 (SIGTERM). Interrupted once detection has
begun, it first prints the findings made so far and writes them to -ci
DIR, as a finished run's, with the summary's "partial results:" line and
a note saying what was left out (the tests not analysed, or the findings
not validated, which are timed out). A second signal (the same one again
within 100ms is the same request: GNU timeout sends it to precog and then
to its process group), or work that has not stopped 10s after the first,
ends it at once, its temporary directory removed. That directory holds every temporary file of precog,
of the go commands it runs and of the tests (their TMPDIR).

The instrumented copies of the packages go into precog's cache (-cache),
with the types and facts of the dependencies the analysis behind the
instrumentation needs (standard library included), and the test binaries of
the last build of each module directory, so that the next run analyses and
links only the packages whose code, or whose dependencies' code, changed;
deleting the cache removes everything precog added. precog never writes into
the module's own files.

Internal errors

A checker that panics on a trace is reported on stderr as "internal error:"
with the stack; the other checkers' findings still appear. They are precog
bugs: please report them.

Nightly jobs

-ci DIR writes the results directory of a nightly job (new, empty, or one
an earlier -ci wrote): findings.jsonl (the findings as -json prints
them), findings.sarif (SARIF 2.1.0, for code scanning), summary.json and
summary.txt (the totals and statuses on stderr, the baseline's verdict and
the exit status), tests.json (each test that ran, with its time, outcome
and events), and repro/, the schedule of each confirmed finding with
repro/commands.txt listing the "precog repro -o DIR ID" that replays it,
and report.html, the report -html writes. A run that ends in an error
before it has results (no package builds) still writes the directory:
the summary has the error ("error" in summary.json) and exit status 1,
the SARIF run is marked unsuccessful.
The traces are not part of it: -o keeps them elsewhere.

Progress: on a terminal a status line shows what runs. When stderr is not
a terminal (a CI log), a plain progress line comes every 30s, as vet's
does: tests recorded, events, findings so far, findings validated and
the time left of -validate-budget (or of validation's share of
-deadline); -progress sets the period (0: none).

-baseline FILE lists accepted finding IDs, one per line; anything after
the ID, blank lines and lines starting with # are comments.
-write-baseline FILE writes one that accepts every finding of the run, a
line each with its kind, status, place and message. With a baseline,
its findings are still reported, marked "baselined" (text), "baselined":
true (JSON) and baselineState "unchanged" (SARIF, where the others are
"new"), but do not change the exit status: the job fails only on new
confirmed findings. IDs are stable across runs and machines (see -json).

-shard i/n runs shard i of n: a deterministic share of the top-level
tests of all the packages, so that n CI machines run each test once;
"precog merge -o DIR DIR1 DIR2 ..." joins their -ci directories into the
one an unsharded run would have written. With CFP guidance (the default)
the tests of a package that has more than one stay in one shard, since
CFP selects among them together. The shares are balanced by the test
times of an earlier run's results directory, -shard-times DIR (or the -ci
DIR's own, from the last run into it), longest first onto the least
loaded shard; tests it does not know, or all without times, are placed
by a hash of their names. Every shard instruments and builds every
package: the split saves the runs, not the builds.

Exit status

	0  no confirmed findings; with -fail-on=predicted, no findings at
	   all but those set apart; with -fail-on=forced, none that a
	   forced order confirmed; with -baseline, none outside the
	   baseline
	3  confirmed findings (with -fail-on=predicted: any findings but
	   those set apart; with
	   -fail-on=forced: those a forced order confirmed) that
	   the baseline does not list, including when internal errors came
	   with them; a test that failed, panicked, died or timed out in a
	   recorded run is one (but with -fail-on=forced); also when
	   -deadline stopped the run
	2  a bad command line: an unknown flag or a flag value out of range
	   (-runs, as the go command); or bad input to the nightly job's
	   flags: a malformed -shard, a baseline file that does not exist or
	   has a line that is not an ID, a -ci directory that holds other
	   files
	1  an error: an output directory that holds other files, or
	   internal errors and no findings; or a package that does not
	   build and no confirmed findings: as go test, precog test
	   leaves out a package whose tests do not build
	   (it, or a package they import, fails to load or type-check),
	   tests the others, and says so on stderr, a "not tested:" line
	   with the first error for each; when none builds, that line is
	   the only output; the same for a package whose test binary
	   fails to list its tests (a TestMain that exits for want of its
	   environment), or whose test binary the build's share of
	   -deadline did not link; or -deadline stopped the run (no
	   confirmed findings so far)
	130, 131, 143  interrupted by SIGINT, SIGQUIT, SIGTERM

The default, -fail-on=confirmed, fails a nightly job on facts only: a
prediction that validation could not confirm is printed but does not
change the exit status; one set apart (apart) never does, whatever
-fail-on says. With -validate=false nothing is confirmed; use
-fail-on=predicted there to fail on predictions. -fail-on=forced fails
it only on findings that a forced order confirmed: a test that failed by
itself (a crash or test-failed finding, confirmed since it fails
unrecorded too) is still reported but does not change the exit status,
for a job whose go test step already fails on it.
`

// Command returns the "test" command.
func Command() *cli.Command {
	return &cli.Command{
		Name:    "test",
		Args:    "[go test flags] [packages] [-args test arguments]",
		Summary: "run tests instrumented and report the concurrency bugs they could hit",
		Doc:     doc,
		Define: func(fs *flag.FlagSet) cli.Runner {
			var o options
			fs.StringVar(&o.dir, "C", "", "change to `dir` before doing anything else")
			fs.StringVar(&o.out, "o", "", "keep the traces and index.json in `dir` (default: a temporary directory, removed)")
			fs.IntVar(&o.runs, "runs", 1, fmt.Sprintf("record each test `n` times, runs after the first under perturbation (1 to %d)", predict.MaxRuns))
			fs.Uint64Var(&o.seed, "seed", 0, "base `seed` of the perturbation: run i uses seed+i")
			o.perturb = predict.Targeted
			fs.Func("perturb", "how the runs after the first are perturbed: `mode` targeted (reverse, one run each, the pairs of accesses the first run showed in an order no synchronization forced, then random), random (seeded random delays and yields) or off (default targeted)", func(v string) error {
				if !slices.Contains(predict.PerturbModes, v) {
					return fmt.Errorf("want %s", strings.Join(predict.PerturbModes, ", "))
				}
				o.perturb = v
				return nil
			})
			fs.DurationVar(&o.perturbBudget, "perturb-budget", predict.DefaultTargetedBudget, "bound the targeted runs of all tests together to `d`; the runs after it are random")
			fs.BoolVar(&o.json, "json", false, "print findings as JSON lines instead of text")
			fs.BoolVar(&o.showApart, "show-apart", false, "also print, last, the findings that validation set apart, which the text output leaves out: data races whose forced runs touched different memory each time (status apart), and OSCS pairs that validation ran in the other orders without the test failing (not confirmed) or could not force (diverged, timed out)")
			fs.StringVar(&o.sarif, "sarif", "", "also write a SARIF 2.1.0 log to `file` (\"-\" for stdout, replacing the findings)")
			fs.StringVar(&o.html, "html", "", "also write an HTML report to `file`: each finding with its status, reproducer, a timeline of the forced or predicted order, the goroutines' stacks and the sites in their source")
			fs.BoolVar(&o.all, "all", false, "record every heap and global access, not only the locations the static analysis finds shared")
			fs.StringVar(&o.deps, "instrument-deps", "", "also instrument the dependencies matching the package `pattern`: import paths, comma-separated, each possibly ending in /..., each matching a package the tests build (a usage error if not); instrumented through copies in the cache")
			fs.BoolVar(&o.depsRerun, "deps-rerun", true, "record again, with the dependency instrumented too, the tests of the findings that have a goroutine a dependency started (or whose call into the standard library started it), and report the new recording's findings for those tests (see Dependencies' goroutines)")
			fs.BoolVar(&o.funcs, "funcs", false, "record function entries and exits, for the call stacks of findings")
			fs.BoolVar(&o.cfp, "cfp", true, "in packages with more than one test, detect only in the tests and functions that cover the concurrent function pairs of a cheap run (see precog help cover); false runs full detection on every test")
			fs.BoolVar(&o.spin, "spinloops", true, "ConMem and OSCS: take a loop left on a value another goroutine wrote as ordering synchronization (ConMem section 4.6)")
			fs.BoolVar(&o.hwNote, "hwnote", true, "OSCS: note on each finding whether the paper's always-on hardware (precog hwreplay's model) would have caught it")
			fs.BoolVar(&o.races, "races", true, "report data races (kind race): accesses of different goroutines to one location, one a write, that happens-before does not order")
			fs.BoolVar(&o.condFlags, "condflags", true, "OSCS: take a flag awaited under a sync.Cond as ordering synchronization (false: the paper's Fig. 12 false positives)")
			fs.Func("oscs", "OSCS `algorithm`: opt (the default: two recent accesses per location) or base (per goroutine history)", func(v string) error {
				switch v {
				case "opt":
					o.oscs = oscs.Opt
				case "base":
					o.oscs = oscs.Base
				default:
					return fmt.Errorf("want opt or base")
				}
				return nil
			})
			fs.IntVar(&o.maxGoroutines, "max-goroutines", predict.DefaultMaxGoroutines, "skip, with a note, the runs that started more than `n` goroutines (0: no limit; a run streamed for -max-trace stops at the goroutine past it instead); the happens-before clocks' memory grows with the goroutines that communicate (198,766: 1.5 GiB for the trace and one graph), their time faster (minutes for 100,000)")
			fs.Int64Var(&o.maxTrace, "max-trace", predict.DefaultMaxTraceBytes>>20, "run the streamed checkers (the data race checker, the test lifetime check, ConMem's con-null, con-uninit, con-closed, con-index and con-map) in bounded memory, then OSCS and Unicorn (its patterns, for a test of several runs) on the trace's first `MiB` megabytes, with a note, on the runs whose trace is larger than that or has more events than MiB megabytes at 8 bytes an event (0: no limit); the other checkers hold the whole trace: precog test's peak memory has measured about 35 times the largest trace they analysed, and up to about 48 times on a trace made mostly of channel operations (an iterator that sends each element on a channel)")
			fs.Int64Var(&o.maxRecord, "max-record", predict.DefaultMaxRecordBytes>>20, "stop writing a recorded run's trace when it reaches `MiB` megabytes, with a note: the test runs on unrecorded, and the events before the stop are analysed (0: no limit); the streamed checks of a trace over -max-trace read about 1.2 MiB of it a second together, so the rest of a larger trace is seldom read")
			fs.DurationVar(&o.maxTraceTime, "max-trace-time", predict.DefaultMaxTraceTime, "stop analysing one run's trace after `d` (the lesser of wall and CPU time), with a note saying what was left out; the findings made before stand (0: no limit); the streamed checks of a trace over -max-trace go at about 1.2 MiB a second of CPU together, the race check first (about 2 MiB a second: smux's 220 MiB in under 2 minutes), then ConMem's (about 2.7: ccache's 155 MiB in 57 s)")
			fs.DurationVar(&o.recordBudget, "record-budget", predict.DefaultRecordBudget, "stop starting tests `d` (wall time) after the first one started, CFP's cheap run included (it may spend half); a test still running 30s later is stopped as -timeout stops it and analysed up to there, and the tests not run are counted, with a note (0: no limit)")
			fs.DurationVar(&o.detectBudget, "detect-budget", predict.DefaultDetectBudget, "bound the whole detection to `d` (the lesser of wall and CPU time); the runs not analysed by then are counted, with a note, their tests' failures still reported (0: no limit)")
			fs.DurationVar(&o.deadline, "deadline", 0, "end the whole run within `d` of wall time from its start, its results written: recording, detection and validation each get a share of the time left when they begin, within their own budgets, and what runs at d stops as at SIGTERM, the results so far written (0: none; see Nightly jobs)")
			fs.BoolVar(&o.validate, "validate", true, "confirm each finding by re-running its test forced into the predicted interleaving")
			fs.DurationVar(&o.budget, "validate-budget", 10*time.Minute, "bound the whole validation to `d`; findings not validated by then are timed out")
			fs.IntVar(&o.parallel, "p", runtime.GOMAXPROCS(0), "run up to `n` test processes at once: packages recorded side by side (a package's tests one at a time, as go test -p), forced runs in validation")
			fs.Func("fail-on", "exit 3 for confirmed findings (`confirmed`, the default), for predicted ones too (predicted: any finding but those set apart), or only for those a forced order confirmed, not tests that fail by themselves (forced)", func(v string) error {
				switch v {
				case "confirmed", "predicted", "forced":
					o.failOn = v
				default:
					return fmt.Errorf("want confirmed, predicted or forced")
				}
				return nil
			})
			fs.BoolVar(&o.vet, "vet", false, "also run precog vet's checks on the packages, record their sites always, and confirm each diagnostic in the runs that reach its sites (see Static candidates below)")
			fs.StringVar(&o.cache, "cache", "", "precog's cache `dir` (default: the precog directory in the user cache directory)")
			fs.StringVar(&o.ci, "ci", "", "write the results `dir` of a nightly job: findings (JSON lines and SARIF), reproducers, summary, test times (see Nightly jobs)")
			fs.StringVar(&o.baseline, "baseline", "", "fail only on findings whose IDs the baseline `file` does not list (see Nightly jobs)")
			fs.StringVar(&o.writeBaseline, "write-baseline", "", "write a baseline `file` that accepts every finding of this run")
			fs.StringVar(&o.shard, "shard", "", "run only shard `i/n` of the top-level tests (see Nightly jobs)")
			fs.StringVar(&o.shardTimes, "shard-times", "", "balance -shard by the test times in the results `dir` of an earlier run (default: the -ci dir's, if it has them)")
			fs.DurationVar(&o.every, "progress", defaultEvery, "when stderr is not a terminal, print a progress line every `d` (0: none)")
			o.flags = record.DefineGoTestFlagsFor(fs, "test")
			return func(ctx context.Context, env *cli.Env, args []string) (int, error) {
				patterns, testArgs, err := cli.ParseTestCommand(fs, "test", args)
				if err != nil {
					return cli.ExitError, err
				}
				o.flags.Args = testArgs
				line := append(cli.SetFlags(fs), patterns...)
				if len(testArgs) > 0 {
					line = append(append(line, "-args"), testArgs...)
				}
				o.command = cli.CommandLine("test", line)
				return run(ctx, env, o, patterns)
			}
		},
	}
}

type options struct {
	dir  string
	out  string
	runs int
	seed uint64

	perturb       string
	perturbBudget time.Duration
	json          bool
	showApart     bool
	sarif         string
	html          string
	all           bool
	deps          string
	depsRerun     bool
	funcs         bool
	cfp           bool
	cache         string
	flags         *record.GoTestFlags
	// command is the command line, for the HTML report.
	command string

	vet      bool
	validate bool
	budget   time.Duration
	parallel int
	failOn   string // "confirmed" (also for "") or "predicted" or "forced"

	ci, baseline, writeBaseline string
	shard, shardTimes           string
	every                       time.Duration

	spin, condFlags, hwNote bool
	races                   bool
	oscs                    oscs.Algorithm
	maxTrace                int64 // MiB
	maxRecord               int64 // MiB
	maxGoroutines           int
	maxTraceTime            time.Duration
	detectBudget            time.Duration
	recordBudget            time.Duration
	deadline                time.Duration
}

// maxTraceBytes turns -max-trace or -max-record into predict's limit: 0
// means none.
func maxTraceBytes(mib int64) int64 {
	if mib == 0 {
		return -1
	}
	return mib << 20
}

func run(ctx context.Context, env *cli.Env, o options, patterns []string) (int, error) {
	start := time.Now()
	if o.runs < 1 || o.runs > predict.MaxRuns {
		return cli.ExitUsage, cli.Usagef("-runs must be between 1 and %d, got %d", predict.MaxRuns, o.runs)
	}
	if o.maxGoroutines < 0 {
		return cli.ExitUsage, cli.Usagef("-max-goroutines must be 0 (no limit) or positive, got %d", o.maxGoroutines)
	}
	if o.maxTrace < 0 {
		return cli.ExitUsage, cli.Usagef("-max-trace must be 0 (no limit) or a positive number of MiB, got %d", o.maxTrace)
	}
	if o.maxRecord < 0 {
		return cli.ExitUsage, cli.Usagef("-max-record must be 0 (no limit) or a positive number of MiB, got %d", o.maxRecord)
	}
	if o.maxTraceTime < 0 {
		return cli.ExitUsage, cli.Usagef("-max-trace-time must be 0 (no limit) or positive, got %v", o.maxTraceTime)
	}
	if o.recordBudget < 0 {
		return cli.ExitUsage, cli.Usagef("-record-budget must be 0 (no limit) or positive, got %v", o.recordBudget)
	}
	if o.detectBudget < 0 {
		return cli.ExitUsage, cli.Usagef("-detect-budget must be 0 (no limit) or positive, got %v", o.detectBudget)
	}
	if o.deadline < 0 {
		return cli.ExitUsage, cli.Usagef("-deadline must be 0 (none) or positive, got %v", o.deadline)
	}
	if o.flags.Timeout < 0 {
		return cli.ExitUsage, cli.Usagef("-timeout must be 0 (no limit) or positive, got %v", o.flags.Timeout)
	}
	dir, err := cli.WorkDir(env.Dir, o.dir)
	if err != nil {
		return cli.ExitError, err
	}
	env = &cli.Env{Stdout: env.Stdout, Stderr: env.Stderr, Dir: dir}
	n, err := o.nightly(env)
	if err != nil {
		return cli.ExitUsage, &cli.UsageError{Err: err}
	}
	progress := cli.NewProgress(env.Stderr)
	var testLog io.Writer
	if o.flags.Verbose() {
		testLog = env.Stderr
		progress.Off() // the tests' output would garble it
	}
	if o.parallel < 1 {
		return cli.ExitUsage, cli.Usagef("-p must be at least 1, got %d", o.parallel)
	}
	if o.perturbBudget <= 0 {
		return cli.ExitUsage, cli.Usagef("-perturb-budget must be positive, got %v", o.perturbBudget)
	}
	if o.budget <= 0 {
		return cli.ExitUsage, cli.Usagef("-validate-budget must be positive, got %v", o.budget)
	}
	out := ""
	if o.out != "" {
		out = env.Resolve(o.out)
	}
	var vo *predict.ValidateOptions
	if o.validate {
		rd, err := predict.ReproDir(cmp.Or(n.ci, out), o.cache)
		if err != nil {
			return cli.ExitError, err
		}
		vo = &predict.ValidateOptions{Parallel: o.parallel, Budget: o.budget, ReproDir: rd, Repro: reproCommand(o)}
	}
	var checks []*analysis.Analyzer
	if o.vet {
		if checks, err = vetChecks(); err != nil {
			return cli.ExitError, err
		}
	}
	state := &progressState{start: time.Now()}
	progress.Every(o.every, state.line)
	res, err := predict.Run(ctx, predict.Options{
		Dir:            dir,
		Patterns:       patterns,
		Flags:          o.flags,
		Parallel:       o.parallel,
		All:            o.all,
		Funcs:          o.funcs,
		CFP:            o.cfp,
		Deps:           o.deps,
		DepsRerun:      o.depsRerun,
		CacheDir:       o.cache,
		Out:            out,
		Runs:           o.runs,
		Seed:           o.seed,
		Perturb:        o.perturb,
		TargetedBudget: o.perturbBudget,
		RecordBudget:   cmp.Or(o.recordBudget, -1),
		MaxRecordBytes: maxTraceBytes(o.maxRecord),
		Deadline:       o.deadline,
		Validate:       vo,
		Checks:         checks,
		Progress: func(p predict.Progress) {
			state.set(p)
			progress.Status(p.Line)
		},
		Only:    n.only,
		TestLog: testLog,
		Detect: predict.DetectOptions{
			MaxTraceBytes: maxTraceBytes(o.maxTrace),
			MaxGoroutines: cmp.Or(o.maxGoroutines, -1),
			MaxTraceTime:  cmp.Or(o.maxTraceTime, -1),
			Budget:        cmp.Or(o.detectBudget, -1),
			ConMem:        conmem.Options{NoSpinLoops: !o.spin},
			NoRaces:       !o.races,
			OSCS:          oscs.Options{Algorithm: o.oscs, NoCondFlags: !o.condFlags, NoSpinFlags: !o.spin},
			NoHardware:    !o.hwNote,
		},
	})
	progress.Clear()
	if err != nil && res == nil {
		if n.ci != "" {
			// A nightly job's directory says why it has no results:
			// interrupted, the interrupt, not what it did to the go
			// command running then ("go test -c: signal: interrupt").
			why := err
			if cause := context.Cause(ctx); cause != nil {
				why = cause
			}
			sum := results.FromError(why, dir, patterns, cmp.Or(o.failOn, "confirmed"))
			var text bytes.Buffer
			results.WriteText(&text, sum)
			html := &report.HTMLRun{Title: "precog test", Command: o.command, Dir: dir, Start: start, Elapsed: time.Since(start),
				Summary: strings.Split(strings.TrimSuffix(text.String(), "\n"), "\n")}
			if werr := results.Write(n.ci, sum, nil, nil, reproCommand(o), html); werr != nil {
				return cli.ExitError, fmt.Errorf("%v (and writing the results directory: %v)", err, werr)
			}
		}
		if _, ok := context.Cause(ctx).(*cli.Interrupt); ok && o.deadline == 0 {
			return cli.ExitError, &cli.InterruptHint{Err: err, Hint: "no test was analysed yet; with -deadline D a run ends by itself within D and writes its results"}
		}
		return cli.ExitError, err
	}
	// An interrupt after detection began leaves the findings made so far
	// (predict.Run): they are written as a finished run's, and the
	// summary says the run was interrupted.
	interrupted := err
	sum, tests := results.FromResult(res, dir, patterns, o.runs)
	sum.Shard = o.shard
	if interrupted != nil {
		sum.Interrupted = interrupted.Error()
	}
	sum.Judge(res.Findings, n.baseline, o.baseline, cmp.Or(o.failOn, "confirmed"))
	if sig := (*cli.Interrupt)(nil); errors.As(interrupted, &sig) {
		// cli.Main exits with the signal's status, and the summary says
		// the status the job got.
		sum.Exit = sig.ExitStatus()
	}
	if o.sarif != "" {
		sarifLog := report.SARIF
		if n.baseline != nil {
			sarifLog = report.SARIFBaselined
		}
		log := sarifLog(dir, report.KindRules(finding.RuntimeKinds()), res.Findings, res.InternalErrors)
		if err := sarif.WriteFile(env.Stdout, dir, o.sarif, log); err != nil {
			return cli.ExitError, err
		}
	}
	var leftOut []finding.Finding // findings set apart that the text left out
	if o.sarif != "-" {
		var err error
		if o.json {
			err = report.JSON(env.Stdout, res.Findings)
		} else {
			leftOut, err = writeText(env.Stdout, o, dir, res)
		}
		if err != nil {
			return cli.ExitError, fmt.Errorf("writing findings: %w", err)
		}
	}
	var text bytes.Buffer
	results.WriteText(&text, sum)
	env.Stderr.Write(text.Bytes())
	if len(leftOut) > 0 {
		fmt.Fprintln(env.Stderr, results.ApartLine(leftOut))
	}
	html := &report.HTMLRun{Title: "precog test", Command: o.command, Dir: dir, Start: start, Elapsed: time.Since(start),
		Summary: strings.Split(strings.TrimSuffix(text.String(), "\n"), "\n"), Errors: res.InternalErrors}
	if o.html != "" {
		if err := report.HTMLFile(env.Resolve(o.html), *html, res.Findings); err != nil {
			return cli.ExitError, err
		}
	}
	if out != "" {
		fmt.Fprintf(env.Stderr, "traces kept in %s\n", out)
	}
	if n.ci != "" {
		if err := results.Write(n.ci, sum, res.Findings, tests, reproCommand(o), html); err != nil {
			return cli.ExitError, fmt.Errorf("writing the results directory: %w", err)
		}
		fmt.Fprintf(env.Stderr, "results in %s\n", o.ci)
	}
	if o.writeBaseline != "" && interrupted == nil { // a partial run's findings are no baseline
		if err := results.WriteBaseline(env.Resolve(o.writeBaseline), dir, res.Findings); err != nil {
			return cli.ExitError, err
		}
	}
	switch {
	case errors.As(interrupted, new(*predict.DeadlineError)):
		// The summary's "partial results:" line says so; the status is
		// a partial run's (Summary.Judge).
		return sum.Exit, nil
	case interrupted != nil:
		return cli.ExitError, interrupted // cli.Main exits with the signal's status
	case sum.Exit != 0:
		return sum.Exit, nil
	case len(res.Findings) > 0:
		return cli.ExitOK, nil
	case len(res.InternalErrors) > 0:
		return cli.ExitError, fmt.Errorf("no findings, but %d internal %s in precog's checkers", len(res.InternalErrors), cli.Plural(len(res.InternalErrors), "error", "errors"))
	}
	return cli.ExitOK, nil
}

// writeText writes res's findings to w as text (report.Text), with the
// hints about them, and returns those it left out: the findings set apart
// (report.SetApart: data races whose forced runs touched different memory,
// OSCS pairs that validation tried and did not confirm),
// unless -show-apart asks for them. The hints count only the findings
// shown. -json, -sarif, -html and -ci keep every finding.
func writeText(w io.Writer, o options, dir string, res *predict.Result) ([]finding.Finding, error) {
	fs, apart := res.Findings, []finding.Finding(nil)
	if !o.showApart {
		fs, apart = report.Apart(res.Findings)
	}
	if err := report.Text(w, dir, fs); err != nil {
		return nil, err
	}
	explainHints(w, o, fs)
	depsHint(w, fs, res.Instrumented, o.deps+","+res.RerunDeps)
	return apart, nil
}

// vetChecks returns precog vet's checks with the flag values of a
// driver that analyses many packages in one process.
func vetChecks() ([]*analysis.Analyzer, error) {
	checks := suite.Checks()
	for name, value := range suite.SharedProcessFlags {
		an, fl, _ := strings.Cut(name, ".")
		for _, a := range checks {
			if a.Name == an {
				if err := a.Flags.Set(fl, value); err != nil {
					return nil, fmt.Errorf("setting -%s: %w", name, err)
				}
			}
		}
	}
	return checks, nil
}

// A hintSubject is who a hint of explainHints is about, one test or a
// package's group of them, with the words that agree with it.
type hintSubject struct {
	who, test                    string // as the hint names it; the test its command runs
	self, they, them, their, one string // "itself", "it", "it", "its", "it" for one test
	cause                        string // "its root cause", "the root cause of one"
}

// explainHints prints, for each test that failed by itself in its
// recorded run (a crash or a failed test), the precog explain command that
// looks for the failure's root cause, saying first what its output shows of
// the environment if it shows something (finding.Validation.Environment: a
// test that needs a server or the network is no concurrency bug, and
// go-nsq's 15 such failures read like bugs), or that it fails alone but
// passes with its package's other tests (finding.Validation.Alone: its
// root cause is another test's setup), or that it failed only when
// recorded (not-confirmed: "failed by itself" would contradict the
// finding's own status, rehearsal 46's lambda); and once, if any did, that
// each test ran in a process of its own: a test that relies on what
// another test of its package set up fails there though the package
// passes under go test (groupcache's TestTruncatingByteSliceTarget needs
// another test's once.Do), and the user should not have to guess why.
//
// Tests of one package with the same hint (the same environment shown,
// or none) share one line once there are more than two: gue's 44 tests
// that all need a database printed 44 hints (held-out rehearsal 49).
func explainHints(w io.Writer, o options, fs []finding.Finding) {
	cmd := "precog explain"
	if o.dir != "" {
		cmd += " -C " + cli.ShellQuote(o.dir)
	}
	type hintKey struct {
		kind     int // the hint's kind: 0 failed by itself, 1 only when recorded, 2 alone
		pkg, env string
	}
	var keys []hintKey
	tests := make(map[hintKey][]string)
	seen := make(map[string]bool)
	for _, f := range fs {
		if f.Kind != finding.Crash && f.Kind != finding.TestFailed {
			continue
		}
		for _, t := range f.Tests {
			i := strings.LastIndexByte(t, '.')
			if i < 0 || seen[t] {
				continue
			}
			seen[t] = true
			k := hintKey{pkg: t[:i]}
			switch v := f.Validation; {
			case v != nil && v.Alone:
				if t != f.Tests[0] {
					continue // its other tests' runs together were not read
				}
				k.kind = 2
			case f.Status == finding.NotConfirmed:
				k.kind = 1
			case v != nil:
				k.env = v.Environment
			}
			if tests[k] == nil {
				keys = append(keys, k)
			}
			tests[k] = append(tests[k], t[i+1:])
		}
	}
	for _, k := range keys {
		ts := tests[k]
		pkg := cli.ShellQuote(k.pkg)
		if k.kind == 2 {
			for _, t := range ts {
				fmt.Fprintf(w, "hint: %s fails alone but passes with its package's other tests, as go test runs them: it needs what another test sets up (go test -run %s %s fails the same way)\n",
					t, cli.ShellQuote("^"+t+"$"), pkg)
			}
			continue
		}
		subjects := make([]hintSubject, 0, len(ts))
		if len(ts) > 2 {
			names := strings.Join(ts[:2], ", ") + fmt.Sprintf(" and %d more", len(ts)-2)
			subjects = append(subjects, hintSubject{fmt.Sprintf("%d tests of %s (%s)", len(ts), k.pkg, names), ts[0],
				"themselves", "they", "them", "their", "one", "the root cause of one"})
		} else {
			for _, t := range ts {
				subjects = append(subjects, hintSubject{t, t, "itself", "it", "it", "its", "it", "its root cause"})
			}
		}
		for _, s := range subjects {
			switch {
			case k.kind == 1:
				fmt.Fprintf(w, "hint: %s failed only when recorded and passed without recording: recording alone may have made %s fail (timing, allocations); if not, what failed %s in the recorded run: %s -run %s %s\n",
					s.who, s.them, s.one, cmd, s.test, pkg)
			case k.env != "":
				what, line, _ := strings.Cut(k.env, ": ")
				fmt.Fprintf(w, "hint: %s failed by %s; %s output shows %s (%s): %s may need a server, the network, a program, a file or a setting that this machine lacks, %s environment rather than a bug (precog test takes go test's -short, -run and -skip, which leave such tests out); if not, %s: %s -run %s %s\n",
					s.who, s.self, s.their, what, line, s.they, s.their, s.cause, cmd, s.test, pkg)
			default:
				fmt.Fprintf(w, "hint: %s failed by %s; %s: %s -run %s %s\n", s.who, s.self, s.cause, cmd, s.test, pkg)
			}
		}
	}
	if len(seen) > 0 {
		fmt.Fprintln(w, "hint: each test ran in a process of its own; one that needs what another test set up fails there, as under go test -run with its name alone")
	}
}

// depsHint says, if any finding has a goroutine that code precog did not
// instrument started (finding.UnseenSpawn), what started it and whether
// -instrument-deps can do anything about it: buntdb's races on a loop
// variable that closures run by github.com/tidwall/lotsa's goroutines
// read, ordered by lotsa's own WaitGroup, gave no clue of -instrument-deps,
// and smokescreen's user could not tell that the proxy's goroutines were
// its fork github.com/stripe/goproxy's (held-out rehearsal 45). One line
// each, counting the findings with such a goroutine: a dependency's go
// statement (the pattern that records them); the standard library's,
// reached from a dependency's call (no flag records the go statement,
// but the dependency's calls into it, which order the goroutines after
// them, can be); the standard library's otherwise; and a goroutine whose
// creator the shim did not name. Packages of instrumented (the import
// paths of the packages precog instrumented) are the user's code, never
// named as dependencies, nor are those that deps (an -instrument-deps
// pattern: the user's and the second pass's, predict.Result.RerunDeps)
// matches. It says the same of findings ordered, maybe, by a
// close that such code made (finding.UnseenClose: nxadm/tail's races
// ordered by gopkg.in/tomb.v1's Kill).
func depsHint(w io.Writer, fs []finding.Finding, instrumented []string, deps string) {
	known := make(map[string]bool, 2*len(instrumented))
	for _, p := range instrumented {
		// A package's external tests (gofakes3_test's newTestServer
		// starts the server) are instrumented with it.
		known[p], known[p+"_test"] = true, true
	}
	inst := func(pkg string) bool { return known[pkg] || predict.MatchDeps(deps, pkg) }
	type line struct {
		n         int
		ids       []string // of the findings counted, in order
		std, deps map[string]bool
	}
	newLine := func() *line { return &line{std: make(map[string]bool), deps: make(map[string]bool)} }
	byDep, fromDep, std, unknown, closed := newLine(), newLine(), newLine(), newLine(), newLine()
	for _, f := range fs {
		counted := make(map[*line]bool)
		for _, s := range f.Spawns {
			if !s.IsUnseenSpawn() {
				continue
			}
			l := unknown
			pkg := trace.FuncPackage(s.Function)
			from := trace.FuncPackage(s.From)
			switch {
			case pkg == "" || inst(pkg):
			case !finding.StdPackage(pkg):
				l = byDep
				l.deps[pkg] = true
			case from != "" && !inst(from):
				l = fromDep
				l.std[pkg], l.deps[from] = true, true
			default:
				l = std
				l.std[pkg] = true
			}
			if !counted[l] {
				counted[l] = true
				l.n++
				l.ids = append(l.ids, f.ID)
			}
		}
		if slices.ContainsFunc(f.Evidence.Notes, func(s string) bool { return strings.HasPrefix(s, finding.UnseenClose) }) {
			closed.n++
			closed.ids = append(closed.ids, f.ID)
		}
	}
	have := func(l *line) string {
		return fmt.Sprintf("%d %s%s", l.n, cli.Plural(l.n, "finding", "findings"), idList(l.ids)) + cli.Plural(l.n, " has", " have")
	}
	if l := byDep; l.n > 0 {
		fmt.Fprintf(w, "hint: %s goroutines that %s started, whose starts and joins are not in the trace (-instrument-deps %s records them)\n",
			have(l), andList(l.deps), predict.DepsPattern(l.deps))
	}
	if l := fromDep; l.n > 0 {
		fmt.Fprintf(w, "hint: %s goroutines that %s started when %s called into it: no flag records the standard library's go statements, but -instrument-deps %s records those calls, which orders the goroutines after them\n",
			have(l), andList(l.std), andList(l.deps), predict.DepsPattern(l.deps))
	}
	if l := std; l.n > 0 {
		fmt.Fprintf(w, "hint: %s goroutines that %s started: no flag records the standard library's go statements, so their starts and joins are not in the trace\n",
			have(l), andList(l.std))
	}
	if l := unknown; l.n > 0 {
		fmt.Fprintf(w, "hint: %s goroutines that code precog did not instrument started (a dependency's go statement, or the standard library's): their starts and joins are not in the trace; -instrument-deps PATTERN instruments dependencies too\n",
			have(l))
	}
	if l := closed; l.n > 0 {
		fmt.Fprintf(w, "hint: in %d %s%s, a goroutine received from a channel that no recorded close closed (a dependency's close, or the standard library's), which may order the two sides; -instrument-deps PATTERN instruments dependencies too\n",
			l.n, cli.Plural(l.n, "finding", "findings"), idList(l.ids))
	}
}

// idList names the findings a hint is about by their IDs
// (predict.FirstIDs): " (id a)", " (ids a, b, c and 2 more)"; "" for none.
func idList(ids []string) string {
	switch l := predict.FirstIDs(ids); {
	case l == "":
		return ""
	case !strings.Contains(l, " "):
		return " (id " + l + ")"
	default:
		return " (ids " + l + ")"
	}
}

// andList joins the set's elements, sorted, as "a", "a and b" or "a, b
// and c".
func andList(set map[string]bool) string {
	l := slices.Sorted(maps.Keys(set))
	if len(l) < 2 {
		return strings.Join(l, "")
	}
	return strings.Join(l[:len(l)-1], ", ") + " and " + l[len(l)-1]
}

// reproCommand returns the command that replays a confirmed finding's
// schedule, runnable from the directory precog test runs in.
func reproCommand(o options) func(id string) string {
	return func(id string) string {
		cmd := "precog repro"
		if o.dir != "" {
			cmd += " -C " + cli.ShellQuote(o.dir)
		}
		if d := cmp.Or(o.ci, o.out); d != "" {
			cmd += " -o " + cli.ShellQuote(d)
		}
		if o.cache != "" {
			cmd += " -cache " + cli.ShellQuote(o.cache)
		}
		return cmd + " " + id
	}
}
