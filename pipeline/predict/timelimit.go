package predict

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/precog-dev/precog/analyzers/budget"
)

// DefaultMaxTraceTime is the default DetectOptions.MaxTraceTime: two
// minutes. A trace within -max-trace is analysed in memory in seconds to
// tens of seconds (gocron's 44 traces, 86 M events: 248 s of CPU in all);
// the streamed race check of a larger one goes at about 2 MiB of trace a
// second of CPU (smux's TestParallel: 185 MiB in 95 to 111 s, 220 MiB in
// under two minutes), so the default lets a trace of about three times
// -max-trace be checked whole and stops smux's 397 and 711 MiB ones
// partway (ConMem's streamed checks, which come after, about 2.7 MiB a
// second: ccache's 155 MiB trace in 57 s; the two together reach the end
// of about twice -max-trace), where a nightly job spent 14 minutes of wall time on one trace
// at load 15 to 28 (bench/RESULTS.md, "Held-out rehearsal 7").
const DefaultMaxTraceTime = 2 * time.Minute

// errOverTime stops a streamed check at DetectOptions.MaxTraceTime.
var errOverTime = errors.New("over the time limit")

// A traceClock measures one trace's analysis against
// DetectOptions.MaxTraceTime, with the static checks' measure of time
// (analyzers/budget): the lesser of the wall time and the processor time
// of the process since the analysis began, so that a loaded machine, where
// the wall time of the same work grows with the load, does not stop it
// early, while a check that does not end spends both.
type traceClock struct {
	limit time.Duration
	b     *budget.Budget // nil without a limit
	fake  func() bool    // DetectOptions.overTime, for tests
	stop  *atomic.Bool   // DetectOptions.interrupted: reads spent once set
	cut   *cut           // DetectOptions.cut: reads spent once reached
}

// clock starts the clock of one trace's analysis.
func (o DetectOptions) clock() *traceClock {
	c := startClock(o.maxTraceTime(), o.overTime)
	c.stop, c.cut = o.interrupted, o.cut
	return c
}

// interrupted reports whether the clock reads spent because detection
// was interrupted, not because its limit was reached.
func (c *traceClock) interrupted() bool { return c.stop != nil && c.stop.Load() }

// startClock starts a clock of limit (none if not positive), or fake's.
func startClock(limit time.Duration, fake func() bool) *traceClock {
	c := &traceClock{limit: limit, fake: fake}
	if c.limit > 0 && c.fake == nil {
		c.b = budget.New(c.limit, 0, 0)
		c.b.Spend(0)
	}
	return c
}

// tick is called once per event of a streamed trace: it looks at the
// clock every few thousand calls (budget.Spend's period), so it costs a
// few atomic operations an event, and reports whether the time is spent.
func (c *traceClock) tick() bool {
	switch {
	case c.interrupted(), c.cut.reached():
		return true
	case c.limit <= 0:
		return false
	case c.fake != nil:
		return c.fake()
	}
	return !c.b.Spend(1)
}

// over looks at the clock now and reports whether the time is spent;
// called between two checkers.
func (c *traceClock) over() bool {
	switch {
	case c.interrupted(), c.cut.reached():
		return true
	case c.limit <= 0:
		return false
	case c.fake != nil:
		return c.fake()
	}
	return c.b.Exhausted()
}

func (o DetectOptions) maxTraceTime() time.Duration {
	if o.MaxTraceTime == 0 {
		return DefaultMaxTraceTime
	}
	return o.MaxTraceTime
}

// DefaultDetectBudget is the default DetectOptions.Budget: ten minutes,
// as -validate-budget's. A module's detection has measured seconds to a
// few minutes (gocron's 44 traces: 248 s of CPU); go-datastructures' 409
// recorded tests, a third of them over -max-trace, had not finished in
// 15 minutes of wall time at load 20 (bench/RESULTS.md, "Held-out
// rehearsal 8").
const DefaultDetectBudget = 10 * time.Minute

func (o DetectOptions) detectBudget() time.Duration {
	if o.Budget == 0 {
		return DefaultDetectBudget
	}
	return o.Budget
}

// detectClock starts the clock of the whole detection, measured as a
// trace's (traceClock).
func (o DetectOptions) detectClock() *traceClock {
	c := startClock(o.detectBudget(), o.budgetSpent)
	c.cut = o.cut
	return c
}

// An overBudget is the whole detection's clock and what it left out.
type overBudget struct {
	clock *traceClock
	runs  int             // runs not analysed
	tests map[string]bool // their tests
}

// spent reports whether the detection's budget is spent, counting a run
// of test as left out if it is.
func (b *overBudget) spent(test string) bool {
	if b == nil || !b.clock.over() {
		return false
	}
	b.runs++
	b.tests[test] = true
	return true
}

// note is the line that says what the spent budget left out, of total
// tests. (The run in progress when it ran out had its own limit,
// MaxTraceTime.)
func (b *overBudget) note(tests, total int) string {
	if b.clock.cut.reached() {
		return fmt.Sprintf("detection stopped at the end of its share of -deadline (%v of wall time) with %d %s, of %d of the %d tests, not analysed; their failures are still reported (a later -deadline analyses them)",
			b.clock.cut.share.Round(time.Second), b.runs, plural(b.runs, "run", "runs"), tests, total)
	}
	return fmt.Sprintf("detection stopped after %v (-detect-budget) with %d %s, of %d of the %d tests, not analysed; their failures are still reported (a larger -detect-budget, or 0, analyses them)",
		b.clock.limit, b.runs, plural(b.runs, "run", "runs"), tests, total)
}

// DefaultRecordBudget is the default Options.RecordBudget: ten minutes,
// as for detection and validation, so that each stage of a nightly job is
// bounded by default. goleveldb's stress test TestCacheMap, 210 s under
// plain go test at load 20, kept its precog test recording past 15
// minutes, before detection and validation could start (bench/RESULTS.md,
// "Held-out rehearsal 9").
const DefaultRecordBudget = 10 * time.Minute

func (o Options) recordBudget() time.Duration {
	if o.RecordBudget == 0 {
		return DefaultRecordBudget
	}
	return o.RecordBudget
}
