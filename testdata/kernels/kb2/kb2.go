// Package kb2 is the KB2-AM kernel (OSCS, oscs.txt Table 2, a MySQL bug as a
// two-goroutine kernel): a non-race multi-variable atomicity violation.
//
// Each session adds to a shared counter in one critical section and then,
// in a later one, writes the counter's new value to the log. Every access
// holds s.mu, so there is no data race, and the additions commute; but the
// logged value is read in a critical section of its own, so another
// session's addition can come in between.
//
// Failing interleaving:
//
//	session 1                            session 2
//	S1 s.counter += 1
//	                                     S1 s.counter += 2
//	S2 log s.counter: 3
//	                                     S2 log s.counter: 3
//	the log says 3, 3 where every session's own update gave 1, then 3
//
// The test's normal schedule hides the bug: session 2 runs 2 ms after
// session 1 has logged.
package kb2

import "sync"

// Stats is a shared counter and the log of its values.
type Stats struct {
	mu      sync.Mutex
	counter int
	log     []int
}

// Add adds d to the counter and logs the new value.
func (s *Stats) Add(d int) {
	s.mu.Lock()
	s.counter += d // S1
	s.mu.Unlock()

	s.mu.Lock()
	s.log = append(s.log, s.counter) // S2
	s.mu.Unlock()
}

// Logged returns a copy of the log.
func (s *Stats) Logged() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]int(nil), s.log...)
}
