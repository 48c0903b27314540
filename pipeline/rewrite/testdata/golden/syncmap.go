package p

import "sync"

type sessions struct {
	m sync.Map
}

func syncMap(s *sessions, m *sync.Map, id string) int {
	s.m.Store(id, 1)
	v, ok := s.m.Load(id)
	if !ok {
		return 0
	}
	m.LoadOrStore(id, v)
	m.LoadAndDelete(id)
	s.m.Delete(id)
	s.m.Swap(id, 2)
	s.m.CompareAndSwap(id, 2, 3)
	s.m.CompareAndDelete(id, 3)
	n := 0
	s.m.Range(func(k, v any) bool {
		n++
		return true
	})
	return n
}

type id int64

type conn struct{ p *int }

// keyTypes has keys of integer and string types (named, untyped), whose
// operations that keep no key take the Scalar wrappers, and of others.
func keyTypes[K comparable](m *sync.Map, k K, c conn, a any) {
	m.Load(id(1))
	m.Load(7)
	m.Delete("x")
	m.LoadAndDelete(uint8(2))
	m.CompareAndDelete('r', 1)
	m.Store(id(1), 1)
	m.Load(c)
	m.Load(a)
	m.Load(k)
	m.Load(nil)
}
