// Package generic: generic map types whose methods take no lock of their
// own. go/ssa calls a generic method through an instantiation wrapper;
// the locks held at the wrapper's call sites are held in the generic body.
package generic

import "sync"

// mapping's callers hold the owner's mutex, several calls up (as
// net/http's ServeMux holds mu around its routing tree's mapping[K,V]):
// silent.
type mapping[K comparable, V any] struct{ m map[K]V }

func (h *mapping[K, V]) add(k K, v V) {
	if h.m == nil {
		h.m = map[K]V{}
	}
	h.m[k] = v
}

func (h *mapping[K, V]) find(k K) (V, bool) {
	v, ok := h.m[k]
	return v, ok
}

// eachKey calls f through its parameter: a call that VTA leaves without an
// edge in a generic body; the closures passed by its callers are its
// callees, and they run with the callers' locks.
func (h *mapping[K, V]) eachKey(f func(k K) bool) {
	for k := range h.m {
		if !f(k) {
			return
		}
	}
}

type node struct{ children mapping[string, *node] }

func (n *node) addChild(k string) { n.children.add(k, &node{}) }

func (n *node) findChild(k string) *node {
	c, _ := n.children.find(k)
	return c
}

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

func (m *Mux) walk() {
	m.mu.RLock()
	defer m.mu.RUnlock()
	m.tree.children.eachKey(func(k string) bool {
		return m.tree.findChild(k) != nil
	})
}

// table's writer holds no lock: reported.
type table[K comparable, V any] struct{ m map[K]V }

func (h *table[K, V]) add(k K, v V) {
	if h.m == nil {
		h.m = map[K]V{}
	}
	h.m[k] = v // want `concurrent map read and map write: h.m is written here and read by \(\*table\).find with no common lock`
}

func (h *table[K, V]) find(k K) (V, bool) {
	v, ok := h.m[k]
	return v, ok
}

type Loose struct {
	mu sync.RWMutex
	t  table[string, int]
}

func (l *Loose) Handle(pattern string) {
	l.t.add(pattern, 1)
}

func (l *Loose) lookup(path string) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	l.t.find(path)
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
		go mux.walk()
		go loose.lookup(p)
	}
}

// Cache's Get forgets the lock. Its goroutines call the methods through
// go/ssa's instantiation wrappers, which are static calls of the generic
// bodies: each goroutine of the loop runs the same code (reported).
type Cache[K comparable, V any] struct {
	mu sync.Mutex
	m  map[K]V
}

func NewCache[K comparable, V any]() *Cache[K, V] { return &Cache[K, V]{m: make(map[K]V)} }

func (c *Cache[K, V]) Set(k K, v V) {
	c.mu.Lock()
	c.m[k] = v // want `concurrent map read and map write: c.m is written here and read by \(\*Cache\).Get with no common lock`
	c.mu.Unlock()
}

func (c *Cache[K, V]) Get(k K) (V, bool) {
	v, ok := c.m[k]
	return v, ok
}

func RunCache() {
	c := NewCache[string, int]()
	for i := range 4 {
		go func() {
			c.Set("a", i)
			c.Get("a")
		}()
	}
}
