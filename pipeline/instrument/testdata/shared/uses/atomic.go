package uses

import (
	"sync"
	"sync/atomic"
	"unsafe"
)

// Atomic loads of pointers (TestLoadCallUses): each Load call's Uses, in
// column order, on its line's loads comments; a line without one must
// have none.
type cfg struct {
	p   atomic.Pointer[node]
	v   atomic.Value
	raw unsafe.Pointer
	n   atomic.Int64
	m   sync.Map
}

func (c *cfg) loads() int {
	x := 0
	if c.p.Load() != nil { // loads:""
		x += c.p.Load().val // loads:"deref"
	}
	if q := c.p.Load(); q != nil { // loads:""
		x += q.val
	}
	x += c.v.Load().(*node).val          // loads:"deref"
	if v, ok := c.v.Load().(*node); ok { // loads:""
		x += v.val
	}
	x += (*node)(atomic.LoadPointer(&c.raw)).val // loads:"deref"
	x += int(c.n.Load())                         // loads:""
	if _, ok := c.m.Load(1); ok {                // loads:""
		v, _ := c.m.Load(1) // loads:"deref"
		x += v.(*node).val
	}
	if v, ok := c.m.Load(2); ok { // loads:""
		x += v.(*node).val
	}
	return x
}

func start(c *cfg) {
	go c.loads()
	c.p.Store(nil)
	c.v.Store(&node{})
	atomic.StorePointer(&c.raw, nil)
	c.m.Delete(1)
}
