package shim

import (
	"fmt"
	"runtime"
	"time"

	"github.com/precog-dev/precog/shim/plan"
	"github.com/precog-dev/precog/shim/trace"
)

// perturbState is the perturb mode's settings, under control.mu.
type perturbState struct {
	seed         uint64
	delay, yield float64
	maxDelayUS   uint64
	records      int // delay and yield lines written
	spent        bool
}

func (s *perturbState) load(c *control, p *plan.Plan) error {
	if p.Delay < 0 || p.Yield < 0 || p.Delay+p.Yield > 1 {
		return fmt.Errorf("perturb probabilities delay %g and yield %g are not in [0, 1]", p.Delay, p.Yield)
	}
	s.seed, s.delay, s.yield = p.Seed, p.Delay, p.Yield
	s.maxDelayUS = uint64(defaultMaxDelay.Microseconds())
	if p.MaxDelayUS > 0 {
		s.maxDelayUS = uint64(p.MaxDelayUS)
	}
	c.all = len(p.Sites) == 0
	for _, site := range p.Sites {
		c.name(site)
	}
	return nil
}

// Perturb actions.
const (
	actNone = iota
	actDelay
	actYield
)

// decide returns the action at point pt and, for a delay, its length: a
// function of the seed and the point only.
func (s *perturbState) decide(pt plan.Point) (int, time.Duration) {
	h := mix(mix(mix(s.seed^0x7065727475726221)^pt.G) ^ uint64(pt.Site)<<40 ^ pt.N)
	u := float64(h>>11) / (1 << 53)
	switch {
	case u < s.delay:
		return actDelay, time.Duration(1+mix(h)%s.maxDelayUS) * time.Microsecond
	case u < s.delay+s.yield:
		return actYield, 0
	}
	return actNone, 0
}

// arrive delays or yields at pt as the seed decides. c.mu is held; it is
// released while sleeping or yielding.
func (s *perturbState) arrive(c *control, gc *gctl, pt plan.Point, k trace.Kind) {
	act, d := s.decide(pt)
	switch act {
	case actDelay:
		if left := time.Duration(c.budget - c.used.Load()); d > left {
			if !s.spent {
				s.spent = true
				c.emit(plan.Record{Event: plan.EvBudget, Point: pointWithKind(pt, k),
					Reason: "the perturb budget of " + time.Duration(c.budget).String() + " is used up: no more delays"})
			}
			return
		}
		c.used.Add(int64(d))
		s.record(c, plan.Record{Event: plan.EvDelay, Point: pointWithKind(pt, k), WaitUS: d.Microseconds()})
		c.mu.Unlock()
		if gc.bubble {
			// A sleep would be the bubble's: it could let the clock
			// advance. pollUntil keeps the goroutine from being
			// durably blocked for d, so only the order within one
			// instant changes.
			pollUntil(nil, nil, nanotime()+int64(d))
		} else {
			time.Sleep(d)
		}
		c.mu.Lock()
	case actYield:
		s.record(c, plan.Record{Event: plan.EvYield, Point: pointWithKind(pt, k)})
		c.mu.Unlock()
		runtime.Gosched()
		c.mu.Lock()
	}
}

func (s *perturbState) record(c *control, r plan.Record) {
	switch {
	case s.records < maxPerturbRecords:
		c.emit(r)
	case s.records == maxPerturbRecords:
		c.emit(plan.Record{Event: plan.EvCapped, Reason: fmt.Sprintf("%d delays and yields written; later ones are not", maxPerturbRecords)})
	}
	s.records++
}
