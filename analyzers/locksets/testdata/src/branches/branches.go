// Package branches: where paths meet, a mutex is held only if it is held
// on every path.
package branches

import "sync"

func mark() {}

type T struct {
	a, b sync.Mutex
}

func (t *T) Meet(c bool) {
	t.a.Lock()
	if c {
		t.b.Lock()
		mark() // want `^held: T.a\(w\), T.b\(w\)$`
	}
	mark() // want `^held: T.a\(w\)$`
	if c {
		t.b.Unlock()
	}
	t.a.Unlock()
}

func (t *T) OneSide(c bool) {
	if c {
		t.a.Lock()
	} else {
		t.b.Lock()
	}
	mark() // want `^held: none$`
}

func (t *T) UnlockOnOnePath(c bool) {
	t.a.Lock()
	if c {
		t.a.Unlock()
	}
	mark() // want `^held: none$`
}

func (t *T) Switch(n int) {
	switch n {
	case 0:
		t.a.Lock()
	case 1:
		t.a.Lock()
		t.b.Lock()
	default:
		t.b.Lock()
		t.a.Lock()
	}
	mark() // want `^held: T.a\(w\)$`
}
