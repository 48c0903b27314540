// Package seatloop is the negative control of seatclaim (issue 18 item
// 2): a lock-per-operation map with no function that calls two of its
// operations one after the other, driven by a test whose workers each
// set a seat and read it back, in a loop, as fastcache's and puddle's
// tests drive theirs.
//
// Every method takes s.mu once and leaves the map consistent, so any
// order of the workers' calls is a valid history: each worker finds its
// own seat as it set it. In the trace, a worker's Get is a read-only
// critical section between two of its Sets, which touch the entry count
// and the entries that the other worker's Set writes; that is how a
// caller's two steps look too (seatclaim's Claim, StringBuffer's
// Append). precog test must report nothing: the instrumenter finds no
// function outside the test that calls Set and then Get, or Get and then
// Set, on one Seats, so a worker's Get and Sets are separate operations.
// (Before it looked, OSCS reported the Gets against the other worker's
// Sets.)
//
// Board (status.go) is a getter polled in a loop, open-feature's
// multi-provider status (held-out rehearsal 26): Update compares the
// status it computed with Status and then sets it, a two-step, while a
// goroutine polls Status. The comparison only reads, as the poll does,
// so the poll finds the status of before an update or after it, whether
// it runs before the comparison or between the comparison and the set.
// precog test must report nothing (before, OSCS reported the poll's read
// against the set as an atomicity violation). seatclaim's Board is the
// same shape with the bug.
package seatloop

import "sync"

// entries is the map's capacity.
const entries = 64

// Seats is a lock-per-operation map from seat numbers to names, its
// entries kept in the order they were added.
type Seats struct {
	mu    sync.Mutex
	seats [entries]int
	names [entries]string
	n     int // entries in use
}

// Get returns who has seat i, "" if nobody.
func (s *Seats) Get(i int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for j := 0; j < s.n; j++ {
		if s.seats[j] == i {
			return s.names[j]
		}
	}
	return ""
}

// Set gives seat i to name.
func (s *Seats) Set(i int, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for j := 0; j < s.n; j++ {
		if s.seats[j] == i {
			s.names[j] = name
			return
		}
	}
	s.seats[s.n] = i
	s.names[s.n] = name
	s.n++
}
