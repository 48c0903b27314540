// Package crashorder is validation's negative control for a crash of a
// recorded run: a crash at a predicted site, with the effect the finding's
// kind names, that came without the finding's interleaving.
//
// Resize sets a pool's size on a goroutine of its own, and Last reads it on
// the test's goroutine with nothing ordering the two: a con-uninit finding,
// the read before the initializing write. Read first, the size is 0 and
// Last returns the first slot, harmlessly. But the test gives Resize a
// size larger than the pool (a bug of its own), and in the recorded run
// the write comes first, 10ms before the read: Last indexes past the end
// and panics, at the read's line. A con-uninit finding accepts any panic
// at its site, and precog confirmed it by that crash, though the run's
// trace shows the write long before the read, the other order. Now a crash
// of a recorded run confirms a finding only when the trace shows the
// finding's order before it: the panic is reported as a crash of its own,
// and the con-uninit finding is forced (the read first), where the test
// passes.
package crashorder

// A Pool hands out its last used slot.
type Pool struct {
	size  int
	slots []int
}

// New returns a pool of n slots, none used.
func New(n int) *Pool { return &Pool{slots: make([]int, n)} }

// Resize sets how many slots are used.
func (p *Pool) Resize(n int) { p.size = n }

// Last returns the last used slot, the first if none is.
func (p *Pool) Last() int { return p.slots[max(p.size-1, 0)] }
