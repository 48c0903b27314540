package spawnlib

import "sync"

// RunEach calls f for each message on a goroutine of its own, started by
// a goroutine per message inside a Task, and waits for all of them before
// it returns, as pubsub's Subscriber.Receive does: the Task's Join on the
// same group, the Task's deferred Wait for the per-message goroutines,
// and each of those receiving from the channel the callback's goroutine
// closes.
func RunEach(msgs []string, f func(string)) { // want RunEach:`spawns\(1\) joins` RunEach:`^starts goroutines through a call$`
	var group sync.WaitGroup
	group.Go(func() {
		var wg sync.WaitGroup
		defer wg.Wait()
		for _, m := range msgs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				done := make(chan struct{})
				go func() {
					defer close(done)
					f(m)
				}()
				<-done
			}()
		}
	})
	group.Wait()
}

// RunEachInTurn waits for each callback's goroutine in the loop that
// starts it: the receive is on every path from the `go` statement to the
// Task's return, which it does not dominate.
func RunEachInTurn(msgs <-chan string, f func(string)) { // want RunEachInTurn:`spawns\(1\) joins` RunEachInTurn:`^starts goroutines through a call$`
	var group sync.WaitGroup
	group.Go(func() {
		for m := range msgs {
			done := make(chan struct{})
			go func() {
				defer close(done)
				f(m)
			}()
			<-done
		}
	})
	group.Wait()
}

// RunEachOtherGroup waits for another group than the one that runs its
// Task: f may still run after it returns.
func RunEachOtherGroup(msgs []string, f func(string)) { // want RunEachOtherGroup:`^spawns\(1\)$` RunEachOtherGroup:`^starts goroutines through a call$`
	var group, other sync.WaitGroup
	group.Go(func() {
		done := make(chan struct{})
		go func() {
			defer close(done)
			for _, m := range msgs {
				f(m)
			}
		}()
		<-done
	})
	other.Wait()
}

// RunEachDetached waits for its Task, which does not wait for the
// goroutines it starts: f may still run after it returns.
func RunEachDetached(msgs []string, f func(string)) { // want RunEachDetached:`^spawns\(1\)$` RunEachDetached:`^starts goroutines through a call$`
	var group sync.WaitGroup
	group.Go(func() {
		for _, m := range msgs {
			go f(m)
		}
	})
	group.Wait()
}

// RunHandedOn waits for its Task, which hands f on to Spawn, a spawner
// that does not wait: f may still run after it returns.
func RunHandedOn(f func()) { // want RunHandedOn:`^spawns\(0\)$` RunHandedOn:`^starts goroutines through a call$`
	var group sync.WaitGroup
	group.Go(func() {
		Spawn(f)
	})
	group.Wait()
}
