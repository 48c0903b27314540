package predict

import (
	"fmt"
	"sync"
	"time"

	"github.com/precog-dev/precog/pipeline/record"
)

// A Progress is a snapshot of what Run is doing, for a display: the line
// a terminal shows, and the counts a periodic line in a CI log prints.
type Progress struct {
	Line string // what is being done now, one short line
	// Done of Total tests have been recorded in the current recording
	// (the cheap runs of CFP guidance, then the runs with detection),
	// with Events events.
	Done, Total int
	Events      int
	// Findings counts the findings so far (after detection: all of
	// them); Confirmed those validation has confirmed.
	Findings, Confirmed int
	// Validated of Validating findings have been validated. Deadline is
	// when the budget of the stage under way runs out, and Budget names
	// it: while recording, when the recording's budget stops starting
	// tests ("-record-budget", "half of -record-budget" in CFP's cheap
	// run, or recording's share of -deadline); while validating, when
	// the validation budget runs out ("the validation budget", or
	// validation's share of -deadline when that is less). It is zero
	// without a budget, before its clock started, and while detecting.
	Validated, Validating int
	Deadline              time.Time
	Budget                string
}

// A tracker keeps the Progress of one Run and hands a copy to the
// callback on every change. Validation reports from several goroutines.
type tracker struct {
	mu sync.Mutex
	p  Progress
	f  func(Progress)
	// earlier counts the findings of the job's earlier rounds and those
	// confirmed (carry): the counts a round reports add to them.
	earlier struct{ findings, confirmed int }
}

// carry sets the counts of the rounds before the next one.
func (t *tracker) carry(findings, confirmed int) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.earlier.findings, t.earlier.confirmed = findings, confirmed
}

func newTracker(f func(Progress)) *tracker { return &tracker{f: f} }

// update applies change to the progress and reports it.
func (t *tracker) update(change func(p *Progress)) {
	if t == nil || t.f == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	change(&t.p)
	t.f(t.p)
}

// line reports what is being done.
func (t *tracker) line(s string) { t.update(func(p *Progress) { p.Line = s }) }

// recording reports record's progress.
func (t *tracker) recording(r record.Progress) {
	t.update(func(p *Progress) {
		p.Line = fmt.Sprintf("[%d/%d] %s %s", r.N, r.Of, r.Package, r.Test)
		p.Done, p.Total, p.Events, p.Deadline, p.Budget = r.Done, r.Total, r.Events, r.Ends, r.Budget
	})
}
