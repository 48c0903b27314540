// Package flagorder: two flag locks held at one call. The lock set lists
// them in the order the solver numbered them, which the checks' related
// lines follow ("T.second is held here, but not at the other access");
// that order must not change from one run to the next.
package flagorder

import "sync/atomic"

type T struct {
	first, second int32
	m             map[int]int
}

func mark() {}

func (t *T) both() {
	if atomic.CompareAndSwapInt32(&t.second, 0, 1) {
		if atomic.CompareAndSwapInt32(&t.first, 0, 1) {
			mark() // want `order: T.second, T.first`
			t.m[1] = 1
			atomic.StoreInt32(&t.first, 0)
		}
		atomic.StoreInt32(&t.second, 0)
	}
}

func (t *T) none() { t.m[2] = 2 }

func Run(t *T) {
	go t.both()
	go t.none()
}
