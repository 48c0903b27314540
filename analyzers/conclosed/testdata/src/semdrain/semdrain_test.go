// Package semdrain holds tests that bound their goroutines with a
// buffered channel as a counting semaphore and join them by filling the
// semaphore to its capacity (go-internal's lockedfile TestTransform): by
// the Go memory model, the kth receive from a channel of capacity C is
// synchronized before the completion of its k+Cth send, so the drain's
// last send completes only after every goroutine's release.
package semdrain

import (
	"testing"
)

const parallel = 4

func TestDrain(t *testing.T) {
	sem := make(chan bool, parallel)
	for n := 16; n > 0; n-- {
		sem <- true
		go func() {
			defer func() { <-sem }()
			t.Log("working")
		}()
	}
	for n := parallel; n > 0; n-- {
		sem <- true
	}
}

func TestDrainRange(t *testing.T) {
	sem := make(chan struct{}, parallel)
	for i := range 10 {
		sem <- struct{}{}
		go func() {
			t.Log("working", i)
			<-sem
		}()
	}
	for range cap(sem) {
		sem <- struct{}{}
	}
}

func TestDrainConst(t *testing.T) {
	sem := make(chan int, parallel)
	for i := 0; i < 10; i++ {
		sem <- i
		go func() {
			defer func() { <-sem }()
			t.Log("working")
		}()
	}
	for range parallel {
		sem <- 0
	}
}

func TestDrainCap(t *testing.T) {
	sem := make(chan int, parallel)
	for i := 0; i < 10; i++ {
		sem <- i
		go func() {
			defer func() { <-sem }()
			t.Log("working")
		}()
	}
	for i := 0; i < cap(sem); i++ {
		sem <- 0
	}
}

// TestDrainShort fills one slot fewer than the capacity: the last
// goroutine may still run when the test returns.
func TestDrainShort(t *testing.T) {
	sem := make(chan bool, parallel)
	for n := 16; n > 0; n-- {
		sem <- true
		go func() {
			defer func() { <-sem }()
			t.Log("working") // want `t.Log\("working"\) called from a goroutine that may outlive the test`
		}()
	}
	for n := parallel - 1; n > 0; n-- {
		sem <- true
	}
}

// TestReleaseFirst releases its slot before it logs: the drain waits for
// the release, not for the log.
func TestReleaseFirst(t *testing.T) {
	sem := make(chan bool, parallel)
	for n := 16; n > 0; n-- {
		sem <- true
		go func() {
			<-sem
			t.Log("working") // want `t.Log\("working"\) called from a goroutine that may outlive the test`
		}()
	}
	for n := parallel; n > 0; n-- {
		sem <- true
	}
}

// TestUnboundedStart starts a goroutine without taking a slot: the drain
// counts the others' releases only.
func TestUnboundedStart(t *testing.T) {
	sem := make(chan bool, parallel)
	for n := 16; n > 0; n-- {
		go func() {
			defer func() { <-sem }()
			t.Log("working") // want `t.Log\("working"\) called from a goroutine that may outlive the test`
		}()
	}
	for n := parallel; n > 0; n-- {
		sem <- true
	}
}

// TestTwoReleases releases twice in a goroutine: one goroutine's two
// receives can stand for another's missing one.
func TestTwoReleases(t *testing.T) {
	sem := make(chan bool, parallel)
	for n := 16; n > 0; n-- {
		sem <- true
		go func() {
			for range 2 {
				<-sem
			}
			t.Log("working") // want `t.Log\("working"\) called from a goroutine that may outlive the test`
		}()
	}
	for n := parallel; n > 0; n-- {
		sem <- true
	}
}
