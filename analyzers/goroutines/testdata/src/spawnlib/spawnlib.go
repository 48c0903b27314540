// Package spawnlib exports helpers that run a function argument on a new
// goroutine; the spawnfacts analyzer gives them a SpawnsFact naming the
// argument. (joinlib has one that waits for them.)
package spawnlib

func Spawn(f func()) {
	go f()
}

func SpawnNamed(name string, f func()) {
	go func() {
		f()
	}()
}

func Through(f func()) {
	Spawn(f)
}

type Runner struct{}

func (r *Runner) Go(f func()) {
	go f()
}

// Call runs f on the caller's goroutine: no fact.
func Call(f func()) {
	f()
}

// spawn is not exported: its fact would be of no use to other packages.
func spawn(f func()) {
	go f()
}
