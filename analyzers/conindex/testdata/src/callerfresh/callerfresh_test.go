package callerfresh

import (
	"sync"
	"testing"
)

type agent struct {
	mu    sync.Mutex
	steps []int
	reqs  int
}

func (a *agent) start() { go a.serve() }

func (a *agent) serve() {
	for range 10 {
		a.mu.Lock()
		idx := a.reqs
		a.reqs++
		s := 0
		if idx < len(a.steps) {
			s = a.steps[idx]
		}
		a.mu.Unlock()
		if s < 0 {
			return
		}
	}
}

// nested starts its goroutine one call further down.
type nested struct {
	mu    sync.Mutex
	steps []int
	reqs  int
}

func (n *nested) start() { n.listen() }

func (n *nested) listen() { go n.serve() }

func (n *nested) serve() {
	for range 10 {
		n.mu.Lock()
		idx := n.reqs
		n.reqs++
		s := 0
		if idx < len(n.steps) {
			s = n.steps[idx]
		}
		n.mu.Unlock()
		if s < 0 {
			return
		}
	}
}

// late is filled after the call that starts its goroutine.
type late struct {
	mu    sync.Mutex
	steps []int
	reqs  int
}

func (l *late) start() { go l.serve() }

func (l *late) serve() {
	for range 10 {
		l.mu.Lock()
		idx := l.reqs
		l.reqs++
		s := 0
		if idx < len(l.steps) {
			s = l.steps[idx] // want `l.steps\[idx\] may be out of range: l.steps is replaced concurrently by setupLate`
		}
		l.mu.Unlock()
		if s < 0 {
			return
		}
	}
}

// reused is one agent that every run of setupReused fills again.
type reused struct {
	mu    sync.Mutex
	steps []int
	reqs  int
}

func (r *reused) start() { go r.serve() }

func (r *reused) serve() {
	for range 10 {
		r.mu.Lock()
		idx := r.reqs
		r.reqs++
		s := 0
		if idx < len(r.steps) {
			s = r.steps[idx] // want `r.steps\[idx\] may be out of range: r.steps is replaced concurrently by setupReused`
		}
		r.mu.Unlock()
		if s < 0 {
			return
		}
	}
}

// looped is one agent filled and started in each turn of a loop.
type looped struct {
	mu    sync.Mutex
	steps []int
	reqs  int
}

func (l *looped) start() { go l.serve() }

func (l *looped) serve() {
	for range 10 {
		l.mu.Lock()
		idx := l.reqs
		l.reqs++
		s := 0
		if idx < len(l.steps) {
			s = l.steps[idx] // want `l.steps\[idx\] may be out of range: l.steps is replaced concurrently by setupLooped`
		}
		l.mu.Unlock()
		if s < 0 {
			return
		}
	}
}

// setup hands the agent to build before it stores the steps.
func setup(build func(*agent) []int) *agent {
	a := &agent{}
	a.steps = build(a)
	a.start()
	return a
}

func TestOne(t *testing.T) { setup(func(*agent) []int { return []int{1} }) }

func TestTwo(t *testing.T) { setup(func(*agent) []int { return nil }) }

// setupNested fills a new nested agent before it starts it.
func setupNested(build func(*nested) []int) {
	n := &nested{}
	n.steps = build(n)
	n.start()
}

func TestThree(t *testing.T) { setupNested(func(*nested) []int { return []int{1} }) }

func TestFour(t *testing.T) { setupNested(func(*nested) []int { return nil }) }

// setupLate fills the agent after the call that starts it.
func setupLate(steps []int) {
	l := &late{}
	l.start()
	l.steps = steps
}

func TestFive(t *testing.T) { setupLate([]int{1}) }

// setupReused fills the one agent again at each run.
var theReused = &reused{}

func setupReused(steps []int) {
	r := theReused
	r.steps = steps
	r.start()
}

func TestSix(t *testing.T) { setupReused([]int{1}) }

func TestSeven(t *testing.T) { setupReused(nil) }

// setupLooped fills and starts one agent in each turn.
func setupLooped(sets [][]int) {
	l := &looped{}
	for _, s := range sets {
		l.steps = s
		l.start()
	}
}

func TestEight(t *testing.T) { setupLooped([][]int{{1}, nil}) }
