// Package othertestlit: a checker that runs a model's Step callback on a
// goroutine per partition and returns at the first failure without
// waiting for the others (porcupine's checkParallel), and an exported
// Replay that runs Step on its caller's goroutine (porcupine's
// Visualize). The call graph takes model.Step, in both, to every
// literal stored in a Model's Step field, tests' included. A test's
// literal runs only where that test hands its model: Replay, called by
// another test or by code outside the package, never runs it, so a
// close in a callback that one partition reaches once is silent. A test
// that replays its own model while the checker's goroutines may still
// run is reported.
package othertestlit

type Model struct {
	Step func(key string) bool
}

func Check(m Model, parts [][]string) bool {
	results := make(chan bool, len(parts))
	for _, part := range parts {
		go func(part []string) {
			ok := true
			for _, key := range part {
				ok = ok && m.Step(key)
			}
			results <- ok
		}(part)
	}
	for range parts {
		if !<-results {
			return false
		}
	}
	return true
}

func Replay(m Model, keys []string) bool {
	for _, key := range keys {
		if !m.Step(key) {
			return false
		}
	}
	return true
}

// Verify is called by no function of the package: it runs on the
// goroutine of code outside the package, which holds no test's model.
func Verify(m Model) bool {
	return Replay(m, []string{"blocked"})
}
