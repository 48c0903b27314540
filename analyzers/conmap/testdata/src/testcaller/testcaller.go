// Package testcaller: a routing tree whose methods take no lock of their
// own. Every caller in the package holds the owner's mutex, several calls
// up; the package's test also calls them, without the lock, on a tree of
// its own (as net/http's mapping_test.go calls mapping.add). The
// goroutines that run no test code never run the test, so the test's call
// sites do not weaken the locks held on theirs.
package testcaller

import "sync"

type node struct{ children map[string]*node }

func (n *node) add(k string) {
	if n.children == nil {
		n.children = map[string]*node{}
	}
	n.children[k] = &node{}
}

func (n *node) find(k string) *node { return n.children[k] }

func (n *node) addChild(k string) { n.add(k) }

func (n *node) findChild(k string) *node { return n.find(k) }

// Mux registers under mu.Lock and looks up under mu.RLock: silent.
type Mux struct {
	mu   sync.RWMutex
	tree node
}

func (m *Mux) Handle(pattern string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.tree.addChild(pattern)
}

func (m *Mux) lookup(path string) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	m.tree.findChild(path)
}

// Loose registers with no lock: reported.
type Loose struct {
	mu   sync.RWMutex
	tree leaf
}

type leaf struct{ children map[string]int }

func (n *leaf) add(k string) {
	n.children[k] = 1 // want `concurrent map read and map write: n.children is written here and read by \(\*leaf\).find with no common lock`
}

func (n *leaf) find(k string) int { return n.children[k] }

func (n *leaf) addChild(k string) { n.add(k) }

func (n *leaf) findChild(k string) int { return n.find(k) }

func (m *Loose) Handle(pattern string) {
	m.tree.addChild(pattern)
}

func (m *Loose) lookup(path string) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	m.tree.findChild(path)
}

var (
	mux   Mux
	loose Loose
)

func Register(pattern string) {
	mux.Handle(pattern)
	loose.Handle(pattern)
}

// Serve looks paths up on goroutines of their own while Register may run.
func Serve(paths []string) {
	for _, p := range paths {
		go mux.lookup(p)
		go loose.lookup(p)
	}
}
