// Package spawnlib exports helpers that run a function argument on a new
// goroutine; the spawnfacts analyzer gives them a SpawnsFact naming the
// argument. (joinlib has one that waits for them.)
package spawnlib

func Spawn(f func()) { // want Spawn:`spawns\(0\)`
	go f()
}

func SpawnNamed(name string, f func()) { // want SpawnNamed:`spawns\(1\)`
	go func() {
		f()
	}()
}

func Through(f func()) { // want Through:`spawns\(0\)`
	Spawn(f)
}

type Runner struct{}

func (r *Runner) Go(f func()) { // want Go:`spawns\(1\)`
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
