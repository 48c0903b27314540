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
// gets half and detection the rest. Each stage's own budget still bounds
// it when it is the smaller. The last reserve of the deadline is kept for
// writing the results.
type jobDeadline struct {
	limit    time.Duration
	end      time.Time
	validate bool
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
	return max(d.left()/2, time.Second).Truncate(time.Second)
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
