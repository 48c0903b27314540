// Package seatclaim is a check-then-act across two locked calls of a
// lock-per-operation structure (issue 18 item 2; oscs.txt Fig. 3c's
// atomicity shape, as Unicorn's StringBuffer and Vector have it through
// two calls). Its negative control, a test's loop of Set then Get on the
// same kind of table, is the package seatloop.
//
// Seats maps seat numbers to names, and every method takes s.mu once:
// each one is atomic. Claim gives a free seat to a guest: it checks with
// Get and then acts with Set, two critical sections, and relies on the
// seat still being free at the second. The box office, on another
// goroutine, assigns the seat with Set, which must win whatever the
// order: Claim must never overwrite an assignment. Every access holds
// s.mu, so there is no data race.
//
// Failing interleaving:
//
//	claim goroutine                  box office goroutine
//	S1 s.Get(2): "" (free)
//	                                 S2 s.Set(2, "box office")
//	S3 s.Set(2, "guest")
//	the guest has the seat the box office assigned; the test fails
//
// The test's normal schedule hides it: the box office assigns 2 ms after
// the claim started. precog test reports two OSCS pairs of the bug: the
// Get's read against the box office's write (a read-only section whose
// goroutine's next section, Claim's Set, touches the seat the other side
// writes; the instrumenter finds that Claim calls Get and then Set on
// one Seats, so the two sections are a caller's two steps, not two
// operations of a loop: package seatloop), and the two Sets' writes,
// neither of which reads the seat first (a lost update).
//
// Board (status.go) is the true neighbour of seatloop's Board, a status
// that updates compare with Status before they set it: here they let
// the readiness lock go first, so two updates' check-then-acts
// interleave. precog test reports the two sets; a goroutine polling
// Status beside them makes no report.
package seatclaim

import "sync"

// Seats is a lock-per-operation table from seat numbers to names; the
// empty name is a free seat.
type Seats struct {
	mu    sync.Mutex
	names []string
}

// NewSeats returns n free seats.
func NewSeats(n int) *Seats {
	return &Seats{names: make([]string, n)}
}

// Get returns who has seat i.
func (s *Seats) Get(i int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.names[i] // S1
}

// Set gives seat i to name.
func (s *Seats) Set(i int, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.names[i] = name // S2, S3
}

// Claim gives seat i to name if it is free, and reports whether it did.
func (s *Seats) Claim(i int, name string) bool {
	if s.Get(i) != "" {
		return false
	}
	s.Set(i, name)
	return true
}
