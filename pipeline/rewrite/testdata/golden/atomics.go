package p

import (
	"sync/atomic"
	"unsafe"
)

type stats struct {
	n    int64
	hits atomic.Int64
	on   atomic.Bool
	cfg  atomic.Pointer[string]
	v    atomic.Value
	u    uint32
	p    unsafe.Pointer
}

func atomics(s *stats) int64 {
	atomic.AddInt64(&s.n, 1)
	_ = atomic.LoadInt64(&s.n)
	atomic.StoreUint32(&s.u, 2)
	atomic.CompareAndSwapInt64(&s.n, 1, 2)
	_ = atomic.LoadPointer(&s.p)
	s.hits.Add(2)
	s.on.Store(true)
	str := "x"
	s.cfg.Store(&str)
	_ = s.cfg.Load()
	s.v.Store(1)
	return s.hits.Load()
}

func andOr(s *stats, x *int32, v *atomic.Uint32) {
	atomic.AndInt32(x, 3)
	_ = atomic.OrUint32(&s.u, 4)
	v.Or(1)
	s.hits.And(7)
}

// deferred's atomic is a deferred call: it gets no Local.
func deferred(s *stats) {
	defer s.hits.Add(1)
}
