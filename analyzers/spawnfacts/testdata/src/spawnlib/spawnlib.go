// Package spawnlib exports helpers that run a function argument on a new
// goroutine; the spawnfacts analyzer gives them a SpawnsFact naming the
// argument. (joinlib has one that waits for them.)
package spawnlib

func Spawn(f func()) { // want Spawn:`spawns\(0\)` Spawn:`^starts goroutines$`
	go f()
}

func SpawnNamed(name string, f func()) { // want SpawnNamed:`spawns\(1\)` SpawnNamed:`^starts goroutines$`
	go func() {
		f()
	}()
}

func Through(f func()) { // want Through:`spawns\(0\)` Through:`^starts goroutines through a call$`
	Spawn(f)
}

type Runner struct{}

func (r *Runner) Go(f func()) { // want Go:`spawns\(1\)` Go:`^starts goroutines$`
	go f()
}

// Call runs f on the caller's goroutine: no SpawnsFact (a SyncCallsFact,
// see synclib).
func Call(f func()) { // want Call:`calls\(0\)`
	f()
}

// spawn is not exported: its fact would be of no use to other packages.
func spawn(f func()) { // want spawn:`^starts goroutines$`
	go f()
}

// RunDone waits for f through a channel the goroutine closes when it
// returns.
func RunDone(f func()) { // want RunDone:`spawns\(0\) joins` RunDone:`^starts goroutines$`
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	<-done
}

// RunResult waits for f through the result the goroutine sends last.
func RunResult(f func() int) int { // want RunResult:`spawns\(0\) joins` RunResult:`^starts goroutines$`
	res := make(chan int)
	go func() {
		n := f()
		res <- n
	}()
	return <-res
}

// RunStarted waits only until the goroutine has started: f still runs
// after RunStarted returns.
func RunStarted(f func()) { // want RunStarted:`^spawns\(0\)$` RunStarted:`^starts goroutines$`
	started := make(chan struct{})
	go func() {
		close(started)
		f()
	}()
	<-started
}

// RunDoneOrPanic waits for f in a select whose other case panics: it goes
// on only once f has returned.
func RunDoneOrPanic(stop <-chan struct{}, f func()) { // want RunDoneOrPanic:`spawns\(1\) joins` RunDoneOrPanic:`^starts goroutines$`
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-stop:
		panic("stopped before f returned")
	}
}

// RunDoneOrStop may return through its other case while f runs.
func RunDoneOrStop(stop <-chan struct{}, f func()) { // want RunDoneOrStop:`^spawns\(1\)$` RunDoneOrStop:`^starts goroutines$`
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-stop:
	}
}
