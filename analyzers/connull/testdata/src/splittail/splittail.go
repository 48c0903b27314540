// Package splittail: lists that drop their tail by clearing it and
// cutting it off, under a mutex that a consumer also takes before it
// dereferences the last element, after the unlock. A split at i that
// clears every element from i on in a loop and cuts the list to i
// (Workiva/go-datastructures' palm and hilbert trees, nodes.splitAt and
// keys.splitAt), and a pop that clears the last element and cuts it off
// with the length read from the field twice (keys.delete), leave no nil
// below the new length: silent. A loop that clears from one element below
// the cut, a cut one element above where the clearing starts, and a pop
// whose second length is read after a call that may refill the list are
// reported.
package splittail

import "sync"

type Item struct{ n int }

type Node struct {
	mu      sync.Mutex
	list    []*Item
	last    []*Item
	early   []*Item
	wide    []*Item
	refills []*Item
}

func New() *Node {
	nd := &Node{}
	go nd.produce()
	go nd.consume()
	return nd
}

func (nd *Node) produce() {
	for i := 0; ; i++ {
		nd.mu.Lock()
		it := &Item{n: i}
		nd.list = append(nd.list, it)
		nd.last = append(nd.last, it)
		nd.early = append(nd.early, it)
		nd.wide = append(nd.wide, it)
		nd.refills = append(nd.refills, it)
		nd.split(uint64(i))
		nd.pop()
		nd.splitEarly(i)
		nd.splitWide(i)
		nd.popRefilled()
		nd.mu.Unlock()
	}
}

// split keeps the first i+1 items and returns the rest.
func (nd *Node) split(i uint64) []*Item {
	i++
	right := make([]*Item, uint64(len(nd.list))-i)
	copy(right, nd.list[i:])
	for j := i; j < uint64(len(nd.list)); j++ {
		nd.list[j] = nil
	}
	nd.list = nd.list[:i]
	return right
}

// pop removes the last item.
func (nd *Node) pop() *Item {
	old := nd.last[len(nd.last)-1]
	nd.last[len(nd.last)-1] = nil
	nd.last = nd.last[:len(nd.last)-1]
	return old
}

// splitEarly clears from one element below the cut.
func (nd *Node) splitEarly(i int) {
	for j := i - 1; j < len(nd.early); j++ {
		nd.early[j] = nil
	}
	nd.early = nd.early[:i]
}

// splitWide cuts one element above where it clears.
func (nd *Node) splitWide(i int) {
	for j := i; j < len(nd.wide); j++ {
		nd.wide[j] = nil
	}
	k := i + 1
	nd.wide = nd.wide[:k]
}

// popRefilled reads the length again after a call that appends.
func (nd *Node) popRefilled() {
	nd.refills[len(nd.refills)-1] = nil
	nd.refill()
	nd.refills = nd.refills[:len(nd.refills)-1]
}

func (nd *Node) refill() { nd.refills = append(nd.refills, &Item{}) }

func (nd *Node) consume() {
	for {
		nd.mu.Lock()
		if len(nd.list) == 0 || len(nd.last) == 0 || len(nd.early) == 0 || len(nd.wide) == 0 || len(nd.refills) == 0 {
			nd.mu.Unlock()
			continue
		}
		it := nd.list[len(nd.list)-1]
		l := nd.last[len(nd.last)-1]
		e := nd.early[len(nd.early)-1]
		w := nd.wide[len(nd.wide)-1]
		r := nd.refills[len(nd.refills)-1]
		nd.mu.Unlock()
		_ = it.n
		_ = l.n
		_ = e.n // want `^nd\.early\[len\(nd\.early\) - 1\] may be nil when dereferenced here: \(\*Node\)\.splitEarly stores nil to it concurrently$`
		_ = w.n // want `^nd\.wide\[len\(nd\.wide\) - 1\] may be nil when dereferenced here: \(\*Node\)\.splitWide stores nil to it concurrently$`
		_ = r.n // want `^nd\.refills\[len\(nd\.refills\) - 1\] may be nil when dereferenced here: \(\*Node\)\.popRefilled stores nil to it concurrently$`
	}
}
