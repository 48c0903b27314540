// Package poolclose is a resource pool that builds a resource with its
// lock released (issue 18 item 2; puddle's CreateResource): Create checks
// that the pool is open under the lock, unlocks to build the resource,
// and locks again to add it to the idle list. Close, on another goroutine,
// can run between the two critical sections.
//
// WRONG, CreateUnchecked: the second section adds the resource on the
// first section's premise that the pool is open. With Close between the
// two sections the resource goes into a closed pool's idle list after
// Close destroyed the others, and is never destroyed (a leak):
//
//	create goroutine                  close goroutine
//	S1 if p.closed {...} (false)
//	   build, unlocked
//	                                  S2 p.closed = true; destroy idle
//	S3 p.idle = append(p.idle, r)
//
// An atomicity violation of two critical sections, no data race: OSCS
// reports Close's write of p.closed against S1's read, whose value decided
// that S3 runs and which S3 does not read again.
//
// RIGHT, Create: the second section reads p.closed again and destroys the
// resource when the pool closed meanwhile (puddle's "If closed while
// constructing resource then destroy it"). Either order of Close and
// either section leaves no resource alive in a closed pool. precog test
// must report nothing for it: the first section's read only decides a
// branch (the instrumenter's trace.UseBranch) and the second reads the
// flag again, so the call carries nothing from its first section into its
// second that Close can change; its two sections are whole operations
// (before this rule OSCS reported both reads against Close's write).
//
// The tests' normal schedule runs the create well before the close, so
// neither test fails as written.
package poolclose

import (
	"errors"
	"sync"
)

// ErrClosed is returned by Create on a closed pool.
var ErrClosed = errors.New("pool closed")

// Res is a pooled resource.
type Res struct {
	destroyed bool
}

// Pool holds idle resources and counts those alive.
type Pool struct {
	mu     sync.Mutex
	closed bool
	idle   []*Res
	live   int // built and not destroyed
}

// build makes a resource; it runs with the pool unlocked.
func build() *Res { return new(Res) }

// Create builds a resource and adds it to the idle list (RIGHT).
func (p *Pool) Create() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return ErrClosed
	}
	p.mu.Unlock()

	r := build()

	p.mu.Lock()
	defer p.mu.Unlock()
	p.live++
	if p.closed {
		r.destroyed = true
		p.live--
		return ErrClosed
	}
	p.idle = append(p.idle, r)
	return nil
}

// CreateUnchecked is Create without the second check (WRONG).
func (p *Pool) CreateUnchecked() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return ErrClosed
	}
	p.mu.Unlock()

	r := build()

	p.mu.Lock()
	defer p.mu.Unlock()
	p.live++
	p.idle = append(p.idle, r)
	return nil
}

// Close destroys the idle resources; later creates fail.
func (p *Pool) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	p.closed = true
	for _, r := range p.idle {
		r.destroyed = true
		p.live--
	}
	p.idle = nil
}

// Live returns the number of resources built and not destroyed.
func (p *Pool) Live() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.live
}
