package lockwrap

import "sync"

// Seats is seatclaim's table from seat numbers to names (the empty name
// is a free seat), its lock taken through helpers that reach it through
// a field of a field, the helper's own helper allocating it first:
//
//	claim goroutine                  box office goroutine
//	S1 s.Get(2): "" (free)
//	                                 S2 s.Set(2, "box office")
//	S3 s.Set(2, "guest")
//	the guest has the seat the box office assigned; the test fails
//
// The test's normal schedule hides it: the box office assigns 2 ms after
// the claim started.
type Seats struct {
	state struct {
		mu *sync.Mutex
	}
	names []string
}

// NewSeats returns n free seats.
func NewSeats(n int) *Seats {
	return &Seats{names: make([]string, n)}
}

// lockState allocates the mutex on first use, then locks it.
func (s *Seats) lockState() {
	if s.state.mu == nil {
		s.state.mu = new(sync.Mutex)
	}
	s.state.mu.Lock()
}

// lock is a helper of a helper.
func (s *Seats) lock() { s.lockState() }

func (s *Seats) unlock() { s.state.mu.Unlock() }

// Get returns who has seat i.
func (s *Seats) Get(i int) string {
	s.lock()
	defer s.unlock()
	return s.names[i] // S1
}

// Set gives seat i to name.
func (s *Seats) Set(i int, name string) {
	s.lock()
	defer s.unlock()
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
