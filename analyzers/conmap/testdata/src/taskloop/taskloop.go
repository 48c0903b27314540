// Package taskloop: an agent (pion/ice's) whose maps are touched only
// inside functions handed to a dependency's task loop (loop.Loop.Run)
// from two goroutines of its own, and in the loop's onClose: the loop's
// one goroutine runs them one at a time, so no report. A read outside any
// task, on a goroutine of the agent, is reported against the tasks; so
// are tasks of a loop that runs each on a goroutine of its own
// (loop.Spawner), and of a loop with two goroutines (loop.Twice).
package taskloop

import (
	"context"

	"taskloop/loop"
)

type Agent struct {
	loop  *loop.Loop
	cands map[string]int

	spawn   *loop.Spawner
	spawned map[string]int

	twice *loop.Twice
	both  map[string]int

	direct map[string]int
}

func NewAgent() *Agent {
	a := &Agent{cands: map[string]int{}, spawned: map[string]int{}, both: map[string]int{}, direct: map[string]int{}}
	a.loop = loop.New(func() {
		for k := range a.cands {
			delete(a.cands, k)
		}
	})
	a.spawn = loop.NewSpawner()
	a.twice = loop.NewTwice()
	go a.gather()
	go a.check()
	go a.outside()
	return a
}

// gather adds candidates from a goroutine of its own, in tasks.
func (a *Agent) gather() {
	ctx := context.Background()
	for i := range 3 {
		_ = a.loop.Run(ctx, func(context.Context) {
			a.cands[string(rune('a'+i))] = i
			a.direct["g"] = i // want `concurrent map read and map write: a.direct is written here and read by \(\*Agent\).outside`
		})
		_ = a.spawn.Run(ctx, func(context.Context) {
			a.spawned["g"] = i // want `concurrent map read and map write: a.spawned is written here and read by func literal in \(\*Agent\).check`
		})
		_ = a.twice.Run(ctx, func(context.Context) {
			a.both["g"] = i // want `concurrent map read and map write: a.both is written here and read by func literal in \(\*Agent\).check`
		})
	}
}

// check runs on a goroutine of its own too, in tasks.
func (a *Agent) check() {
	ctx := context.Background()
	_ = a.loop.Run(ctx, func(context.Context) {
		a.cands["c"]++
	})
	_ = a.spawn.Run(ctx, func(context.Context) {
		_ = a.spawned["c"]
	})
	_ = a.twice.Run(ctx, func(context.Context) {
		_ = a.both["c"]
	})
}

// outside reads a map the tasks write, outside any task.
func (a *Agent) outside() {
	_ = a.direct["o"]
}

func (a *Agent) Close() { a.loop.Close() }
