package ring

import "testing"

func TestRing(t *testing.T) {
	r := New[*int](2)
	for i := range 3 {
		r.Push(&i)
	}
	for range 2 {
		if v, ok := r.Pop(); !ok || v == nil {
			t.Fatal("empty slot")
		}
	}
}
