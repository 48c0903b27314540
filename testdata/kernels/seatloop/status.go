package seatloop

import "sync"

// Board is a status board aggregated from its members' states, the
// shape of open-feature's multi-provider: Update takes the members'
// lock, recomputes the overall status, and compares it with Status
// before it sets it; Status is a getter that takes the status lock once.
type Board struct {
	mu      sync.Mutex // guards members
	members map[string]bool

	statusMu sync.RWMutex // guards status
	status   int
}

// Status values.
const (
	NotReady = iota
	Ready
)

// NewBoard returns a board with the named members, none of them ready.
func NewBoard(names ...string) *Board {
	b := &Board{members: make(map[string]bool)}
	for _, n := range names {
		b.members[n] = false
	}
	return b
}

// Status returns the board's overall status.
func (b *Board) Status() int {
	b.statusMu.RLock()
	defer b.statusMu.RUnlock()
	return b.status
}

// setStatus sets the board's overall status.
func (b *Board) setStatus(s int) {
	b.statusMu.Lock()
	defer b.statusMu.Unlock()
	b.status = s
}

// Update records whether member name is ready, and the overall status:
// Ready once every member is.
func (b *Board) Update(name string, ready bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.members[name] = ready
	s := Ready
	for _, r := range b.members {
		if !r {
			s = NotReady
		}
	}
	if s != b.Status() {
		b.setStatus(s)
	}
}

// Ready reports whether the board says it is Ready: a second getter of
// the status, at a Lock site of its own.
func (b *Board) Ready() bool {
	b.statusMu.RLock()
	defer b.statusMu.RUnlock()
	return b.status == Ready
}
