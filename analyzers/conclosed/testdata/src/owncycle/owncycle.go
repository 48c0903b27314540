// Package owncycle: a gatherer that coalesces concurrent calls, as
// prometheus's coalescingGatherer does. The call that finds no cycle
// makes one, publishes it under the mutex, gathers and closes its ready
// channel, normally or, if gathering panicked, in a deferred closure;
// the calls that find it only wait on it. Each close touches the channel
// of the cycle its own call made, so two calls on two goroutines close
// two channels and nothing is reported. Near misses, reported: a cycle
// whose ready channel is the gatherer's own (shared by every cycle), and
// a joiner that closes the cycle it found.
package owncycle

import "sync"

type cycle struct {
	ready chan struct{}
	err   error
}

type Gatherer struct {
	mu     sync.Mutex
	cycle  *cycle
	shared chan struct{}
	last   *sharedCycle
}

// Run gathers on two goroutines at once.
func Run() {
	g := &Gatherer{shared: make(chan struct{})}
	go g.Gather()
	g.Gather()
	go g.Shared()
	g.Shared()
	go g.Join()
	g.Join()
}

func (g *Gatherer) Gather() error {
	g.mu.Lock()
	if cy := g.cycle; cy != nil {
		g.mu.Unlock()
		<-cy.ready
		return cy.err
	}
	cy := &cycle{ready: make(chan struct{})}
	g.cycle = cy
	g.mu.Unlock()
	panicked := true
	defer func() {
		if panicked {
			close(cy.ready)
		}
	}()
	gather()
	panicked = false
	close(cy.ready)
	return cy.err
}

func gather() {}

type sharedCycle struct {
	ready chan struct{}
}

// Shared's cycles all hold the gatherer's one channel.
func (g *Gatherer) Shared() {
	cy := &sharedCycle{ready: g.shared}
	g.mu.Lock()
	g.last = cy
	g.mu.Unlock()
	close(cy.ready) // want `close of closed channel: cy.ready may also be closed by \(\*Gatherer\).Shared`
}

// Join closes the cycle it found, which another call made.
func (g *Gatherer) Join() {
	g.mu.Lock()
	cy := g.cycle
	g.mu.Unlock()
	if cy != nil {
		close(cy.ready) // want `close of closed channel`
	}
}
