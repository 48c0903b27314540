package seatclaim

import "sync"

// Board is the true neighbour of seatloop's Board (open-feature's
// multi-provider status, issue 18 item 2): a status getter and setter,
// and an Update that compares the status with Status before it sets it,
// but that lets the readiness lock go before the comparison. Two
// updates then interleave their check-then-acts:
//
//	Update(true)                         Update(false)
//	ready = true
//	                                     ready = false
//	                                     Status(): false, unchanged: no set
//	Status(): false, not true
//	setStatus(true)
//	the board says ready when it is not; the test fails
//
// TestUpdates's normal schedule runs the second update 20 ms after the
// first, which has set its status by then. precog test reports the two
// updates' sets (each after its own comparison), not the pairs of the
// test's goroutine that polls Status, which finds the status as before
// an update or after it. TestStaleUpdate runs Reset first, which finds
// the status unchanged and sets nothing, and Update(true) 20 ms later:
// precog test reports Reset's comparison against Update's set, the
// interleaving above with Reset for Update(false), and no second set in
// the trace.
type Board struct {
	mu    sync.Mutex      // guards ready
	ready map[string]bool // the members' readiness

	statusMu sync.RWMutex // guards status
	status   bool         // whether the board says it is ready
}

// Status reports whether the board says it is ready.
func (b *Board) Status() bool {
	b.statusMu.RLock()
	defer b.statusMu.RUnlock()
	return b.status
}

// setStatus sets what the board says.
func (b *Board) setStatus(s bool) {
	b.statusMu.Lock()
	b.status = s
	b.statusMu.Unlock()
}

// Update records whether the board's one member is ready, and then the
// board's status. It compares and sets the status after it let b.mu
// go: the bug.
func (b *Board) Update(ready bool) {
	b.mu.Lock()
	b.ready["a"] = ready
	b.mu.Unlock()
	if ready != b.Status() {
		b.setStatus(ready)
	}
}

// Reset marks the board's member not ready, and then the board: the
// same check-then-act as Update(false)'s.
func (b *Board) Reset() {
	b.mu.Lock()
	delete(b.ready, "a")
	b.mu.Unlock()
	if b.Status() {
		b.setStatus(false)
	}
}

// Ready reports whether the board says it is ready: a second getter of
// the status, at a Lock site of its own.
func (b *Board) Ready() bool {
	b.statusMu.RLock()
	defer b.statusMu.RUnlock()
	return b.status
}

// Clear marks the board's member not ready, and then the board: Reset's
// check-then-act, comparing the status through Ready instead of Status.
// It is the same check, and the same bug.
func (b *Board) Clear() {
	b.mu.Lock()
	b.ready["a"] = false
	b.mu.Unlock()
	if b.Ready() {
		b.setStatus(false)
	}
}
