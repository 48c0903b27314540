// Package taskloop: a function handed to another package's task loop
// (tasklib.Loop.Run) holds a lock named by the loop's location, and what
// its caller holds, so that two tasks of one loop exclude each other; code
// outside the tasks does not hold it, nor do tasks of a loop that runs
// them on goroutines of their own (tasklib.Spawner).
package taskloop

import (
	"context"
	"sync"

	"tasklib"
)

func mark() {}

type Agent struct {
	mu    sync.Mutex
	loop  *tasklib.Loop
	spawn *tasklib.Spawner
	cands map[string]int
}

func (a *Agent) Add(ctx context.Context, k string) error {
	return a.loop.Run(ctx, func(context.Context) {
		mark() // want `held: Agent.loop\(w\)`
		a.cands[k]++
		a.helper()
	})
}

func (a *Agent) helper() {
	mark() // want `held: Agent.loop\(w\)`
}

func (a *Agent) AddLocked(ctx context.Context, k string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.loop.Run(ctx, func(context.Context) {
		mark() // want `held: Agent.loop\(w\), Agent.mu\(w\)`
		a.cands[k]++
	})
}

// Outside is not a task.
func (a *Agent) Outside(k string) {
	mark() // want `held: none`
	a.cands[k]++
}

func (a *Agent) Spawned(ctx context.Context, k string) error {
	return a.spawn.Run(ctx, func(context.Context) {
		mark() // want `held: none`
		a.cands[k]++
	})
}

// NewAgent's onClose runs on the loop's goroutine, after its last task.
func NewAgent() *Agent {
	a := &Agent{cands: map[string]int{}}
	a.loop = tasklib.New(func() {
		mark() // want `held: Agent.loop\(w\)`
		clear(a.cands)
	})
	return a
}

// Other's loop is kept in a local variable too: its onClose holds nothing.
func Other() *tasklib.Loop {
	l := tasklib.New(func() {
		mark() // want `held: none`
	})
	_ = l.Run(context.Background(), func(context.Context) {})
	return l
}

// Local's loop is in a local variable: no location names it.
func Local(ctx context.Context, m map[string]int) {
	l := tasklib.New(func() {})
	_ = l.Run(ctx, func(context.Context) {
		mark() // want `held: none`
		m["x"]++
	})
}
