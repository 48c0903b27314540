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
