package predict

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/precog-dev/precog/pipeline/record"
)

// A DeadlineError is the cause of a run stopped at Options.Deadline: Run
// returns it as an interrupt's cause, with the results so far once
// detection has begun, or alone before, with the stage it stopped.
type DeadlineError struct {
	Deadline time.Duration
	// Stage is, for a run stopped before detection began, what it was
	// doing then, as its progress line said ("building the tests: 27 of
	// 28 test binaries linked"): a nightly job that ends with no results
	// says where its time went.
	Stage string
}

func (e *DeadlineError) Error() string {
	if e.Stage != "" {
		return fmt.Sprintf("the -deadline of %v was reached before detection began (at: %s)", e.Deadline, e.Stage)
	}
	return fmt.Sprintf("the -deadline of %v was reached", e.Deadline)
}

// A jobDeadline divides Options.Deadline's wall time among the stages of
// a run, so that a nightly job with a time limit validates what it found
// instead of being killed before it has (heldout17's pion/sctp: its
// 25-minute job spent 10.5 minutes of wall time detecting in one 646 MiB
// trace at load 30, whose budgets count the lesser of wall and processor
// time, and validated nothing). Each stage, as it begins, gets a share of
// the time then left, so that time one stage did not use goes to the
// next and one that overran takes from the next, not from the end:
// recording, which begins once the test binaries are built, two fifths,
// less the grace of a test it stops (30 s, or a quarter of the two fifths
// if that is less); detection half of what is left then;
// validation the rest. The build comes first and so takes from every
// stage alike, but at most half of the time left (build): a build still
// running then is stopped, and the packages linked by then are recorded. Without validation, recording
// gets half and detection the rest. Recording's share is a first bound:
// with tests still to start at its end, recording goes on while what is
// left covers what the stages after it are reckoned to need (more), so
// that a job whose detection and validation take seconds does not end
// minutes early with tests unrun (rocketmq at -deadline 16m: 39 of 57
// tests not run, the job ended 4 min 27 s early). Each stage's own budget still bounds
// it when it is the smaller. The last reserve of the deadline is kept for
// writing the results.
type jobDeadline struct {
	limit    time.Duration
	end      time.Time
	validate bool
	buildCap time.Duration // Options.buildCap
}

func newJobDeadline(limit time.Duration, validate bool) *jobDeadline {
	if limit <= 0 {
		return nil
	}
	return &jobDeadline{limit: limit, end: time.Now().Add(limit), validate: validate}
}

// reserve is the time kept at the end for writing the results (findings,
// SARIF, the HTML report): a twentieth of the deadline, at most 30s.
func (d *jobDeadline) reserve() time.Duration { return min(30*time.Second, d.limit/20) }

// left is the time left before the reserve.
func (d *jobDeadline) left() time.Duration { return time.Until(d.end) - d.reserve() }

// build is the longest the build may take: half of the time left, so that
// a module whose build would take the whole deadline (go-coap's, 22 of 24
// minutes at load 23-57) records the packages linked by then, and the
// stages after it have the other half.
func (d *jobDeadline) build() time.Duration {
	share := max(d.left()/2, time.Second).Truncate(time.Second)
	if d.buildCap > 0 {
		share = min(share, d.buildCap)
	}
	return share
}

// recording is the share of the recording stage, in whole seconds, at
// least one (a recording always starts its first test), and the grace of
// a test still running at its end, taken from the share: record.StopGrace,
// but a quarter of the share at most, so that a short share is not spent
// on the grace alone (a build that took half of a 4-minute deadline left
// recording 5 s of its 41: 36 s of grace).
func (d *jobDeadline) recording() (limit, grace time.Duration) {
	share := d.left() * 2 / 5
	if !d.validate {
		share = d.left() / 2
	}
	grace = max(min(record.StopGrace, share/4), time.Millisecond)
	return max(share-grace, time.Second).Truncate(time.Second), grace
}

// detectPerEvent is what detection is reckoned to take per recorded event
// when recording asks for more time (more): the slowest of the held-out
// jobs' detections, 1,855,374 events in 2 min 13 s at load 40-50 (72 µs
// an event; gowarc's 28 million took 6 µs each, jaeger's 9.7 million 19
// µs), rounded up.
const detectPerEvent = 80 * time.Microsecond

// after is what recording leaves, when it asks for more time, to the
// stages after it for a recording of the given events: detection at
// detectPerEvent, and a floor of an eighth of the deadline, at least 30s
// (a tenth of it and 15s without validation), for validation's forced
// runs (each a run of a test: their number is known only after
// detection) and for what detectPerEvent underestimates.
func (d *jobDeadline) after(events int) time.Duration {
	floor := max(d.limit/8, 30*time.Second)
	if !d.validate {
		floor = max(d.limit/10, 15*time.Second)
	}
	return floor + time.Duration(events)*detectPerEvent
}

// more is record.Budget.More for recording's share: once the share is
// spent with tests still to start, recording goes on while what is left
// of the deadline, less its reserve and the grace of a test recording
// then stops, covers what the stages after it are reckoned to need
// (after). It grants half of what is over that at a time (all of it when
// under 20s), so that the reckoning is made again with the events
// recorded meanwhile, and nothing under a second. The stages after it
// take their shares of what is left when they begin, as before: more
// moves time between the stages, never past the deadline.
func (d *jobDeadline) more(events int, grace time.Duration) time.Duration {
	over := d.left() - grace - d.after(events)
	if over < time.Second {
		return 0
	}
	if over > 20*time.Second {
		over /= 2
	}
	return over.Truncate(time.Second)
}

// cheapFair is record.Budget.Fair for CFP's cheap run with a budget of
// limit: a test may take its fair part of what is left, but at least a
// sixteenth of limit and at least 5s. A test stopped there has no
// coverage and is recorded in full, after its package's others.
func cheapFair(limit time.Duration) time.Duration {
	return max(limit/16, 5*time.Second)
}

// detection is the share of the detection stage, at least a millisecond
// (the runs are then not analysed, their failures still reported).
func (d *jobDeadline) detection() time.Duration {
	share := d.left()
	if d.validate {
		share /= 2
	}
	return max(share, time.Millisecond)
}

// validation is the share of the validation stage: what is left.
func (d *jobDeadline) validation() time.Duration { return max(d.left(), time.Millisecond) }

// shareName names a stage's share of the deadline in notes.
func shareName(stage string, share time.Duration) string {
	return fmt.Sprintf("%s's share of -deadline (%v)", stage, share.Round(time.Second))
}

// A cut stops detection at the end of its share of the deadline
// (DetectOptions.share): the clocks then read spent, so the runs not yet
// analysed are not (their failures are still reported, as when
// -detect-budget is spent), a streamed race check stops at its next
// event and the in-memory checkers before the next one; a test whose
// analysis goes on is abandoned after abandonGrace. nil is no cut.
type cut struct {
	share time.Duration
	done  chan struct{} // closed when the share ends
	fired atomic.Bool
	timer *time.Timer
}

// startCut starts the cut of a share, nil if share is not positive.
func startCut(share time.Duration) *cut {
	if share <= 0 {
		return nil
	}
	c := &cut{share: share, done: make(chan struct{})}
	c.timer = time.AfterFunc(share, c.fire)
	return c
}

// fire ends the share now.
func (c *cut) fire() {
	if c.fired.CompareAndSwap(false, true) {
		close(c.done)
	}
}

// stop releases the cut's timer.
func (c *cut) stop() {
	if c != nil {
		c.timer.Stop()
	}
}

// reached reports whether the share has ended.
func (c *cut) reached() bool { return c != nil && c.fired.Load() }

// ended is closed when the share ends; nil (never ready) without a cut.
func (c *cut) ended() <-chan struct{} {
	if c == nil {
		return nil
	}
	return c.done
}

func (c *cut) String() string { return shareName("detection", c.share) }
