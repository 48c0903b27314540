// Package pollstatus holds pollers of a status that a goroutine they
// start sets (moby/policy-helpers' roots.TrustProvider.wait): the poller
// copies the status under the lock and tests the copy's fields, the zero
// status meaning "not refreshed yet", and polls again: silent. A poller that
// checks one field and dereferences another of the zero status, or
// returns the status whole, uses the zero value: reported.
package pollstatus

import (
	"sync"
	"time"
)

type Status struct {
	LastUpdated *time.Time
	Err         error
}

type Provider struct {
	mu     sync.RWMutex
	status Status
}

func (p *Provider) update() {
	now := time.Now()
	p.mu.Lock()
	p.status = Status{LastUpdated: &now}
	p.mu.Unlock()
}

// Wait copies the status to a variable and tests its fields: silent.
func (p *Provider) Wait() {
	first := true
	for {
		p.mu.RLock()
		st := p.status
		p.mu.RUnlock()
		if st.LastUpdated != nil && st.Err == nil {
			return
		}
		if first {
			go p.update()
			first = false
		}
		time.Sleep(time.Millisecond)
	}
}

// Since checks the error but dereferences the time of the zero status:
// reported.
func (p *Provider) Since() time.Duration {
	go p.update()
	p.mu.RLock()
	st := p.status // want `p.status may be read before it is set`
	p.mu.RUnlock()
	if st.Err != nil {
		return 0
	}
	return time.Since(*st.LastUpdated)
}

// Current returns the status whole, the zero one if update has not run:
// reported.
func (p *Provider) Current() Status {
	go p.update()
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.status // want `p.status may be read before it is set`
}
