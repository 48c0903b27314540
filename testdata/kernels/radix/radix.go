// Package radix is a known false-positive shape of OSCS (oscs.txt Fig. 12,
// SPLASH-2 Radix slave_sort): a done flag set under the lock and awaited
// with a condition variable.
//
// The summing goroutine stores a node's sum and sets n.done under r.mu, then
// broadcasts r.cond; the waiting goroutine, under r.mu, waits on r.cond
// until n.done is set and then reads the sum. Whichever runs first, the
// waiter reads the final sum: the flag orders the two. But the waiter's
// check of the flag (S1) and the setter's write (S2) are conflicting
// accesses in unordered critical sections, the check has no read-write
// sequence, and the paper's OSCS reports the pair. There is no bug; the
// kernel records what the checker says about the shape, with and without
// the option that treats a flag awaited under a Cond as synchronization.
package radix

import "sync"

// Node is a node of the prefix tree.
type Node struct {
	sum  int
	done bool
}

// Tree is the prefix tree with its lock and condition variable.
type Tree struct {
	mu   sync.Mutex
	cond *sync.Cond
	node Node
}

// NewTree returns a tree whose condition variable uses its lock.
func NewTree() *Tree {
	t := &Tree{}
	t.cond = sync.NewCond(&t.mu)
	return t
}

// Wait waits until the node is done and returns its sum.
func (t *Tree) Wait() int {
	t.mu.Lock()
	for !t.node.done { // S1
		t.cond.Wait()
	}
	sum := t.node.sum
	t.mu.Unlock()
	return sum
}

// Publish stores the node's sum and marks it done.
func (t *Tree) Publish(sum int) {
	t.mu.Lock()
	t.node.sum = sum
	t.node.done = true // S2
	t.cond.Broadcast()
	t.mu.Unlock()
}
