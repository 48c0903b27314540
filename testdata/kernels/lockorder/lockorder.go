// Package lockorder is a negative case for precog explain: a failing test
// with no root cause that execution suppression can find
// (execution-suppression.txt §2.1: the approach applies to failures that
// reveal a corrupted memory location).
//
// Two accounts, each with its own lock. Transfer locks the source, then the
// destination; two transfers in opposite directions can each hold one lock
// and wait for the other forever (lock-order inversion):
//
//	goroutine 1 (a to b)                 goroutine 2 (b to a)
//	a.mu.Lock()
//	                                     b.mu.Lock()
//	b.mu.Lock()   (waits for goroutine 2)
//	                                     a.mu.Lock()   (waits for goroutine 1)
//	--- FAIL: the transfers did not finish (the test's watchdog, 500 ms)
//
// The test runs the interleaving as written (each transfer validates the
// source for 20 ms while holding its lock): go test -count=20 fails 20 of
// 20 runs. The two goroutines stay blocked after the test fails; the test
// binary exits with them.
//
// Root cause (explain file): none. Execution suppression starts from the
// location whose value caused the failure and walks back its definitions;
// a deadlock has no such location. Every value in memory is right (both
// balances, both transfers' amounts); the goroutines do not read a wrong
// value, they wait for locks, which are synchronization, not data, and the
// watchdog fails the test on a timer. There is nothing to suppress, so
// precog explain must say it found no root cause rather than blame a
// statement (the cause is the lock order, which a lock-order analysis, not
// execution suppression, reports).
package lockorder

import (
	"sync"
	"time"
)

// Account is a bank account.
type Account struct {
	mu      sync.Mutex
	balance int
}

// Transfer moves amount from src to dst, validating the source (for
// validate) while it holds the source's lock.
func Transfer(src, dst *Account, amount int, validate time.Duration) {
	src.mu.Lock()
	defer src.mu.Unlock()
	time.Sleep(validate)
	dst.mu.Lock() // the other transfer holds dst and waits for src
	defer dst.mu.Unlock()
	src.balance -= amount
	dst.balance += amount
}
